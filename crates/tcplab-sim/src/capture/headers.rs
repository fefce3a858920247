//! One simulated packet as IPv4 bytes: real IPv4/TCP/UDP headers, checksums included.
//!
//! Each transport writes its own header (its folder's `pcap.rs` in `tcplab-transport`,
//! through [`tcplab_transport::PacketKind::pcap_header`]); the shared IPv4 parts and the
//! conventions are in [`tcplab_transport::pcap`]. Only the headers and a short payload
//! prefix are written out; the zeros after them are implied (see [`Wire`]), and the
//! checksums cover the whole packet as it would be on the wire.

use super::addresses::Endpoints;
use tcplab_transport::Packet;

pub use tcplab_transport::pcap::{Wire, MAX_PREFIX};
pub use tcplab_transport::tcp::pcap::{window_field, WINDOW_SHIFT};

/// Encodes `pkt`, sent from `ends.src_*` to `ends.dst_*`; `from_sink`: it travels from
/// the flow's sink towards its source.
pub fn encode(pkt: &Packet, ends: Endpoints, from_sink: bool) -> Wire {
    pkt.pcap(ends, from_sink)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Time;
    use tcplab_transport::coded::{Code, CodedPacket};
    use tcplab_transport::datagram::Datagram;
    use tcplab_transport::pcap::{pseudo, Checksum, EXPERIMENTAL, IP_HEADER, TCP, UDP};
    use tcplab_transport::tcp::{IpEcn, SackBlock, Segment};
    use tcplab_transport::Opaque;

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
