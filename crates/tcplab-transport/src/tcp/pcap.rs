//! A TCP segment in a capture.
//!
//! Sequence and acknowledgement numbers are the model's byte offsets modulo 2^32; every
//! segment has ACK set (the model's data segments acknowledge nothing, so their
//! acknowledgement number is the sink's constant sequence number, 0), FIN marks the last
//! data segment; the timestamp option (two NOPs, kind 8; RFC 7323) when the flow uses
//! timestamps, then SACK blocks as a SACK option (two NOPs, kind 5). The sink's window is
//! its advertised receive window in units of 2^[`WINDOW_SHIFT`] bytes, rounded up (so a
//! non-zero window never reads as zero); the source advertises no window in the model and
//! is given 65535.

use super::Segment;
use crate::pcap::{ipv4_ecn, pseudo, Endpoints, Wire, IP_HEADER, TCP};

/// Window scale assumed for the sink's window field (RFC 7323 shift count). No SYN is
/// simulated, so Wireshark must be told: `-o tcp.default_window_scaling:11`.
pub const WINDOW_SHIFT: u32 = 11;

/// SYN options (12 bytes, as the model's SYN size): NOP, NOP, SACK permitted, NOP, window
/// scale [`WINDOW_SHIFT`], NOP padding.
const SYN_OPTIONS: [u8; 12] = [1, 1, 4, 2, 1, 3, 3, WINDOW_SHIFT as u8, 1, 1, 1, 1];

/// Writes `s` as an IPv4/TCP packet.
pub(super) fn header(w: &mut Wire, s: &Segment, ends: Endpoints, from_sink: bool) {
    // A SYN carries its fixed options (the model does not size its timestamps).
    let ts = if s.ts.is_some() && !s.syn { 12 } else { 0 };
    let blocks = s.sack_blocks();
    let blocks = &blocks[..blocks.len().min(if ts > 0 { 3 } else { 4 })];
    let sack = if s.syn {
        SYN_OPTIONS.len()
    } else if blocks.is_empty() {
        0
    } else {
        4 + 8 * blocks.len()
    };
    let hlen = 20 + ts + sack;
    let seg_len = hlen as u32 + s.len;
    ipv4_ecn(w, TCP, seg_len, ends, s.ip_ecn as u8);
    let h = &mut w.bytes[IP_HEADER..IP_HEADER + hlen];
    h[0..2].copy_from_slice(&ends.src_port.to_be_bytes());
    h[2..4].copy_from_slice(&ends.dst_port.to_be_bytes());
    // A SYN takes the sequence number before the first data byte (ISN = 2^32 - 1), so the
    // data's numbers follow it as Wireshark expects.
    let seq = if s.syn { u32::MAX } else { s.seq as u32 };
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&(s.ack as u32).to_be_bytes());
    h[12] = ((hlen / 4) as u8) << 4;
    h[13] = match (s.syn, from_sink) {
        (true, false) => 0x02,       // SYN
        (true, true) => 0x12,        // SYN, ACK
        _ => 0x10 | u8::from(s.fin), // ACK, FIN
    } | if s.ece { 0x40 } else { 0 } // ECE (RFC 3168 section 6.1)
        | if s.cwr { 0x80 } else { 0 }; // CWR
    let window = if from_sink {
        window_field(s.wnd)
    } else {
        u16::MAX
    };
    h[14..16].copy_from_slice(&window.to_be_bytes());
    if s.syn {
        h[20..].copy_from_slice(&SYN_OPTIONS);
    } else {
        if let Some(t) = s.ts {
            h[20..24].copy_from_slice(&[1, 1, 8, 10]); // NOP, NOP, timestamps (RFC 7323)
            h[24..28].copy_from_slice(&t.val.to_be_bytes());
            h[28..32].copy_from_slice(&t.ecr.to_be_bytes());
        }
        let at = 20 + ts;
        if !blocks.is_empty() {
            h[at] = 1; // NOP
            h[at + 1] = 1;
            h[at + 2] = 5; // SACK (RFC 2018)
            h[at + 3] = sack as u8 - 2;
            for (i, b) in blocks.iter().enumerate() {
                let o = at + 4 + 8 * i;
                h[o..o + 4].copy_from_slice(&(b.start as u32).to_be_bytes());
                h[o + 4..o + 8].copy_from_slice(&(b.end as u32).to_be_bytes());
            }
        }
    }
    let mut c = pseudo(ends, TCP, seg_len);
    c.add(h); // the zero payload adds nothing
    h[16..18].copy_from_slice(&c.finish().to_be_bytes());
    w.prefix_len = IP_HEADER + hlen;
}

/// The 16-bit window field for `wnd` bytes under [`WINDOW_SHIFT`], rounded up, saturated.
pub fn window_field(wnd: u64) -> u16 {
    wnd.div_ceil(1 << WINDOW_SHIFT).min(u16::MAX as u64) as u16
}
