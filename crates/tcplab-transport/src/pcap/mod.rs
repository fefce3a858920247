//! One packet as IPv4 bytes for a capture: real IPv4/TCP/UDP headers, checksums included.
//!
//! The model carries no payload, so payload bytes are zeros, except where a transport
//! writes a prefix of its own (a datagram's sequence number and send time). Only the
//! headers and that prefix are written out; the zeros after them are implied (see
//! [`Wire`]), and the checksums cover the whole packet as it would be on the wire.
//!
//! This module holds what every transport's header shares (the IPv4 header, the
//! pseudo-header sum, the node and port numbering); each transport writes its own header
//! in its folder's `pcap.rs` ([`PacketKind::pcap_header`](crate::PacketKind)).
//! Registered transports' packets are IPv4 protocol 253 (RFC 3692 experimentation)
//! carrying their kind and six header words ([`opaque`]).

pub mod addresses;
mod checksum;

pub use addresses::Endpoints;
pub use checksum::Checksum;

use crate::opaque::Opaque;

/// IPv4 protocol numbers.
pub const TCP: u8 = 6;
pub const UDP: u8 = 17;
/// RFC 3692: for experimentation and testing.
pub const EXPERIMENTAL: u8 = 253;

pub const IP_HEADER: usize = 20;
/// IPv4 + the longest TCP header (60 bytes: timestamps and three SACK blocks, or four
/// SACK blocks) is the longest prefix written.
pub const MAX_PREFIX: usize = IP_HEADER + 60;

/// A packet's first bytes and its length on the wire; bytes past `prefix_len` are zeros.
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    pub bytes: [u8; MAX_PREFIX],
    pub prefix_len: usize,
    /// Length on the wire (the IPv4 total length), headers included.
    pub len: u32,
}

impl Default for Wire {
    fn default() -> Self {
        Wire {
            bytes: [0; MAX_PREFIX],
            prefix_len: 0,
            len: 0,
        }
    }
}

impl Wire {
    /// The written prefix.
    pub fn prefix(&self) -> &[u8] {
        &self.bytes[..self.prefix_len]
    }
}

/// Writes the IPv4 header for a `payload`-byte (transport header included) packet.
pub fn ipv4(w: &mut Wire, proto: u8, payload: u32, ends: Endpoints) {
    ipv4_ecn(w, proto, payload, ends, 0);
}

/// [`ipv4`] with the ECN field `ecn` (the low two bits of the former TOS byte, RFC 3168
/// section 5).
pub fn ipv4_ecn(w: &mut Wire, proto: u8, payload: u32, ends: Endpoints, ecn: u8) {
    let total = (IP_HEADER as u32 + payload).min(u16::MAX as u32);
    w.len = total;
    let h = &mut w.bytes[..IP_HEADER];
    h[0] = 0x45; // version 4, 5 words
    h[1] = ecn; // DSCP 0
    h[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    h[6] = 0x40; // don't fragment; identification 0 (RFC 6864)
    h[8] = 64; // TTL
    h[9] = proto;
    h[12..16].copy_from_slice(&ends.src_ip);
    h[16..20].copy_from_slice(&ends.dst_ip);
    let mut c = Checksum::default();
    c.add(h);
    h[10..12].copy_from_slice(&c.finish().to_be_bytes());
}

/// The TCP/UDP pseudo header's sum (RFC 9293 section 3.1).
pub fn pseudo(ends: Endpoints, proto: u8, len: u32) -> Checksum {
    let mut c = Checksum::default();
    c.add(&ends.src_ip);
    c.add(&ends.dst_ip);
    c.add_u16(u16::from(proto));
    c.add_u16(len.min(u16::MAX as u32) as u16);
    c
}

/// A registered transport's packet: protocol 253, then its kind and its six words
/// (big-endian), as far as its length reaches.
pub fn opaque(w: &mut Wire, o: &Opaque, ends: Endpoints) {
    let payload = o.wire_len.saturating_sub(IP_HEADER as u32);
    ipv4(w, EXPERIMENTAL, payload, ends);
    let mut body = [0u8; 50];
    body[0..2].copy_from_slice(&o.kind.to_be_bytes());
    for (i, word) in o.words.iter().enumerate() {
        body[2 + 8 * i..10 + 8 * i].copy_from_slice(&word.to_be_bytes());
    }
    let n = (payload as usize).min(body.len());
    w.bytes[IP_HEADER..IP_HEADER + n].copy_from_slice(&body[..n]);
    w.prefix_len = IP_HEADER + n;
}
