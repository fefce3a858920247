//! `send` and `receive`: run a session over a socket and report it in the simulator's
//! tables.

use super::counters::InputCounters;
use super::driver::{self, LoopStats};
use super::flow_endpoints;
use super::flow_spec::{flow_spec, with_mac, MAX_FLOW_DESC};
use super::receiver_session::ReceiverSession;
use super::sender_session::{PeerReport, SenderSession};
use super::SessionState;
use crate::emu::LatenessHistogram;
use crate::error::NetError;
use crate::sys::clock::Clock;
use crate::wire::Key;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tcplab_core::{ColumnDef, Dur, Metrics, Time, Value};
use tcplab_scenario::row_labels::{FLOW, T_S};
use tcplab_scenario::{
    goodput_bps, ConfigError, FlowOutcome, FlowSpec, Results, RunInfo, Table, Trace,
};
use tcplab_transport::series_columns::DELIVERED;
use tcplab_transport::tcp::ACKS_SENT;
use tcplab_transport::{AnyEndpoint, Endpoint, ReceiverConfig, ReceiverStats, TransportSpec};

/// The receive socket buffer a receiver asks for (bytes).
pub const RECV_BUFFER: i32 = 16 << 20;
/// Largest datagram the receive buffers take whole (IPv4's UDP maximum).
const MAX_DATAGRAM: usize = 65_507;

/// How to run a sender.
#[derive(Clone, Debug)]
pub struct SendOptions {
    pub to: SocketAddr,
    pub flow: FlowSpec,
    /// The flow's `[[flow]]` table as TOML: sent in HELLO so the receiver builds the
    /// same sink. Required for transports other than TCP ([`SendOptions::from_table`]).
    pub flow_desc: Option<String>,
    /// Stop writing after this long (for `bytes = "unlimited"` flows).
    pub duration: Option<Dur>,
    /// Flow-series sampling interval (`None`: no series).
    pub sample: Option<Dur>,
    /// Connection id; random when `None`.
    pub conn: Option<u64>,
    /// How long to wait for the receiver's answer to HELLO (and CLOSE).
    pub connect_timeout: Dur,
    /// Run the event loop at `SCHED_FIFO` priority when permitted (precise timers on a
    /// busy machine; a CPU-bound sender then holds one core).
    pub realtime: bool,
    /// Authenticate every datagram with this pre-shared key (the receiver needs it too).
    pub key: Option<Key>,
    /// Set (e.g. on Ctrl-C) to stop: the sender closes with the receiver and returns
    /// what it measured so far, marked interrupted.
    pub stop: Option<Arc<AtomicBool>>,
}

impl SendOptions {
    /// Options for the flow of one `[[flow]]` table (parsed as [`flow_spec`] does).
    pub fn from_table(
        to: SocketAddr,
        table: &toml::Table,
        source: &str,
    ) -> Result<SendOptions, ConfigError> {
        let f = flow_spec(table, source)?;
        let mut o = SendOptions::new(to, f);
        o.duration = o.flow.stop;
        o.flow_desc = Some(table.to_string());
        Ok(o)
    }

    pub fn new(to: SocketAddr, flow: FlowSpec) -> SendOptions {
        SendOptions {
            to,
            flow,
            flow_desc: None,
            duration: None,
            sample: Some(Dur::from_millis(10)),
            conn: None,
            connect_timeout: super::sender_session::CONTROL_TIMEOUT,
            realtime: false,
            key: None,
            stop: None,
        }
    }
}

/// A finished transfer, from the sender's side.
#[derive(Clone, Debug)]
pub struct SendOutcome {
    /// `flows`, `flow_series` and `cc_trace` as a simulation fills them.
    pub results: Results,
    pub counters: InputCounters,
    pub loop_stats: LoopStats,
    /// Timer wake-up lateness against the armed deadline.
    pub timer: LatenessHistogram,
    pub peer: PeerReport,
    pub wall_s: f64,
    pub datagrams_sent: u64,
    /// Stopped by `SendOptions::stop`: the tables cover the transfer up to then.
    pub interrupted: bool,
}

/// Runs the event loop on its own thread, so a real-time policy never sticks to the
/// caller's thread (e.g. Python's main thread).
fn on_driver_thread<T: Send>(realtime: bool, f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(move || {
            if realtime {
                crate::sys::sched::try_realtime(10);
            }
            f()
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

fn random_conn() -> u64 {
    let mut b = [0u8; 8];
    let n = rustix::rand::getrandom(&mut b, rustix::rand::GetRandomFlags::empty());
    let v = u64::from_ne_bytes(b);
    if n == Ok(8) && v != 0 {
        v
    } else {
        crate::sys::clock::realtime_ns() | 1
    }
}

/// Sends one flow to a `receive`r at `opts.to` from an ephemeral port.
pub fn send(opts: &SendOptions) -> Result<SendOutcome, NetError> {
    let sock = UdpSocket::bind("0.0.0.0:0").map_err(|e| NetError::io("binding a UDP socket", e))?;
    send_from(sock, opts)
}

/// Sends one flow from `sock`.
pub fn send_from(sock: UdpSocket, opts: &SendOptions) -> Result<SendOutcome, NetError> {
    let f = &match opts.key {
        Some(_) => with_mac(opts.flow.clone(), "--key")?,
        None => opts.flow.clone(),
    };
    if f.bytes.is_none() && opts.duration.is_none() {
        return Err(NetError::Protocol(
            "an unlimited flow needs a duration (--time)".into(),
        ));
    }
    let cfg_err = |why: String| {
        NetError::Config(ConfigError {
            file: String::new(),
            key: "flow.transport".into(),
            value: f.transport.name().to_string(),
            why,
        })
    };
    let clock = Clock::start();
    let epoch = crate::sys::clock::realtime_ns().saturating_sub(clock.now().0);
    let conn = opts.conn.unwrap_or_else(random_conn);
    let (shape, ends) = flow_endpoints::build(f, conn).map_err(cfg_err)?;
    let desc = match (&opts.flow_desc, &f.transport) {
        (Some(d), _) => d.clone().into_bytes(),
        (None, TransportSpec::Tcp(_)) => Vec::new(),
        (None, _) => {
            return Err(cfg_err(
                "the receiver builds a non-TCP flow from its [[flow]] table: use \
                 SendOptions::from_table"
                    .into(),
            ))
        }
    };
    if desc.len() > MAX_FLOW_DESC {
        return Err(cfg_err(format!(
            "the flow table is {} bytes of TOML; the HELLO carries at most {MAX_FLOW_DESC}",
            desc.len()
        )));
    }
    let max_dgram = (shape.mss as usize + 128).max(4096);
    let mut sess =
        SenderSession::with_endpoint(clock.now(), opts.to, conn, ends.source, shape, desc)
            .with_epoch(epoch)
            .with_control_timeout(clock.now(), opts.connect_timeout)
            .with_symbol_bytes(ends.payload.source);
    if let Some(k) = &opts.key {
        sess = sess.with_key(k.clone());
    }
    let mut series = Table::default();
    let mut trace = Trace::default();
    let mut next_sample: Option<Time> = None;
    let mut stopped = false;
    let mut timer = LatenessHistogram::default();
    let t0 = std::time::Instant::now();
    let mut tick = |s: &mut SenderSession, now: Time| -> Option<Time> {
        let start = s.started_at()?;
        let mut next = None;
        if let Some(d) = opts.duration {
            if !stopped && now >= start + d {
                s.stop(now);
                stopped = true;
            }
            if !stopped {
                next = Some(start + d);
            }
        }
        if let Some(every) = opts.sample {
            let at = next_sample.get_or_insert(start);
            if now >= *at && !s.source_complete() {
                sample(
                    s,
                    now.saturating_since(start).as_secs_f64(),
                    &mut series,
                    &mut trace,
                );
                *at = now + every;
            }
            next = Some(next.map_or(*at, |n: Time| n.min(*at)));
        }
        next
    };
    let st = on_driver_thread(opts.realtime, || {
        let stop = opts.stop.as_deref();
        driver::run(
            &sock, &mut sess, &clock, max_dgram, &mut tick, &mut timer, stop,
        )
    })?;
    let interrupted = sess.interrupted();
    if interrupted && sess.started_at().is_none() {
        return Err(NetError::Interrupted);
    }
    if let SessionState::Failed(why) = sess.state() {
        if !interrupted {
            return Err(NetError::Protocol(format!(
                "{why} (datagrams received: {})",
                sess.counters().summary()
            )));
        }
    }
    let peer = sess.report().unwrap_or_default();
    let start = sess.started_at().unwrap_or(Time::ZERO);
    let mut flows = Table::default();
    row(&mut flows, &sess, f, &peer, start, clock.now());
    Ok(SendOutcome {
        results: Results {
            info: RunInfo {
                scenario: f.name.clone(),
                end_time_s: clock.now().saturating_since(start).as_secs_f64(),
                events: st.wakeups,
                packet_hops: st.datagrams_out + st.datagrams_in,
                end_reason: "completed",
                series_stride: 1,
                ..RunInfo::default()
            },
            flows,
            flow_series: series,
            cc_trace: trace,
            ..Results::default()
        },
        counters: *sess.counters(),
        loop_stats: st,
        timer,
        peer,
        wall_s: t0.elapsed().as_secs_f64(),
        datagrams_sent: sess.datagrams_sent(),
        interrupted,
    })
}

/// One flow-series sample: what the sender publishes as a simulator endpoint (its
/// controller's variables go to the trace), then the bytes the receiver acknowledged.
fn sample(s: &SenderSession, t_s: f64, series: &mut Table, trace: &mut Trace) {
    let mut out = Sample {
        row: series.row(),
        trace,
        t_s,
    };
    out.put(&T_S, t_s.into());
    out.put(&FLOW, 0u64.into());
    s.endpoint().sample(&mut out);
    // The sender sees cumulative ACKs, not the receiver's reads: acked bytes.
    let acked = match s.endpoint() {
        AnyEndpoint::TcpSender(t) => Some(t.snapshot().acked),
        AnyEndpoint::DatagramSource(_) => None,
        _ => Some(s.acked_bytes()),
    };
    if let Some(a) = acked {
        out.put(&DELIVERED, a.into());
    }
}

/// A series row plus the trace its controller writes to.
struct Sample<'a> {
    row: tcplab_scenario::Row<'a>,
    trace: &'a mut Trace,
    t_s: f64,
}

impl Metrics for Sample<'_> {
    fn put(&mut self, column: &'static ColumnDef, v: Value<'_>) {
        self.row.put(column, v);
    }
    fn trace(&mut self, key: &'static str, v: f64) {
        self.trace.t_s.push(self.t_s);
        self.trace.flow.push(0);
        self.trace.key.push(key);
        self.trace.value.push(v);
    }
}

/// The flows row: the columns every simulated flow has, then what the sender publishes
/// as an endpoint, then the receiver's ACK count from its report.
fn row(
    flows: &mut Table,
    s: &SenderSession,
    f: &FlowSpec,
    peer: &PeerReport,
    start: Time,
    end: Time,
) {
    let snd: &AnyEndpoint = s.endpoint();
    let progress = snd.progress();
    let completed = s.source_complete();
    let done = progress.finished_at.filter(|_| completed);
    let until = done.unwrap_or(end);
    let secs = until.saturating_since(start).as_secs_f64();
    let since = |t: Time| t.saturating_since(start).as_secs_f64();
    let mut r = flows.row();
    FlowOutcome {
        bytes_written: progress.app_bytes,
        bytes_delivered: peer.delivered,
        start_s: 0.0,
        completion_s: done.map(since),
        completed,
        finished_s: progress.finished_at.map(since),
        goodput_bps: goodput_bps(peer.delivered, secs),
        ..FlowOutcome::new(0, f)
    }
    .publish(&mut r);
    snd.summary(&mut r);
    r.put(&ACKS_SENT, peer.acks_sent.into());
}

/// How to run a receiver.
#[derive(Clone, Debug)]
pub struct RecvOptions {
    /// ACK policy, SACK and receive buffer (MSS and size come from the sender).
    pub receiver: ReceiverConfig,
    /// Give up if no sender connects within this time (`None`: wait forever).
    pub listen_timeout: Option<Dur>,
    /// Give up on a sender silent this long.
    pub idle_timeout: Dur,
    /// As [`SendOptions::realtime`].
    pub realtime: bool,
    /// Accept only datagrams authenticated with this pre-shared key.
    pub key: Option<Key>,
    /// Set (e.g. on Ctrl-C) to stop at once; a sender is told with a RESET.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for RecvOptions {
    fn default() -> Self {
        RecvOptions {
            receiver: ReceiverConfig::default(),
            listen_timeout: None,
            idle_timeout: super::IDLE_TIMEOUT,
            realtime: false,
            key: None,
            stop: None,
        }
    }
}

/// A finished transfer, from the receiver's side.
#[derive(Clone, Debug)]
pub struct RecvOutcome {
    pub peer: SocketAddr,
    /// The flow's transport (its scenario name: `tcp`, `tack`, `stopwait`, ...).
    pub transport: String,
    pub conn_mss: u32,
    pub delivered: u64,
    /// Data datagrams accepted and ACK datagrams sent (every transport).
    pub data_received: u64,
    pub acks_sent: u64,
    /// Data packets that arrived with CE in their IP header's ECN field (TCP; 0 for other
    /// transports), the simulator's `ce_received`.
    pub ce_received: u64,
    /// The TCP receiver's statistics (default for other transports).
    pub stats: ReceiverStats,
    /// From the HELLO to the last byte delivered.
    pub duration_s: f64,
    pub goodput_bps: f64,
    pub counters: InputCounters,
    pub loop_stats: LoopStats,
    /// The sender was interrupted and closed early (`delivered` is what it got to send).
    pub sender_interrupted: bool,
    /// Claims released because no data followed their HELLO, and why the last refused
    /// HELLO was refused.
    pub released: u64,
    pub last_refusal: Option<String>,
}

/// Binds `listen` and receives one transfer.
pub fn receive(listen: SocketAddr, opts: &RecvOptions) -> Result<RecvOutcome, NetError> {
    let sock = UdpSocket::bind(listen).map_err(|e| NetError::io(format!("binding {listen}"), e))?;
    receive_on(sock, opts)
}

/// Receives one transfer on `sock`.
pub fn receive_on(sock: UdpSocket, opts: &RecvOptions) -> Result<RecvOutcome, NetError> {
    // A bulk receiver needs room for a window's worth of datagrams arriving back to back
    // (the kernel's default, ~200 kB, holds about 70 of them): as TCP's autotuning does,
    // ask for RECV_BUFFER; as root past rmem_max, else whatever rmem_max allows.
    if crate::probe::force_recv_buffer(&sock, RECV_BUFFER).is_err() {
        let _ = crate::probe::set_recv_buffer(&sock, RECV_BUFFER);
    }
    let clock = Clock::start();
    let listen_until = opts.listen_timeout.map(|d| clock.now() + d);
    let epoch = crate::sys::clock::realtime_ns().saturating_sub(clock.now().0);
    let mut sess = ReceiverSession::new(opts.receiver.clone(), listen_until, opts.idle_timeout)
        .with_epoch(epoch);
    if let Some(k) = &opts.key {
        sess = sess.with_key(k.clone(), random_conn());
    }
    let mut timer = LatenessHistogram::default();
    let st = on_driver_thread(opts.realtime, || {
        driver::run(
            &sock,
            &mut sess,
            &clock,
            MAX_DATAGRAM,
            &mut |_, _| None,
            &mut timer,
            opts.stop.as_deref(),
        )
    })?;
    if opts
        .stop
        .as_ref()
        .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    {
        return Err(NetError::Interrupted);
    }
    if let SessionState::Failed(why) = sess.state() {
        let why = match sess.last_refusal() {
            Some(r) => format!("{why}; the last HELLO refused: {r}"),
            None => why.clone(),
        };
        return Err(NetError::Protocol(format!(
            "{why} (datagrams received: {})",
            sess.counters().summary()
        )));
    }
    let sink = sess.sink().expect("a finished session had a sender");
    let stats = sess.receiver().map(|r| *r.stats()).unwrap_or_default();
    let delivered = sess.delivered();
    let start = sess.started_at().unwrap_or(Time::ZERO);
    let end = sink.progress().finished_at.unwrap_or_else(|| clock.now());
    let secs = end.saturating_since(start).as_secs_f64();
    Ok(RecvOutcome {
        peer: sess.peer().expect("a finished session had a sender"),
        transport: sess.transport_name().to_string(),
        conn_mss: sess.mss(),
        delivered,
        data_received: sess.data_accepted(),
        acks_sent: sess.acks_sent(),
        ce_received: sess.receiver().map_or(0, |r| r.ce_received()),
        stats,
        duration_s: secs,
        goodput_bps: if secs > 0.0 {
            delivered as f64 * 8.0 / secs
        } else {
            0.0
        },
        counters: *sess.counters(),
        loop_stats: st,
        sender_interrupted: sess.sender_interrupted(),
        released: sess.released(),
        last_refusal: sess.last_refusal().map(str::to_string),
    })
}
