//! Flow tables: the keys every flow has (name, count, bytes, start, stop, transport),
//! then the transport's own keys (`tcp.rs`, `datagram.rs`, or a registered transport's
//! `params` table).

use super::{coded, datagram, params, stack, tack, tcp};
use super::{Section, R};
use crate::scenario::FlowSpec;
use tcplab_core::{Dur, Rng};
use tcplab_transport::cc::CcParams;
use tcplab_transport::coded::PayloadPorts;
use tcplab_transport::transport::{self, UserBuildError};
use tcplab_transport::{FlowContext, ParamError, Transport, TransportSpec};
use toml::Value;

/// The longest receive interrupt coalescing timer a flow key accepts (drivers' registers
/// reach a few ms: iwlwifi's 8-bit timer in 32 µs units, 8.16 ms).
const MAX_RX_COALESCE: Dur = Dur::from_millis(100);
/// Writes `from_params` from the list of built-in transports (`tcplab-transport`'s
/// `builtin.rs`): the built-in named `name` read through
/// [`Transport::from_params`], `None` when no built-in has the name.
macro_rules! define_from_params {
    ($($variant:ident: $transport:ty => $src:ident, $sink:ident
        $(, packet $kind:ident($header:ty))?;)*) => {
        fn from_params(
            name: &str,
            params: &mut CcParams,
            bytes: Option<u64>,
        ) -> Option<Result<TransportSpec, ParamError>> {
            $(if name == <$transport as Transport>::NAME {
                return Some(
                    <$transport as Transport>::from_params(params, bytes)
                        .map(TransportSpec::$variant),
                );
            })*
            None
        }
    };
}

tcplab_transport::builtin_transports!(define_from_params);

/// Parses one [[flow]] table into `count` flows (ids from `first`); the topology fills
/// in their nodes and route. `extra_keys` are keys the topology reads itself.
pub(super) fn parse_flow(f: &Section<'_>, first: usize, extra_keys: &[&str]) -> R<Vec<FlowSpec>> {
    for k in extra_keys {
        // Keys handled by the topology; mark them used here too.
        f.used.borrow_mut().push(k.to_string());
    }
    let bytes = match f.get("bytes") {
        None => {
            return Err(f.err(
                "bytes",
                None,
                "required: a size like \"10MiB\" or \"unlimited\"",
            ));
        }
        Some(Value::String(v)) if v == "unlimited" => None,
        Some(_) => {
            let b = f.bytes("bytes")?.expect("present");
            if b == 0 {
                return Err(f.err("bytes", f.table.get("bytes"), "must be > 0"));
            }
            Some(b)
        }
    };
    let transport = match f.string("transport")?.unwrap_or("tcp") {
        "tcp" => TransportSpec::Tcp(tcp::tcp_spec(f, bytes, Some(stack::DEFAULT))?),
        "datagram" => TransportSpec::Datagram(datagram::datagram_spec(f)?),
        "tack" => TransportSpec::Tack(tack::tack_spec(f, bytes)?),
        "tcp-nc" => TransportSpec::TcpNc(Box::new(coded::nc_spec(f, bytes)?)),
        "tcp-forward" => TransportSpec::Forward(Box::new(coded::forward_spec(f, bytes)?)),
        name => {
            let mut params = params::number_params(f, "params")?;
            // A built-in configured through `params` (the ones above have their own keys).
            if let Some(spec) = from_params(name, &mut params, bytes) {
                let spec = spec.map_err(|e| param_error(f, &e))?;
                params
                    .finish(&format!("transport '{name}'"))
                    .map_err(|why| f.err("params", f.table.get("params"), why))?;
                return flows(f, first, spec, bytes);
            }
            // Build once now so an unknown name or parameter is reported against this file.
            let ctx = FlowContext {
                flow: first as u32,
                bytes,
                source_rng: Rng::from_seed(0),
                sink_rng: Rng::from_seed(0),
                payload: PayloadPorts::default(),
            };
            match transport::build_user(name, &params, ctx) {
                Ok(_) => {}
                Err(UserBuildError::UnknownName(why)) => {
                    return Err(f.err("transport", f.table.get("transport"), why))
                }
                Err(UserBuildError::Params(why)) => {
                    return Err(f.err("params", f.table.get("params"), why))
                }
            }
            TransportSpec::User {
                name: name.to_string(),
                params,
            }
        }
    };
    flows(f, first, transport, bytes)
}

/// A `[[flow]]` table's `count` flows (ids from `first`) running `transport`.
fn flows(
    f: &Section<'_>,
    first: usize,
    transport: TransportSpec,
    bytes: Option<u64>,
) -> R<Vec<FlowSpec>> {
    let start = f.duration("start")?.unwrap_or(Dur::ZERO);
    let stop = f.duration("stop")?;
    if stop.is_some_and(|st| st <= start) {
        return Err(f.err("stop", f.table.get("stop"), "must be after start"));
    }
    let mut rx_coalesce = [Dur::ZERO; 2];
    for (k, key) in ["source_rx_coalesce", "sink_rx_coalesce"]
        .iter()
        .enumerate()
    {
        if let Some(d) = f.duration(key)? {
            if d > MAX_RX_COALESCE {
                return Err(f.err(
                    key,
                    f.table.get(*key),
                    "an interrupt coalescing timer of at most 100ms",
                ));
            }
            rx_coalesce[k] = d;
        }
    }
    let count = f.uint("count", 1, 100_000)?.unwrap_or(1) as usize;
    let base_name = f.string("name")?;
    Ok((0..count)
        .map(|i| FlowSpec {
            name: match (base_name, count) {
                (Some(n), 1) => n.to_string(),
                (Some(n), _) => format!("{n}{i}"),
                (None, _) => format!("flow{}", first + i),
            },
            transport: transport.clone(),
            bytes,
            start,
            stop,
            src: 0,
            dst: 0,
            path: vec![],
            rx_coalesce,
        })
        .collect())
}

/// `e` against the key it blames: `params.<key>` for one of the transport's own keys.
fn param_error(f: &Section<'_>, e: &ParamError) -> crate::ConfigError {
    match e {
        ParamError::Invalid { key, why } => {
            let value = f.table.get("params").and_then(|p| p.get(*key));
            f.err(&format!("params.{key}"), value, why.clone())
        }
        other => f.err(other.key(), f.table.get(other.key()), other.to_string()),
    }
}
