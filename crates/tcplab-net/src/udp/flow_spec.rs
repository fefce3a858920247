//! A scenario's `[[flow]]` as the UDP driver runs it: parsed with a scenario's keys,
//! defaults and errors, its payload per packet reduced by the driver's extra header
//! bytes so data packets keep their simulated length on the wire.

use crate::wire::{
    COMMON_HEADER, DATAGRAM_FIXED, DATA_HEADER_WITH_TS, OPTION_HEADER, SYMBOL_FIXED,
    TACK_DATA_FIXED, TAG_LEN, TCP_TIMESTAMP_LEN,
};
use tcplab_scenario::{parse_flow_table, ConfigError, FlowSpec};
use tcplab_transport::coded::{
    FORWARD_HEADER_BYTES, FORWARD_IP_UDP_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES,
};
use tcplab_transport::tack::TACK_DATA_HEADER_BYTES;
use tcplab_transport::{ReceiverConfig, TransportSpec, DATA_HEADER_BYTES, TS_OPTION_BYTES};

/// The longest flow table a HELLO carries (it stays one unfragmented datagram); a
/// receiver refuses a longer one unread.
pub const MAX_FLOW_DESC: usize = 1200;
/// IPv4 (20) + UDP (8) + tcplab data header with timestamps (42) bytes per segment.
pub const UDP_OVERHEAD: u32 = 28 + DATA_HEADER_WITH_TS as u32;
/// The endpoint's RFC 7323 option in a datagram (`timestamps = true`).
const TCP_TS_OPTION: u32 = (OPTION_HEADER + TCP_TIMESTAMP_LEN) as u32;
/// A flow as the simulator would run it, from one `[[flow]]` table (the same keys,
/// defaults and errors). Its MSS is reduced by the UDP driver's extra header bytes
/// (`UDP_OVERHEAD` − 40), so each data segment is as long on the wire as the simulated
/// TCP segment with the same settings.
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
    // The datagrams have no IP ECN field of the simulated segment's to carry ECT and CE.
    let tcp = match &f.transport {
        TransportSpec::Tcp(t) => Some(t),
        TransportSpec::TcpNc(t) => Some(&t.tcp),
        _ => None,
    };
    if let Some(t) = tcp.filter(|t| t.sender.ecn) {
        let (key, value) = if t.cc == "dctcp" {
            ("flow.cc", "\"dctcp\"".to_string())
        } else {
            ("flow.ecn", "true".to_string())
        };
        return Err(err(
            key,
            value,
            "ECN runs in the simulator only: the UDP driver does not carry the IP ECN \
             field (use `tcplab emulate` for ECN on real packets)"
                .into(),
        ));
    }
    // (the payload field to shrink, its key, the driver's extra bytes per packet)
    let (mss, key, extra): (&mut u32, &str, u32) = match &mut f.transport {
        // With RFC 7323 timestamps the simulated segment carries 12 option bytes and the
        // datagram the 10-byte TCP timestamp option (kind 3).
        TransportSpec::Tcp(t) if t.sender.timestamps => (
            &mut t.sender.mss,
            "flow.mss",
            UDP_OVERHEAD + TCP_TS_OPTION - DATA_HEADER_BYTES - TS_OPTION_BYTES,
        ),
        TransportSpec::Tcp(t) => (
            &mut t.sender.mss,
            "flow.mss",
            UDP_OVERHEAD - DATA_HEADER_BYTES,
        ),
        TransportSpec::Tack(t) => (&mut t.cfg.mss, "flow.mss", TACK_EXTRA),
        TransportSpec::Datagram(d) => (&mut d.payload, "flow.payload", DATAGRAM_EXTRA),
        TransportSpec::TcpNc(t) => (&mut t.tcp.sender.mss, "flow.mss", NC_EXTRA),
        TransportSpec::Forward(t) => (&mut t.mss, "flow.mss", FORWARD_EXTRA),
        // Registered transports, and built-ins without messages in the wire format.
        _ => {
            return Err(err(
                "flow.transport",
                name,
                "the UDP driver's wire format has no messages for this transport \
                 (it carries: tcp, datagram, tack, tcp-nc, tcp-forward)"
                    .into(),
            ))
        }
    };
    if *mss <= extra {
        return Err(err(
            key,
            mss.to_string(),
            format!("the UDP driver needs more than {extra} bytes per {name} packet"),
        ));
    }
    *mss -= extra;
    let m = *mss;
    // The session's own HELLO opens the connection; the endpoint's SYN exchange
    // (`handshake = true`, the scenario default) has no wire format here.
    if let TransportSpec::Tcp(t) = &mut f.transport {
        t.receiver.mss = m;
        t.sender.handshake = false;
    }
    if let TransportSpec::TcpNc(t) = &mut f.transport {
        t.tcp.receiver.mss = m;
        t.tcp.sender.handshake = false;
    }
    Ok(f)
}

/// A flow adapted by [`for_udp`] whose datagrams also carry a MAC (a pre-shared key):
/// its payload per packet shrinks by the tag, so a datagram stays as long as without
/// one (a 1500-byte path keeps carrying it unfragmented). Both ends apply it.
pub fn with_mac(mut f: FlowSpec, source: &str) -> Result<FlowSpec, ConfigError> {
    let by = TAG_LEN as u32;
    let name = f.transport.name().to_string();
    let (mss, key): (&mut u32, &str) = match &mut f.transport {
        TransportSpec::Tcp(t) => (&mut t.sender.mss, "flow.mss"),
        TransportSpec::Tack(t) => (&mut t.cfg.mss, "flow.mss"),
        TransportSpec::Datagram(d) => (&mut d.payload, "flow.payload"),
        TransportSpec::TcpNc(t) => (&mut t.tcp.sender.mss, "flow.mss"),
        TransportSpec::Forward(t) => (&mut t.mss, "flow.mss"),
        _ => return Ok(f),
    };
    if *mss <= by {
        return Err(ConfigError {
            file: source.into(),
            key: key.into(),
            value: mss.to_string(),
            why: format!("too short for a {name} packet that also carries a {by}-byte MAC"),
        });
    }
    *mss -= by;
    let m = *mss;
    match &mut f.transport {
        TransportSpec::Tcp(t) => t.receiver.mss = m,
        TransportSpec::TcpNc(t) => t.tcp.receiver.mss = m,
        _ => {}
    }
    Ok(f)
}

/// Extra bytes per data packet over the simulated headers (IPv4 + UDP + tcplab header
/// against the simulated packet's headers).
const TACK_EXTRA: u32 = 28 + (COMMON_HEADER + TACK_DATA_FIXED) as u32 - TACK_DATA_HEADER_BYTES;
const DATAGRAM_EXTRA: u32 = (COMMON_HEADER + DATAGRAM_FIXED) as u32;
const NC_EXTRA: u32 =
    28 + (COMMON_HEADER + SYMBOL_FIXED) as u32 - NC_IP_TCP_BYTES - NC_HEADER_BYTES;
const FORWARD_EXTRA: u32 =
    28 + (COMMON_HEADER + SYMBOL_FIXED) as u32 - FORWARD_IP_UDP_BYTES - FORWARD_HEADER_BYTES;

const _: () = assert!(COMMON_HEADER < DATA_HEADER_WITH_TS);

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_transport::AckPolicy;

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
