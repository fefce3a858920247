//! Flow tables: the keys every flow has (name, count, bytes, start, stop, transport,
//! the receive coalescing timers), then the transport's own keys: a built-in reads them
//! itself ([`Transport::parse`](tcplab_transport::Transport::parse), in its folder of
//! tcplab-transport), a registered transport through its `params` table.

use super::{Section, R};
use crate::scenario::FlowSpec;
use tcplab_core::{Dur, Rng};
use tcplab_transport::coded::PayloadPorts;
use tcplab_transport::flow_keys::number_params;
use tcplab_transport::transport::{self, UserBuildError};
use tcplab_transport::{FlowContext, FlowKeys, TransportSpec};
use toml::Value;

/// The longest receive interrupt coalescing timer a flow key accepts (drivers' registers
/// reach a few ms: iwlwifi's 8-bit timer in 32 µs units, 8.16 ms).
const MAX_RX_COALESCE: Dur = Dur::from_millis(100);

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
    let name = f.string("transport")?.unwrap_or(transport::DEFAULT);
    let keys = FlowKeys {
        keys: f,
        bytes,
        stack: f.stack,
    };
    // A built-in reads its own keys (`tcplab-transport`, `<transport>/keys.rs` or its
    // `params`); the names come from the one list in `builtin.rs`.
    if let Some(spec) = TransportSpec::parse_builtin(name, &keys) {
        return flows(f, first, spec?, bytes);
    }
    let params = number_params(f, "params")?;
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
    let transport = TransportSpec::User {
        name: name.to_string(),
        params,
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
