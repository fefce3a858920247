//! Transports by name: what a flow runs, built into a pair of endpoints.
//!
//! Built-in transports are variants of [`AnyEndpoint`] (static dispatch on the per-packet
//! path); a transport written elsewhere implements [`Endpoint`] for its two ends and is
//! registered by name with [`register`], after which scenarios select it with
//! `transport = "name"` like a built-in.

use crate::cc::CcParams;
use crate::coded::PayloadPorts;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
pub use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::packet::Packet;
use crate::transport_kind::Transport;
use crate::wire_flow::{WireFlow, WireTransport};
use std::sync::RwLock;
use tcplab_core::{ColumnDef, KeyError, Metrics, Time};

pub use crate::registration::{Factory, Registration, UserEndpoints};

/// The transport of a flow that names none.
pub const DEFAULT: &str = <crate::tcp::TcpTransport as Transport>::NAME;

static REGISTRY: RwLock<Vec<(String, Registration)>> = RwLock::new(Vec::new());

/// Registers a transport under `name` (usable as `transport = "name"`). Built-in names
/// cannot be replaced; registering a user name again replaces it. A column it declares
/// may be one a built-in or another registered transport declares (the same
/// [`ColumnDef`]), but not another definition of that name.
pub fn register(name: &str, r: Registration) -> Result<(), String> {
    if BUILTIN.contains(&name) {
        return Err(format!("'{name}' is a built-in transport"));
    }
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(format!(
            "a transport name has 1 to {MAX_NAME} bytes ('{name}' has {})",
            name.len()
        ));
    }
    let mut reg = REGISTRY
        .write()
        .map_err(|_| "transport registry poisoned".to_string())?;
    let others = builtin_columns()
        .into_iter()
        .map(|(n, f, s)| (n.to_string(), f, s))
        .chain(reg.iter().filter(|(n, _)| n != name).map(|(n, r)| {
            (
                n.clone(),
                r.flow_columns.to_vec(),
                r.series_columns.to_vec(),
            )
        }));
    for (other, flows, series) in others {
        for (table, mine, theirs) in [
            ("flows", r.flow_columns, &flows),
            ("flow_series", r.series_columns, &series),
        ] {
            if let Some(c) = mine
                .iter()
                .find(|c| theirs.iter().any(|d| d.name == c.name && d != *c))
            {
                return Err(format!(
                    "transport '{name}': {table} column `{}` is declared by transport \
                     '{other}' with another unit, meaning or range (name that transport's \
                     ColumnDef, or choose another name)",
                    c.name
                ));
            }
        }
    }
    reg.retain(|(n, _)| n != name);
    reg.push((name.to_string(), r));
    Ok(())
}

/// The longest name a transport may be registered under (bytes).
pub const MAX_NAME: usize = 64;

/// Every transport name a scenario may use, built-ins first.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = BUILTIN.iter().map(|s| s.to_string()).collect();
    if let Ok(reg) = REGISTRY.read() {
        v.extend(reg.iter().map(|(n, _)| n.clone()));
    }
    v
}

/// Each registered transport's name and the columns its ends publish: flows table, then
/// `flow_series` (as [`builtin_columns`] gives the built-ins').
pub fn registered_columns() -> Vec<(String, Vec<ColumnDef>, Vec<ColumnDef>)> {
    REGISTRY.read().map_or_else(
        |_| Vec::new(),
        |reg| {
            reg.iter()
                .map(|(n, r)| {
                    (
                        n.clone(),
                        r.flow_columns.to_vec(),
                        r.series_columns.to_vec(),
                    )
                })
                .collect()
        },
    )
}

fn lookup(name: &str) -> Result<Factory, String> {
    let found = REGISTRY
        .read()
        .map_err(|_| "transport registry poisoned".to_string())?
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, r)| r.build);
    // The registry's lock is released before `names` takes it again (a writer waiting
    // between two reads would otherwise wait forever).
    found.ok_or_else(|| {
        format!(
            "unknown transport '{name}' (available: {})",
            names().join(", ")
        )
    })
}

/// Why a registered transport was not built, by the flow key to blame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserBuildError {
    /// No transport is registered under the name (`transport`).
    UnknownName(String),
    /// Its factory refused the parameters, or left some unused (`params`).
    Params(String),
}

impl std::fmt::Display for UserBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UserBuildError::UnknownName(why) | UserBuildError::Params(why) => f.write_str(why),
        }
    }
}

impl From<UserBuildError> for String {
    fn from(e: UserBuildError) -> String {
        e.to_string()
    }
}

/// Builds the endpoints of registered transport `name` with `params`.
pub fn build_user(
    name: &str,
    params: &CcParams,
    ctx: FlowContext,
) -> Result<FlowEndpoints, UserBuildError> {
    let factory = lookup(name).map_err(UserBuildError::UnknownName)?;
    let mut p = params.clone();
    let u = factory(&mut p, ctx).map_err(UserBuildError::Params)?;
    p.finish(&format!("transport '{name}'"))
        .map_err(UserBuildError::Params)?;
    Ok(FlowEndpoints {
        source: AnyEndpoint::User(u.source),
        sink: AnyEndpoint::User(u.sink),
        reliable: u.reliable,
        payload: PayloadPorts::default(),
    })
}

/// Names an [`AnyEndpoint`] `match` over every variant, each arm binding the endpoint to
/// `$e` (a `&mut Box<_>` or `&Box<_>`) and evaluating `$body`.
macro_rules! each_endpoint {
    ($self:expr, [$($variant:ident)*], $e:ident => $body:expr) => {
        match $self {
            $(AnyEndpoint::$variant($e) => $body,)*
            AnyEndpoint::User($e) => $body,
        }
    };
}

/// Writes [`TransportSpec`] and [`AnyEndpoint`] from the list in `builtin.rs`: a spec
/// variant per transport, a boxed endpoint variant per end, and the `match`es over them.
macro_rules! define_transports {
    ($($variant:ident: $transport:ty => $src:ident, $sink:ident
        $(, packet $kind:ident($header:ty))?;)*) => {
        /// Names that select a built-in transport.
        pub const BUILTIN: &[&str] = &[$(<$transport as Transport>::NAME),*];

        /// The built-in transports the UDP driver carries: (HELLO transport byte, name).
        pub const WIRE_CODES: &[(Option<u8>, &str)] =
            &[$((<$transport as WireTransport>::WIRE_CODE, <$transport as Transport>::NAME)),*];
        /// Each built-in transport's name and the columns its ends publish: flows
        /// table, then `flow_series` ([`Transport::flow_columns`]).
        pub fn builtin_columns() -> Vec<(&'static str, Vec<ColumnDef>, Vec<ColumnDef>)> {
            vec![$((
                <$transport as Transport>::NAME,
                <$transport as Transport>::flow_columns(),
                <$transport as Transport>::series_columns(),
            )),*]
        }

        /// A flow's transport and its settings.
        #[derive(Clone, Debug)]
        pub enum TransportSpec {
            $($variant(<$transport as Transport>::Spec),)*
            /// A transport registered with [`register`].
            User {
                name: String,
                params: CcParams,
            },
        }

        impl TransportSpec {
            /// The name scenarios use for it.
            pub fn name(&self) -> &str {
                match self {
                    $(TransportSpec::$variant(_) => <$transport as Transport>::NAME,)*
                    TransportSpec::User { name, .. } => name,
                }
            }

            /// How the UDP driver carries it (see [`WireTransport::wire`]; a registered
            /// transport's packets as OPAQUE, `opaque_wire.rs`).
            pub fn wire(&self) -> Option<WireFlow> {
                match self {
                    $(TransportSpec::$variant(s) => <$transport as WireTransport>::wire(s),)*
                    TransportSpec::User { .. } => Some(crate::opaque_wire::registered_flow()),
                }
            }

            /// The HELLO's transport byte (see [`WireTransport::WIRE_CODE`]; a registered
            /// transport's is `opaque_wire::REGISTERED_CODE`, its table names it).
            pub fn wire_code(&self) -> Option<u8> {
                match self {
                    $(TransportSpec::$variant(_) => <$transport as WireTransport>::WIRE_CODE,)*
                    TransportSpec::User { .. } => Some(crate::opaque_wire::REGISTERED_CODE),
                }
            }

            /// See [`WireTransport::set_wire_payload`].
            pub fn set_wire_payload(&mut self, payload: u32) {
                match self {
                    $(TransportSpec::$variant(s) =>
                        <$transport as WireTransport>::set_wire_payload(s, payload),)*
                    TransportSpec::User { .. } => {}
                }
            }

            /// The congestion controller, for transports that have one.
            pub fn cc(&self) -> Option<&str> {
                match self {
                    $(TransportSpec::$variant(s) => <$transport as Transport>::cc(s),)*
                    TransportSpec::User { .. } => None,
                }
            }

            /// Reads the flow table of built-in transport `name` with its
            /// [`Transport::parse`]; `None` when no built-in has the name.
            pub fn parse_builtin(
                name: &str,
                flow: &FlowKeys<'_>,
            ) -> Option<Result<TransportSpec, KeyError>> {
                $(if name == <$transport as Transport>::NAME {
                    return Some(<$transport as Transport>::parse(flow).map(TransportSpec::$variant));
                })*
                None
            }

            /// The largest packet a flow of transport `name` sends, from its table as
            /// written ([`Transport::largest_packet`]; a registered transport's by its
            /// `mtu`).
            pub fn largest_packet(name: &str, table: &toml::Table) -> u64 {
                $(if name == <$transport as Transport>::NAME {
                    return <$transport as Transport>::largest_packet(table);
                })*
                crate::flow_keys::mtu_packet(table)
            }

            /// The built-in's two ends and whether it is reliable; `None` for a
            /// registered transport.
            fn build_builtin(
                &self,
                ctx: FlowContext,
            ) -> Option<Result<(AnyEndpoint, AnyEndpoint, bool), String>> {
                Some(match self {
                    $(TransportSpec::$variant(s) => <$transport as Transport>::build(s, ctx)
                        .map(|(source, sink)| (
                            AnyEndpoint::$src(Box::new(source)),
                            AnyEndpoint::$sink(Box::new(sink)),
                            <$transport as Transport>::RELIABLE,
                        )),)*
                    TransportSpec::User { .. } => return None,
                })
            }
        }

        /// An endpoint of any transport: built-ins by variant, registered ones boxed.
        ///
        /// Every built-in is boxed too: the enum is as large as its largest inline
        /// variant and a flow holds two, so with the TCP receiver (312 bytes) inline a
        /// TCP flow's sender slot cost 320 bytes for an 8-byte pointer. Boxed, both slots
        /// are 24 bytes.
        pub enum AnyEndpoint {
            $(
                $src(Box<<$transport as Transport>::Source>),
                $sink(Box<<$transport as Transport>::Sink>),
            )*
            User(Box<dyn Endpoint + Send>),
        }

        impl std::fmt::Debug for AnyEndpoint {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let kind = match self {
                    $(
                        AnyEndpoint::$src(_) => stringify!($src),
                        AnyEndpoint::$sink(_) => stringify!($sink),
                    )*
                    AnyEndpoint::User(_) => "User",
                };
                write!(f, "AnyEndpoint::{kind}")
            }
        }

        /// The `match`es of [`Endpoint`] for [`AnyEndpoint`] (its impl below picks which
        /// arms the per-packet path keeps inline).
        impl AnyEndpoint {
            /// [`Endpoint::handle_packet`] for the endpoints not handled inline, out of
            /// line: some of them, inlined into the dispatch, made it save registers for
            /// every packet (TCP's included, which only jump on to their handler).
            #[inline(never)]
            fn handle_other_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::handle_packet(e, now, pkt))
            }

            /// [`Endpoint::poll_transmit`] for the endpoints not handled inline, out of
            /// line (see [`handle_other_packet`](Self::handle_other_packet)).
            #[inline(never)]
            fn poll_other_transmit(&mut self, now: Time) -> Option<Packet> {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::poll_transmit(e, now))
            }

            #[inline]
            fn each_handle_timeout(&mut self, now: Time) {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::handle_timeout(e, now))
            }

            #[inline]
            fn each_poll_timeout(&self) -> Option<Time> {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::poll_timeout(e))
            }

            fn each_start(&mut self, now: Time) {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::start(e, now))
            }

            fn each_stop(&mut self, now: Time) {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::stop(e, now))
            }

            fn each_progress(&self) -> Progress {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::progress(e))
            }

            fn each_sample(&self, out: &mut dyn Metrics) {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::sample(e, out))
            }

            fn each_summary(&self, out: &mut dyn Metrics) {
                each_endpoint!(self, [$($src $sink)*], e => Endpoint::summary(e, out))
            }
        }
    };
}

builtin_transports!(define_transports);

/// A flow's endpoints, ready to run.
pub struct FlowEndpoints {
    pub source: AnyEndpoint,
    pub sink: AnyEndpoint,
    pub reliable: bool,
    /// The payload ports the ends were built with (the driver keeps the ones it serves).
    pub payload: PayloadPorts,
}

impl TransportSpec {
    /// The stack profile a TCP flow was configured with (`stack = "linux"`), or
    /// `"tcplab"` for tcplab's own defaults.
    pub fn stack(&self) -> Option<&str> {
        match self {
            TransportSpec::Tcp(t) => Some(t.stack.as_deref().unwrap_or("tcplab")),
            _ => None,
        }
    }

    /// Builds the endpoints of one run of the flow.
    pub fn build(&self, ctx: FlowContext) -> Result<FlowEndpoints, String> {
        let payload = ctx.payload.clone();
        let mut ends = match self {
            TransportSpec::User { name, params } => build_user(name, params, ctx)?,
            builtin => {
                let (source, sink, reliable) = builtin
                    .build_builtin(ctx)
                    .expect("every transport but a registered one is a built-in")?;
                FlowEndpoints {
                    source,
                    sink,
                    reliable,
                    payload: PayloadPorts::default(),
                }
            }
        };
        ends.payload = payload;
        Ok(ends)
    }
}

impl AnyEndpoint {
    /// `progress().finished_at`, for a driver that asks after every event of a source
    /// whether it finished: for the TCP sender, the one field without the dispatched
    /// call that builds the whole [`Progress`].
    #[inline]
    pub fn finished_at(&self) -> Option<Time> {
        match self {
            AnyEndpoint::TcpSender(e) => Endpoint::progress(&**e).finished_at,
            other => other.progress().finished_at,
        }
    }
}

/// TCP's two endpoints and the datagram sink (the WLAN benchmarks' receiver) handle
/// packets inline; the others go through the out-of-line `handle_other_packet` (the sink
/// through it cost W1 3 % more instructions). The datagram source transmits inline too.
impl Endpoint for AnyEndpoint {
    #[inline]
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match self {
            AnyEndpoint::TcpSender(e) => Endpoint::handle_packet(e, now, pkt),
            AnyEndpoint::TcpReceiver(e) => Endpoint::handle_packet(e, now, pkt),
            AnyEndpoint::DatagramSink(e) => Endpoint::handle_packet(e, now, pkt),
            _ => self.handle_other_packet(now, pkt),
        }
    }
    #[inline]
    fn handle_timeout(&mut self, now: Time) {
        self.each_handle_timeout(now)
    }
    /// Always inlined: a driver's loop polls after every packet, and out of line the
    /// packet came back through memory (B1: 0.1 M more instructions, 0.7 %).
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self {
            AnyEndpoint::TcpSender(e) => Endpoint::poll_transmit(e, now),
            AnyEndpoint::TcpReceiver(e) => Endpoint::poll_transmit(e, now),
            AnyEndpoint::DatagramSource(e) => Endpoint::poll_transmit(e, now),
            _ => self.poll_other_transmit(now),
        }
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        self.each_poll_timeout()
    }
    fn start(&mut self, now: Time) {
        self.each_start(now)
    }
    fn stop(&mut self, now: Time) {
        self.each_stop(now)
    }
    fn progress(&self) -> Progress {
        self.each_progress()
    }
    fn sample(&self, out: &mut dyn Metrics) {
        self.each_sample(out)
    }
    fn summary(&self, out: &mut dyn Metrics) {
        self.each_summary(out)
    }
}

#[cfg(test)]
mod endpoint_size {
    #[test]
    fn an_endpoint_slot_is_a_pointer() {
        // A flow holds two; 320 bytes each with the TCP receiver inline.
        assert!(std::mem::size_of::<super::AnyEndpoint>() <= 24);
    }
}

#[cfg(test)]
mod finished_at {
    use super::*;
    use crate::tcp::{ReceiverConfig, SenderConfig, TcpSpec};
    use tcplab_core::{Dur, Rng};

    /// A 20 KB TCP transfer in lock step: at every step each end's `finished_at` is its
    /// progress's, `None` until the last byte is acknowledged, then the time it was.
    #[test]
    fn every_end_answers_as_its_progress() {
        let bytes = 20_000;
        let spec = TransportSpec::Tcp(TcpSpec {
            cc: "newreno".into(),
            cc_params: CcParams::default(),
            sender: SenderConfig {
                total_bytes: Some(bytes),
                ..SenderConfig::default()
            },
            receiver: ReceiverConfig::default(),
            stack: None,
        });
        let ends = spec
            .build(FlowContext {
                flow: 0,
                bytes: Some(bytes),
                source_rng: Rng::named(1, "source"),
                sink_rng: Rng::named(1, "sink"),
                payload: PayloadPorts::default(),
            })
            .unwrap();
        let (mut src, mut sink) = (ends.source, ends.sink);
        assert!(matches!(src, AnyEndpoint::TcpSender(_)));
        let mut now = Time::ZERO;
        src.start(now);
        sink.start(now);
        let mut unfinished_steps = 0;
        while src.finished_at().is_none() {
            assert!(unfinished_steps < 10_000, "the transfer finishes");
            now += Dur::from_millis(1);
            for end in [&mut src, &mut sink] {
                if end.poll_timeout().is_some_and(|t| t <= now) {
                    end.handle_timeout(now);
                }
            }
            while let Some(p) = src.poll_transmit(now) {
                sink.handle_packet(now, &p).unwrap();
            }
            while let Some(p) = sink.poll_transmit(now) {
                src.handle_packet(now, &p).unwrap();
            }
            for end in [&src, &sink] {
                assert_eq!(end.finished_at(), end.progress().finished_at);
            }
            unfinished_steps += 1;
        }
        assert!(unfinished_steps > 1);
        assert_eq!(src.finished_at(), Some(now));
    }
}
