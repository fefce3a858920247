//! Stop-and-wait in a capture: an IPv4 packet of protocol 253 (RFC 3692
//! experimentation) in the format of registered transports, kind 0 (data) or 1 (ACK)
//! and the sequence number as the first word.

use super::StopWaitPacket;
use crate::opaque::Opaque;
use crate::pcap::{opaque, Endpoints, Wire};
use crate::PacketKind;

pub(super) fn header(w: &mut Wire, p: &StopWaitPacket, ends: Endpoints) {
    let o = Opaque {
        kind: u16::from(p.is_ack()),
        words: [p.seq, 0, 0, 0, 0, 0],
        wire_len: p.wire_len(),
    };
    opaque(w, &o, ends);
}
