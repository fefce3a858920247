//! A scenario's `[[flow]]` as the UDP driver runs it: parsed with a scenario's keys,
//! defaults and errors, its payload per packet reduced by the driver's extra header
//! bytes so data packets keep their simulated length on the wire.

use crate::wire::TAG_LEN;
use tcplab_scenario::{parse_flow_table, ConfigError, FlowSpec};
use tcplab_transport::{ReceiverConfig, TransportSpec, DATA_HEADER_BYTES};

/// The longest flow table a HELLO carries (it stays one unfragmented datagram); a
/// receiver refuses a longer one unread.
pub const MAX_FLOW_DESC: usize = 1200;
/// IPv4 (20) + UDP (8) + tcplab's TCP data header with timestamps (42) bytes per segment.
pub const UDP_OVERHEAD: u32 = DATA_HEADER_BYTES + tcplab_transport::tcp::wire::data_extra(false);
/// A flow as the simulator would run it, from one `[[flow]]` table (the same keys,
/// defaults and errors). Its payload per packet is reduced by the UDP driver's extra
/// header bytes (the transport's `WireFlow::resize`), so each data packet is as long on
/// the wire as the simulated one with the same settings.
pub fn flow_spec(flow: &toml::Table, source: &str) -> Result<FlowSpec, ConfigError> {
    for_udp(parse_flow_table(flow, source)?, source)
}

/// The `[[flow]]` keys `tcplab recv` takes (`--set KEY=VALUE`): the TCP receiver's. The
/// rest of the flow comes with the sender's HELLO.
pub const RECEIVER_KEYS: [&str; 4] = ["ack", "ack_every", "ack_delay", "sack"];

/// The TCP receiver settings in `table` (receiver keys only, see [`RECEIVER_KEYS`]): any
/// other key is an error naming it, not a complaint about a key the receiver has no use
/// for (`bytes`).
pub fn receiver_config(table: &toml::Table, source: &str) -> Result<ReceiverConfig, ConfigError> {
    if let Some((k, v)) = table
        .iter()
        .find(|(k, _)| !RECEIVER_KEYS.contains(&k.as_str()))
    {
        return Err(ConfigError {
            file: source.into(),
            key: format!("flow.{k}"),
            value: v.to_string(),
            why: format!(
                "not a receiver key: the receiver takes {}; the sender's HELLO carries the \
                 rest of the flow (set it on the sender)",
                RECEIVER_KEYS.join(", ")
            ),
        });
    }
    let mut t = table.clone();
    t.insert("bytes".into(), "unlimited".into());
    match parse_flow_table(&t, source)?.transport {
        TransportSpec::Tcp(t) => Ok(t.receiver),
        _ => unreachable!("a flow table without `transport` is TCP"),
    }
}

/// A simulator flow adapted to the UDP driver: the payload per packet shrinks by the
/// driver's extra header bytes so data packets keep their simulated length on the wire
/// (docs/wire-format.md gives each transport's header).
pub fn for_udp(mut f: FlowSpec, source: &str) -> Result<FlowSpec, ConfigError> {
    crate::real_hosts::refuse_simulated_host_keys(&f, source)?;
    let err = |key: &str, value: String, why: String| ConfigError {
        file: source.into(),
        key: key.into(),
        value,
        why,
    };
    let name = f.transport.name().to_string();
    let Some(wire) = f.transport.wire() else {
        let carried: Vec<&str> = tcplab_transport::transport::WIRE_CODES
            .iter()
            .filter(|(c, _)| c.is_some())
            .map(|(_, n)| *n)
            .collect();
        return Err(err(
            "flow.transport",
            name,
            format!(
                "the UDP driver's wire format has no messages for this transport \
                 (it carries: {})",
                carried.join(", ")
            ),
        ));
    };
    if let Some((key, value, why)) = wire.refuse {
        return Err(err(key, value, why.into()));
    }
    if let Some(r) = wire.resize {
        if wire.mss <= r.extra {
            return Err(err(
                r.key,
                wire.mss.to_string(),
                format!(
                    "the UDP driver needs more than {} bytes per {name} packet",
                    r.extra
                ),
            ));
        }
        f.transport.set_wire_payload(wire.mss - r.extra);
    }
    Ok(f)
}

/// A flow adapted by [`for_udp`] whose datagrams also carry a MAC (a pre-shared key):
/// its payload per packet shrinks by the tag, so a datagram stays as long as without
/// one (a 1500-byte path keeps carrying it unfragmented). Both ends apply it.
pub fn with_mac(mut f: FlowSpec, source: &str) -> Result<FlowSpec, ConfigError> {
    let by = TAG_LEN as u32;
    let name = f.transport.name().to_string();
    // A transport whose payload stays as set (no `resize`) has longer datagrams.
    let Some((wire, r)) = f
        .transport
        .wire()
        .and_then(|w| Some((w.clone(), w.resize?)))
    else {
        return Ok(f);
    };
    if wire.mss <= by {
        return Err(ConfigError {
            file: source.into(),
            key: r.key.into(),
            value: wire.mss.to_string(),
            why: format!("too short for a {name} packet that also carries a {by}-byte MAC"),
        });
    }
    f.transport.set_wire_payload(wire.mss - by);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_transport::AckPolicy;

    /// The payload per packet shrinks by the bytes docs/wire-format.md's table gives,
    /// each from the transport's own `wire.rs`.
    #[test]
    fn payload_per_packet_shrinks_as_the_wire_format_says() {
        let cases = [
            ("bytes = \"1MB\"\ntimestamps = false", 30),
            ("bytes = \"1MB\"\ntimestamps = true", 28),
            ("transport = \"tack\"\nbytes = \"1MB\"", 32),
            ("transport = \"tcp-nc\"\nbytes = \"1MB\"", 16),
            ("transport = \"tcp-forward\"\nbytes = \"1MB\"", 32),
            (
                "transport = \"datagram\"\nrate = \"1Mbps\"\nbytes = \"1MB\"",
                32,
            ),
            ("transport = \"stopwait\"\nbytes = \"1MB\"", 0),
        ];
        for (text, shrink) in cases {
            let f = parse_flow_table(&text.parse().unwrap(), "t.toml").unwrap();
            let before = f.transport.wire().unwrap().mss;
            let after = for_udp(f, "t.toml").unwrap().transport.wire().unwrap().mss;
            assert_eq!(before - after, shrink, "{text}");
        }
    }

    #[test]
    fn the_receiver_takes_its_own_keys_and_names_any_other() {
        let r = receiver_config(&"ack_every = 1\nsack = false".parse().unwrap(), "recv").unwrap();
        assert!(matches!(r.ack_policy, AckPolicy::Delayed { every: 1, .. }));
        assert!(!r.sack);
        // `tcplab recv --set cc=cubic` complained that `bytes` was required.
        let e = receiver_config(&"cc = \"cubic\"".parse().unwrap(), "recv").unwrap_err();
        let text = e.to_string();
        assert!(
            e.key == "flow.cc" && text.contains("not a receiver key") && !text.contains("bytes"),
            "{text}"
        );
        // A receiver key's bad value is named as the simulator names it.
        let e = receiver_config(&"ack = \"never\"".parse().unwrap(), "recv").unwrap_err();
        assert_eq!(e.key, "flow.ack", "{e}");
    }
}
