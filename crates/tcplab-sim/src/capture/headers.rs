//! One simulated packet as IPv4 bytes: real IPv4/TCP/UDP headers, checksums included.
//!
//! The model carries no payload, so payload bytes are zeros, except that a datagram's
//! first 16 payload bytes (when it has that many) carry its sequence number and send time
//! (big-endian `u64`s, nanoseconds), as iperf's UDP header does. Only the headers and that
//! prefix are written out here; the zeros after them are implied (see [`Wire`]), and the
//! checksums cover the whole packet as it would be on the wire.
//!
//! TCP segments: sequence and acknowledgement numbers are the model's byte offsets modulo
//! 2^32; every segment has ACK set (the model's data segments acknowledge nothing, so
//! their acknowledgement number is the sink's constant sequence number, 0), FIN marks the
//! last data segment; the timestamp option (two NOPs, kind 8; RFC 7323) when the flow uses
//! timestamps, then SACK blocks as a SACK option (two NOPs, kind 5). The sink's window is its advertised
//! receive window in units of 2^[`WINDOW_SHIFT`] bytes, rounded up (so a non-zero window
//! never reads as zero); the source advertises no window in the model and is given
//! 65535. Registered transports' packets are IPv4 protocol 253 (RFC 3692 experimentation)
//! carrying their kind and six header words; so are the coded transports' symbols and
//! ACKs (kinds 0xC0 and 0xC1, see [`coded`]).

use super::addresses::Endpoints;
use super::checksum::Checksum;
use tcplab_transport::coded::{Code, CodedPacket};
use tcplab_transport::datagram::Datagram;
use tcplab_transport::tcp::{IpEcn, Segment};
use tcplab_transport::{Opaque, Packet};

/// Window scale assumed for the sink's window field (RFC 7323 shift count). No SYN is
/// simulated, so Wireshark must be told: `-o tcp.default_window_scaling:11`.
pub const WINDOW_SHIFT: u32 = 11;

/// IPv4 protocol numbers.
const TCP: u8 = 6;
const UDP: u8 = 17;
/// RFC 3692: for experimentation and testing.
const EXPERIMENTAL: u8 = 253;

const IP_HEADER: usize = 20;
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

impl Wire {
    /// The written prefix.
    pub fn prefix(&self) -> &[u8] {
        &self.bytes[..self.prefix_len]
    }
}

/// Encodes `pkt`, sent from `ends.src_*` to `ends.dst_*`; `from_sink`: it travels from
/// the flow's sink towards its source.
pub fn encode(pkt: &Packet, ends: Endpoints, from_sink: bool) -> Wire {
    let mut w = Wire {
        bytes: [0; MAX_PREFIX],
        prefix_len: 0,
        len: 0,
    };
    match pkt {
        Packet::Tcp(s) => tcp(&mut w, s, ends, from_sink),
        Packet::Datagram(d) => udp(&mut w, d, ends),
        Packet::Opaque(o) => opaque(&mut w, o, ends),
        Packet::Tack(t) => tack(&mut w, t.wire_len(), ends),
        Packet::Coded(c) => opaque(&mut w, &coded(c), ends),
    }
    w
}

/// TACK has no standard wire format: an IPv4 header with the experimental protocol
/// number and the packet's length; the TACK header itself is not encoded.
fn tack(w: &mut Wire, wire_len: u32, ends: Endpoints) {
    ipv4(
        w,
        EXPERIMENTAL,
        wire_len.saturating_sub(IP_HEADER as u32),
        ends,
    );
    w.prefix_len = IP_HEADER;
}

/// A coded transport's packet in the experimental format of registered transports: kind
/// 0xC0 (symbol; words: code, start, span, seed, base, payload | repair << 32) or 0xC1
/// (TCP-Forward ACK; words: index, cum, echo).
fn coded(c: &CodedPacket) -> Opaque {
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

/// Writes the IPv4 header for a `payload`-byte (transport header included) packet.
fn ipv4(w: &mut Wire, proto: u8, payload: u32, ends: Endpoints) {
    ipv4_ecn(w, proto, payload, ends, IpEcn::NotEct);
}

/// [`ipv4`] with the ECN field `ecn` (the low two bits of the former TOS byte, RFC 3168
/// section 5).
fn ipv4_ecn(w: &mut Wire, proto: u8, payload: u32, ends: Endpoints, ecn: IpEcn) {
    let total = (IP_HEADER as u32 + payload).min(u16::MAX as u32);
    w.len = total;
    let h = &mut w.bytes[..IP_HEADER];
    h[0] = 0x45; // version 4, 5 words
    h[1] = ecn as u8; // DSCP 0
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
fn pseudo(ends: Endpoints, proto: u8, len: u32) -> Checksum {
    let mut c = Checksum::default();
    c.add(&ends.src_ip);
    c.add(&ends.dst_ip);
    c.add_u16(u16::from(proto));
    c.add_u16(len.min(u16::MAX as u32) as u16);
    c
}

/// SYN options (12 bytes, as the model's SYN size): NOP, NOP, SACK permitted, NOP, window
/// scale [`WINDOW_SHIFT`], NOP padding.
const SYN_OPTIONS: [u8; 12] = [1, 1, 4, 2, 1, 3, 3, WINDOW_SHIFT as u8, 1, 1, 1, 1];

fn tcp(w: &mut Wire, s: &Segment, ends: Endpoints, from_sink: bool) {
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
    ipv4_ecn(w, TCP, seg_len, ends, s.ip_ecn);
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

fn udp(w: &mut Wire, d: &Datagram, ends: Endpoints) {
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

fn opaque(w: &mut Wire, o: &Opaque, ends: Endpoints) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Time;
    use tcplab_transport::tcp::SackBlock;

    fn ends() -> Endpoints {
        Endpoints::of_flow(3, 0, 1)
    }

    /// Whether `bytes`, checksum field included, sum to zero (RFC 1071 verification).
    fn verifies(bytes: &[u8]) -> bool {
        let mut c = Checksum::default();
        c.add(bytes);
        c.finish() == 0
    }

    fn transport_verifies(w: &Wire, proto: u8) -> bool {
        let mut c = pseudo(ends_of(w), proto, w.len - IP_HEADER as u32);
        c.add(&w.prefix()[IP_HEADER..]);
        c.finish() == 0
    }

    fn ends_of(w: &Wire) -> Endpoints {
        let b = &w.bytes;
        Endpoints {
            src_ip: [b[12], b[13], b[14], b[15]],
            dst_ip: [b[16], b[17], b[18], b[19]],
            src_port: 0,
            dst_port: 0,
        }
    }

    #[test]
    fn data_segment_fields_and_checksums() {
        let s = Segment {
            seq: (1 << 32) + 1000,
            len: 1460,
            fin: true,
            ..Segment::default()
        };
        let w = encode(&Packet::Tcp(s), ends(), false);
        let b = w.prefix();
        assert_eq!(b.len(), 40);
        assert_eq!(w.len, s.wire_len(), "the model's wire size");
        assert_eq!(u16::from_be_bytes([b[2], b[3]]) as u32, w.len);
        assert_eq!(b[9], TCP);
        assert_eq!(&b[12..16], &[10, 0, 0, 1]);
        assert_eq!(&b[16..20], &[10, 0, 0, 2]);
        assert_eq!(u16::from_be_bytes([b[20], b[21]]), 10_003);
        assert_eq!(u16::from_be_bytes([b[22], b[23]]), 5001);
        assert_eq!(
            u32::from_be_bytes([b[24], b[25], b[26], b[27]]),
            1000,
            "mod 2^32"
        );
        assert_eq!(b[32] >> 4, 5, "data offset");
        assert_eq!(b[33], 0x11, "ACK|FIN");
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 0xffff);
        assert!(verifies(&b[..20]), "IPv4 header checksum");
        assert!(transport_verifies(&w, TCP), "TCP checksum");
    }

    /// The IP header's ECN field (RFC 3168 section 5: the TOS byte's low two bits) and
    /// TCP's ECE (0x40) and CWR (0x80) flags, checksums still valid.
    #[test]
    fn ecn_field_and_flags() {
        let data = Segment {
            seq: 1000,
            len: 1460,
            ip_ecn: IpEcn::Ect0,
            cwr: true,
            ..Segment::default()
        };
        let w = encode(&Packet::Tcp(data), ends(), false);
        let b = w.prefix();
        assert_eq!((b[1], b[33]), (0b10, 0x90), "ECT(0); ACK|CWR");
        assert!(verifies(&b[..20]) && transport_verifies(&w, TCP));
        let mut marked = Packet::Tcp(data);
        marked.set_ce();
        assert_eq!(encode(&marked, ends(), false).prefix()[1], 0b11, "CE");
        let ack = Segment {
            ack: 5000,
            ece: true,
            ..Segment::default()
        };
        let w = encode(&Packet::Tcp(ack), ends().reversed(), true);
        assert_eq!(
            (w.prefix()[1], w.prefix()[33]),
            (0, 0x50),
            "Not-ECT; ACK|ECE"
        );
        let syn = Segment {
            syn: true,
            ece: true,
            cwr: true,
            ..Segment::default()
        };
        let w = encode(&Packet::Tcp(syn), ends(), false);
        assert_eq!(w.prefix()[33], 0xc2, "an ECN-setup SYN: SYN|ECE|CWR");
    }

    #[test]
    fn ack_with_sack_blocks() {
        let mut s = Segment {
            ack: 5000,
            wnd: 64 << 20,
            n_sack: 2,
            ..Segment::default()
        };
        s.sack[0] = SackBlock {
            start: 8000,
            end: 9000,
        };
        s.sack[1] = SackBlock {
            start: 6000,
            end: 7000,
        };
        let w = encode(&Packet::Tcp(s), ends().reversed(), true);
        let b = w.prefix();
        assert_eq!(b.len(), 40 + 4 + 16);
        assert_eq!(w.len, s.wire_len(), "the model's wire size");
        assert_eq!(&b[12..16], &[10, 0, 0, 2], "from the sink's node");
        assert_eq!(u16::from_be_bytes([b[20], b[21]]), 5001);
        assert_eq!(u32::from_be_bytes([b[28], b[29], b[30], b[31]]), 5000);
        assert_eq!(b[32] >> 4, 10, "a 40-byte TCP header");
        assert_eq!(b[33], 0x10);
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 32768, "64 MiB >> 11");
        assert_eq!(&b[40..44], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes([b[44], b[45], b[46], b[47]]), 8000);
        assert_eq!(u32::from_be_bytes([b[56], b[57], b[58], b[59]]), 7000);
        assert!(verifies(&b[..20]));
        assert!(transport_verifies(&w, TCP));
    }

    /// RFC 7323 option first, then SACK: 20 + 12 + 4 + 8 bytes, as long as `wire_len`.
    #[test]
    fn timestamps_and_sack_options() {
        let mut s = Segment {
            ack: 5000,
            n_sack: 1,
            ts: Some(tcplab_transport::Timestamps {
                val: 0x0102_0304,
                ecr: 7,
            }),
            ..Segment::default()
        };
        s.sack[0] = SackBlock {
            start: 8000,
            end: 9000,
        };
        let w = encode(&Packet::Tcp(s), ends().reversed(), true);
        let b = w.prefix();
        assert_eq!(b.len(), 20 + 20 + 12 + 12);
        assert_eq!(w.len, s.wire_len());
        assert_eq!(b[32] >> 4, 11, "a 44-byte TCP header");
        assert_eq!(&b[40..44], &[1, 1, 8, 10]);
        assert_eq!(&b[44..48], &[1, 2, 3, 4]);
        assert_eq!(u32::from_be_bytes([b[48], b[49], b[50], b[51]]), 7);
        assert_eq!(&b[52..56], &[1, 1, 5, 10]);
        assert_eq!(u32::from_be_bytes([b[56], b[57], b[58], b[59]]), 8000);
        assert!(transport_verifies(&w, TCP));
    }

    #[test]
    fn window_rounds_up_and_saturates() {
        assert_eq!(window_field(0), 0);
        assert_eq!(window_field(1), 1);
        assert_eq!(window_field(2048), 1);
        assert_eq!(window_field(2049), 2);
        assert_eq!(window_field(u64::MAX), u16::MAX);
    }

    #[test]
    fn datagram_carries_seq_and_send_time() {
        let d = Datagram {
            seq: 7,
            sent_at: Time(123_456_789),
            len: 1472,
        };
        let w = encode(&Packet::Datagram(d), ends(), false);
        let b = w.prefix();
        assert_eq!(w.len, 1500);
        assert_eq!(w.len, d.wire_len());
        assert_eq!(b[9], UDP);
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 1480, "UDP length");
        assert_eq!(u64::from_be_bytes(b[28..36].try_into().unwrap()), 7);
        assert_eq!(
            u64::from_be_bytes(b[36..44].try_into().unwrap()),
            123_456_789
        );
        assert!(verifies(&b[..20]));
        assert!(transport_verifies(&w, UDP));
        // Too short for the stamp: headers only, still a valid checksum.
        let w = encode(&Packet::Datagram(Datagram { len: 5, ..d }), ends(), false);
        assert_eq!((w.prefix_len, w.len), (28, 33));
        assert!(transport_verifies(&w, UDP));
    }

    #[test]
    fn opaque_is_experimental_protocol() {
        let o = Opaque {
            kind: 2,
            words: [1, 2, 3, 4, 5, 6],
            wire_len: 100,
        };
        let w = encode(&Packet::Opaque(o), ends(), false);
        assert_eq!((w.len, w.prefix_len), (100, 70));
        assert_eq!(w.bytes[9], EXPERIMENTAL);
        assert_eq!(&w.bytes[20..22], &[0, 2]);
        assert!(verifies(&w.bytes[..20]));
        let short = encode(&Packet::Opaque(Opaque { wire_len: 30, ..o }), ends(), false);
        assert_eq!((short.len, short.prefix_len), (30, 30));
    }

    #[test]
    fn coded_symbols_and_acks_are_experimental_protocol() {
        use tcplab_transport::coded::{CodedAck, Symbol};
        let sym = Symbol {
            flow: 0,
            code: Code::Lt,
            start: 7,
            span: 16,
            seed: 0xABCD,
            base: 0,
            payload: 1456,
            repair: true,
            newest: 22,
            entered: tcplab_core::Time::ZERO,
        };
        let w = encode(&Packet::Coded(CodedPacket::Symbol(sym)), ends(), false);
        assert_eq!(w.len, 1500);
        assert_eq!(w.bytes[9], EXPERIMENTAL);
        assert_eq!(&w.bytes[20..22], &[0, 0xC0]);
        assert_eq!(w.bytes[22 + 15], 7, "start, big-endian in word 1");
        assert!(verifies(&w.bytes[..20]));
        let ack = CodedAck {
            flow: 0,
            index: 9,
            cum: 3,
            echo: 1,
        };
        let w = encode(&Packet::Coded(CodedPacket::Ack(ack)), ends(), true);
        assert_eq!(&w.bytes[20..22], &[0, 0xC1]);
        assert_eq!(w.bytes[22 + 7], 9);
    }
}
