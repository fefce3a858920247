//! A coded transport's packet in a capture, in the experimental format of registered
//! transports ([`crate::pcap::opaque`]): kind 0xC0 (symbol; words: code, start, span,
//! seed, base, payload | repair << 32) or 0xC1 (TCP-Forward ACK; words: index, cum,
//! echo).

use super::{Code, CodedPacket};
use crate::opaque::Opaque;
use crate::pcap::{opaque, Endpoints, Wire};

/// Writes `c` as an IPv4 packet of protocol 253.
pub(super) fn header(w: &mut Wire, c: &CodedPacket, ends: Endpoints) {
    opaque(w, &as_opaque(c), ends);
}

fn as_opaque(c: &CodedPacket) -> Opaque {
    let wire_len = c.wire_len();
    match c {
        CodedPacket::Symbol(s) => Opaque {
            kind: 0xC0,
            words: [
                u64::from(s.code == Code::Lt),
                u64::from(s.start),
                u64::from(s.span),
                u64::from(s.seed),
                u64::from(s.base),
                u64::from(s.payload) | u64::from(s.repair) << 32,
            ],
            wire_len,
        },
        CodedPacket::Ack(a) => Opaque {
            kind: 0xC1,
            words: [
                u64::from(a.index),
                u64::from(a.cum),
                u64::from(a.echo),
                0,
                0,
                0,
            ],
            wire_len,
        },
    }
}
