//! A TACK packet in a capture. TACK has no standard wire format: an IPv4 header with the
//! experimental protocol number (RFC 3692) and the packet's length; the TACK header
//! itself is not encoded.

use crate::pcap::{ipv4, Endpoints, Wire, EXPERIMENTAL, IP_HEADER};

/// Writes the IPv4 header of a `wire_len`-byte TACK packet.
pub(super) fn header(w: &mut Wire, wire_len: u32, ends: Endpoints) {
    ipv4(
        w,
        EXPERIMENTAL,
        wire_len.saturating_sub(IP_HEADER as u32),
        ends,
    );
    w.prefix_len = IP_HEADER;
}
