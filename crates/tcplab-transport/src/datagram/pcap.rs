//! A datagram in a capture: IPv4/UDP, its first 16 payload bytes (when it has that many)
//! carrying its sequence number and send time (big-endian `u64`s, nanoseconds), as
//! iperf's UDP header does.

use super::Datagram;
use crate::pcap::{ipv4, pseudo, Endpoints, Wire, IP_HEADER, UDP};

/// Writes `d` as an IPv4/UDP packet.
pub(super) fn header(w: &mut Wire, d: &Datagram, ends: Endpoints) {
    let udp_len = 8 + d.len;
    ipv4(w, UDP, udp_len, ends);
    let stamp = if d.len >= 16 { 16 } else { 0 };
    let h = &mut w.bytes[IP_HEADER..IP_HEADER + 8 + stamp];
    h[0..2].copy_from_slice(&ends.src_port.to_be_bytes());
    h[2..4].copy_from_slice(&ends.dst_port.to_be_bytes());
    h[4..6].copy_from_slice(&(udp_len.min(u16::MAX as u32) as u16).to_be_bytes());
    if stamp > 0 {
        h[8..16].copy_from_slice(&d.seq.to_be_bytes());
        h[16..24].copy_from_slice(&d.sent_at.as_nanos().to_be_bytes());
    }
    let mut c = pseudo(ends, UDP, udp_len);
    c.add(h);
    let sum = match c.finish() {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        x => x,
    };
    h[6..8].copy_from_slice(&sum.to_be_bytes());
    w.prefix_len = IP_HEADER + 8 + stamp;
}
