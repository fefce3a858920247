//! Round trips, golden bytes and hostile inputs for wire format v1.

use super::*;
use proptest::prelude::*;
use tcplab_core::Time;
use tcplab_transport::coded::{Code, CodedAck, CodedPacket, Symbol};
use tcplab_transport::datagram::Datagram;
use tcplab_transport::tack::{AckKind, Gap, TackAck, TackData, TackPacket, MAX_GAPS};
use tcplab_transport::tcp::wire::{OPT_TCP_TIMESTAMP, TCP_TIMESTAMP_LEN};
use tcplab_transport::{
    opaque_wire, IpEcn, Opaque, Packet, SackBlock, Segment, IP_UDP, MAX_SACK_BLOCKS,
};

/// A TCP DATA message (as the driver sends a data segment).
fn tcp_data<'a>(
    conn: u64,
    seq: u64,
    flags: [bool; 2],
    ts: Option<Timestamps>,
    tcp_ts: Option<tcplab_transport::Timestamps>,
    payload: &'a [u8],
    len: usize,
) -> Message<'a> {
    let [fin, retransmission] = flags;
    let pkt = Packet::Tcp(Segment {
        seq,
        len: len as u32,
        fin,
        retransmission,
        ts: tcp_ts,
        ..Segment::default()
    });
    Message::Packet {
        conn,
        pkt,
        ts,
        payload,
    }
}

/// A TCP ACK message with `sack` blocks.
fn tcp_ack(
    conn: u64,
    ack: u64,
    wnd: u64,
    sack: &[SackBlock],
    ts: Option<Timestamps>,
    tcp_ts: Option<tcplab_transport::Timestamps>,
) -> Message<'static> {
    let mut seg = Segment {
        ack,
        wnd,
        ts: tcp_ts,
        n_sack: sack.len() as u8,
        ..Segment::default()
    };
    seg.sack[..sack.len()].copy_from_slice(sack);
    Message::Packet {
        conn,
        pkt: Packet::Tcp(seg),
        ts,
        payload: &[],
    }
}

fn packet(conn: u64, pkt: Packet, ts: Option<Timestamps>) -> Message<'static> {
    Message::Packet {
        conn,
        pkt,
        ts,
        payload: &[],
    }
}

/// The TCP segment a decoded message carries.
fn segment(m: Message<'_>) -> Segment {
    match m {
        Message::Packet {
            pkt: Packet::Tcp(s),
            ..
        } => s,
        other => panic!("not a TCP message: {other:?}"),
    }
}

fn ts() -> impl Strategy<Value = Option<Timestamps>> {
    proptest::option::of(
        (any::<u64>(), any::<u64>()).prop_map(|(val, ecr)| Timestamps { val, ecr }),
    )
}

fn tcp_ts() -> impl Strategy<Value = Option<tcplab_transport::Timestamps>> {
    proptest::option::of(
        (any::<u32>(), any::<u32>())
            .prop_map(|(val, ecr)| tcplab_transport::Timestamps { val, ecr }),
    )
}

/// SACK blocks as many as an endpoint's ACK holds (the wire takes up to four).
fn sack() -> impl Strategy<Value = Vec<SackBlock>> {
    proptest::collection::vec((0u64..u64::MAX - 1, 1u64..1 << 40), 0..=MAX_SACK_BLOCKS).prop_map(
        |v| {
            v.iter()
                .map(|(start, len)| SackBlock {
                    start: *start,
                    end: start.saturating_add(*len).max(start + 1),
                })
                .collect()
        },
    )
}

fn tack_ack() -> impl Strategy<Value = TackAck> {
    (
        0u8..3,
        proptest::collection::vec(any::<(u16, u16)>(), 0..=MAX_GAPS),
        any::<[u32; 7]>(),
        any::<u64>(),
        any::<[u64; 2]>(),
    )
        .prop_map(|(kind, gaps, w, base, v)| {
            let mut a = TackAck {
                kind: [AckKind::Tack, AckKind::IackLoss, AckKind::IackWindow][kind as usize],
                n_gaps: gaps.len() as u8,
                tack_seq: w[0],
                wnd: w[1],
                delivery_rate: w[2],
                rcv_nxt: v[0],
                largest: base.saturating_add(v[1] % (1 << 32)),
                base,
                covered: w[3],
                min_owd_back: w[4],
                min_owd_delay_ns: w[5],
                largest_delay_ns: w[6],
                ..TackAck::default()
            };
            for (g, (start, len)) in a.gaps.iter_mut().zip(gaps) {
                *g = Gap { start, len };
            }
            a
        })
}

/// A data-carrying message of any transport with `payload` (a header of `len` payload
/// bytes: `payload.len()`, or more with the payload written after it).
fn data_message(
    kind: u8,
    conn: u64,
    v: [u64; 5],
    flags: [bool; 2],
    payload: &[u8],
    len: usize,
) -> Message<'_> {
    let [fin, retx] = flags;
    let pkt = match kind % 5 {
        0 => {
            let tcp_ts = (v[4] % 3 != 0).then(|| tcplab_transport::Timestamps {
                val: v[3] as u32,
                ecr: v[4] as u32,
            });
            let ts = Some(Timestamps {
                val: v[1],
                ecr: v[2],
            });
            return tcp_data(conn, v[0] / 2, flags, ts, tcp_ts, payload, len);
        }
        1 => Packet::Datagram(Datagram {
            seq: v[0],
            sent_at: Time(v[1]),
            len: len as u32,
        }),
        2 => Packet::Coded(CodedPacket::Symbol(Symbol {
            flow: 0,
            code: if fin { Code::Rlnc } else { Code::Lt },
            repair: retx,
            start: (v[0] >> 33) as u32,
            span: 1 + (v[1] as u32 % 4096),
            seed: v[2] as u32,
            base: v[3] as u32,
            newest: v[4] as u32,
            entered: Time(v[1]),
            payload: len as u32,
        })),
        3 => Packet::StopWait(tcplab_transport::stopwait::StopWaitPacket {
            seq: v[0] >> 24,
            len: len as u32,
        }),
        _ => Packet::Tack(TackPacket::Data(TackData {
            flow: 0,
            len: len as u32,
            seq: v[0] / 2,
            pn: v[1],
            pn_floor: v[1].min(v[2]),
            sent_at: Time(v[3]),
            rtt_min_ns: v[4],
            fin,
            retransmission: retx,
        })),
    };
    Message::Packet {
        conn,
        pkt,
        ts: None,
        payload,
    }
}

fn control() -> impl Strategy<Value = Message<'static>> {
    prop_oneof![
        (
            any::<u64>(),
            1u32..,
            proptest::option::of(0u64..u64::MAX),
            0u8..6
        )
            .prop_map(|(conn, mss, total, t)| Message::Hello {
                conn,
                mss,
                total,
                transport: TransportCode::from_u8(t).unwrap(),
                flow: b"cc = \"bbr\"\ntransport = \"tack\"\n",
            }),
        (any::<u64>(), tack_ack(), ts()).prop_map(|(conn, ack, ts)| packet(
            conn,
            Packet::Tack(TackPacket::Ack(ack)),
            ts
        )),
        (any::<u64>(), any::<[u32; 3]>(), ts()).prop_map(|(conn, v, ts)| {
            let a = CodedAck {
                flow: 0,
                index: v[0],
                cum: v[1],
                echo: v[2],
            };
            packet(conn, Packet::Coded(CodedPacket::Ack(a)), ts)
        }),
        (any::<u64>(), any::<u64>(), ts()).prop_map(|(conn, seq, ts)| {
            let a = tcplab_transport::stopwait::StopWaitPacket {
                seq: seq.min(u64::MAX - 1),
                len: 0,
            };
            packet(conn, Packet::StopWait(a), ts)
        }),
        (
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
            proptest::option::of(any::<u64>())
        )
            .prop_map(|(conn, mss, rcv_buf, nonce)| Message::HelloAck {
                conn,
                mss,
                rcv_buf,
                nonce
            }),
        (any::<u64>(), any::<u64>(), any::<bool>()).prop_map(|(conn, end, interrupted)| {
            Message::Close {
                conn,
                end,
                interrupted,
            }
        }),
        (any::<u64>(), any::<[u64; 4]>()).prop_map(|(conn, v)| Message::CloseAck {
            conn,
            delivered: v[0],
            acks_sent: v[1],
            segments_received: v[2],
            duplicate_segments: v[3],
        }),
        (any::<u64>(), any::<u8>()).prop_map(|(conn, reason)| Message::Reset { conn, reason }),
        (
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            sack(),
            ts(),
            tcp_ts()
        )
            .prop_map(|(conn, ack, wnd, sack, ts, tcp_ts)| tcp_ack(
                conn, ack, wnd, &sack, ts, tcp_ts
            )),
    ]
}

proptest! {
    #[test]
    fn control_messages_round_trip(m in control()) {
        let mut buf = [0u8; 256];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        // Every truncation is an error, never a panic or a different message; a HELLO's
        // flow table runs to the end of the datagram, so cut there it is a shorter table
        // (which the receiver's TOML parser and shape check then refuse).
        let fixed = match m {
            Message::Hello { flow, .. } => n - flow.len(),
            _ => n,
        };
        for cut in 0..fixed {
            prop_assert!(decode(&buf[..cut]).is_err());
        }
    }

    #[test]
    fn data_round_trips(conn: u64, seq in 0u64..u64::MAX / 2, fin: bool, retx: bool, ts in ts(),
                        tcp_ts in tcp_ts(),
                        payload in proptest::collection::vec(any::<u8>(), 1..1500)) {
        let m = tcp_data(conn, seq, [fin, retx], ts, tcp_ts, &payload, payload.len());
        let mut buf = vec![0u8; 2048];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        // The in-place header writer lays out the same bytes.
        let mut b2 = vec![0u8; 2048];
        let Message::Packet { pkt, .. } = m else { unreachable!() };
        let h = encode_packet_header(&mut b2, conn, &pkt, ts).unwrap();
        b2[h..h + payload.len()].copy_from_slice(&payload);
        prop_assert_eq!(&buf[..n], &b2[..h + payload.len()]);
    }

    /// Every data-carrying message (TCP, datagram, coded symbol, stop-and-wait, TACK) round-trips, and
    /// its header encoded alone (empty payload) is the prefix the payload follows.
    #[test]
    fn data_messages_of_every_transport_round_trip(kind: u8, conn: u64, v: [u64; 5],
            flags: [bool; 2], payload in proptest::collection::vec(any::<u8>(), 1..1500)) {
        let m = data_message(kind, conn, v, flags, &payload, payload.len());
        let mut buf = vec![0u8; 2048];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        let mut h = vec![0u8; 2048];
        let hn = encode(&data_message(kind, conn, v, flags, &[], payload.len()), &mut h).unwrap();
        prop_assert_eq!(hn + payload.len(), n);
        prop_assert_eq!(&h[..hn], &buf[..hn]);
        for cut in 0..hn {
            prop_assert!(decode(&buf[..cut]).is_err());
        }
    }

    /// A registered transport's header (OPAQUE) round-trips with the zero padding its
    /// length on the wire gives, within an MTU; a cut datagram, another padding length
    /// and a zero length are refused.
    #[test]
    fn opaque_messages_round_trip(conn: u64, kind: u16, words: [u64; 6], wire_len in 1u32..) {
        let o = Opaque { kind, words, wire_len };
        let pad = vec![0u8; opaque_wire::padding(wire_len) as usize];
        let m = Message::Packet { conn, pkt: Packet::Opaque(o), ts: None, payload: &pad };
        let mut buf = vec![0u8; 2048];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(n + IP_UDP, wire_len.clamp(opaque_wire::MIN_IP_LEN, 1500) as usize);
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        for cut in 0..n {
            prop_assert!(decode(&buf[..cut]).is_err());
        }
        buf[n] = 0;
        prop_assert!(decode(&buf[..n + 1]).is_err(), "one byte of padding too many");
        buf[COMMON_HEADER + 4..COMMON_HEADER + 8].copy_from_slice(&0u32.to_be_bytes());
        prop_assert!(decode(&buf[..n]).is_err(), "length on the wire 0");
    }

    /// Arbitrary bytes: decoding never panics, and whatever decodes re-encodes to a
    /// datagram that decodes to the same message.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200),
                                   valid_prefix: bool) {
        let mut b = bytes;
        if valid_prefix && b.len() >= 4 {
            b[0..2].copy_from_slice(&MAGIC.to_be_bytes());
            b[2] = VERSION;
            b[3] = [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22][b[3] as usize % 15];
        }
        if let Ok(m) = decode(&b) {
            let mut out = vec![0u8; 512];
            let n = encode(&m, &mut out).unwrap();
            prop_assert_eq!(decode(&out[..n]), Ok(m));
        }
    }
}

#[test]
fn golden_ack_bytes() {
    // Pinned: changing the layout must change VERSION and docs/wire-format.md.
    let m = tcp_ack(
        0x0102_0304_0506_0708,
        2920,
        65536,
        &[SackBlock {
            start: 4380,
            end: 5840,
        }],
        Some(Timestamps { val: 7, ecr: 9 }),
        None,
    );
    let mut buf = [0u8; 128];
    let n = encode(&m, &mut buf).unwrap();
    let hex: String = buf[..n].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        concat!(
            "544c",
            "01",
            "04",
            "00",
            "24",
            "0000",
            "0102030405060708", // common header
            "0000000000000b68",
            "0000000000010000", // ack, window
            "01",
            "10",
            "0000000000000007",
            "0000000000000009", // timestamps
            "02",
            "10",
            "000000000000111c",
            "00000000000016d0", // one SACK block
        )
    );
}

/// ECN over the wire: CWR (DATA) and ECE (ACK) are flag bits 4 and 5, the only bytes
/// they change; the IP ECN field is the IP header's, not in the UDP payload.
#[test]
fn ecn_flags_travel_and_change_only_the_flags_byte() {
    let ts = Some(Timestamps { val: 7, ecr: 9 });
    let enc = |m: &Message<'_>| {
        let mut buf = [0u8; 256];
        let n = encode(m, &mut buf).unwrap();
        buf[..n].to_vec()
    };
    let ack = |ece| {
        let mut seg = segment(tcp_ack(5, 2920, 65536, &[], ts, None));
        seg.ece = ece;
        packet(5, Packet::Tcp(seg), ts)
    };
    let (plain, echo) = (enc(&ack(false)), enc(&ack(true)));
    assert_eq!(echo[4], 0x20);
    assert_eq!((&plain[..4], &plain[5..]), (&echo[..4], &echo[5..]));
    assert!(segment(decode(&echo).unwrap()).ece);
    assert!(!segment(decode(&plain).unwrap()).ece);
    let payload = [1u8; 100];
    let data = |cwr, ip_ecn| {
        let mut m = tcp_data(5, 1448, [false, false], ts, None, &payload, 100);
        if let Message::Packet {
            pkt: Packet::Tcp(s),
            ..
        } = &mut m
        {
            s.cwr = cwr;
            s.ip_ecn = ip_ecn;
        }
        m
    };
    let plain = enc(&data(false, IpEcn::NotEct));
    assert_eq!(
        plain,
        enc(&data(false, IpEcn::Ect0)),
        "ECT is not in the payload"
    );
    let cwr = enc(&data(true, IpEcn::Ect0));
    assert_eq!(cwr[4], 0x10);
    assert_eq!((&plain[..4], &plain[5..]), (&cwr[..4], &cwr[5..]));
    let got = segment(decode(&cwr).unwrap());
    assert!(got.cwr && !got.ece && got.ip_ecn == IpEcn::NotEct);
}

#[test]
fn unknown_options_are_skipped_and_bad_ones_rejected() {
    let mut buf = [0u8; 128];
    let m = tcp_ack(1, 0, 1, &[], None, None);
    let n = encode(&m, &mut buf).unwrap();
    // Append an unknown option (kind 99, 3 bytes) and a pad byte.
    buf[5] = 6;
    buf[n..n + 6].copy_from_slice(&[99, 3, 1, 2, 3, 0]);
    assert_eq!(decode(&buf[..n + 6]), Ok(m));
    // A timestamp option of the wrong length.
    buf[n..n + 6].copy_from_slice(&[OPT_TIMESTAMP, 4, 0, 0, 0, 0]);
    assert_eq!(
        decode(&buf[..n + 6]),
        Err(WireError::BadOption {
            kind: OPT_TIMESTAMP,
            len: 4
        })
    );
    // An option claiming more bytes than the area holds.
    buf[n..n + 6].copy_from_slice(&[99, 200, 0, 0, 0, 0]);
    assert!(matches!(
        decode(&buf[..n + 6]),
        Err(WireError::Truncated { .. })
    ));
}

#[test]
fn rejects_other_versions_types_and_backwards_sack() {
    let mut buf = [0u8; 128];
    let n = encode(
        &Message::Close {
            conn: 1,
            end: 5,
            interrupted: false,
        },
        &mut buf,
    )
    .unwrap();
    let mut b = buf;
    b[2] = 2;
    assert_eq!(decode(&b[..n]), Err(WireError::UnsupportedVersion(2)));
    let mut b = buf;
    b[3] = 9;
    assert_eq!(decode(&b[..n]), Err(WireError::UnknownType(9)));
    let mut b = buf;
    b[0] = 0;
    assert!(matches!(decode(&b[..n]), Err(WireError::BadMagic(_))));
    let m = [SackBlock { start: 10, end: 10 }];
    let n = encode(&tcp_ack(1, 0, 0, &m, None, None), &mut buf).unwrap();
    assert_eq!(
        decode(&buf[..n]),
        Err(WireError::Invalid("SACK block (end <= start)"))
    );
}

#[test]
fn golden_tack_ack_bytes() {
    // Pinned like the TCP ACK above.
    let mut ack = TackAck {
        kind: AckKind::IackLoss,
        n_gaps: 1,
        tack_seq: 3,
        wnd: 65536,
        delivery_rate: 1_250_000,
        rcv_nxt: 14_480,
        largest: 12,
        base: 2,
        covered: 11,
        min_owd_back: 1,
        min_owd_delay_ns: 500,
        largest_delay_ns: 700,
        ..TackAck::default()
    };
    ack.gaps[0] = Gap { start: 4, len: 2 };
    let m = packet(
        0x0102_0304_0506_0708,
        Packet::Tack(TackPacket::Ack(ack)),
        None,
    );
    let mut buf = [0u8; 128];
    let n = encode(&m, &mut buf).unwrap();
    let hex: String = buf[..n].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        concat!(
            "544c0112000000000102030405060708", // common header (type 18)
            "01010000",                         // kind IACK-loss, 1 gap, reserved
            "00000003",
            "00010000",
            "001312d0", // tack_seq, wnd, delivery rate
            "0000000000003890",
            "000000000000000c",
            "0000000000000002", // rcv_nxt, largest, base
            "0000000b",
            "00000001",
            "000001f4",
            "000002bc", // covered, min_owd_back, min_owd_delay, largest_delay
            "00040002", // the gap
        )
    );
}

#[test]
fn hello_carries_the_transport_and_the_flow_table() {
    let m = Message::Hello {
        conn: 5,
        mss: 1418,
        total: Some(1_000_000),
        transport: TransportCode::from_name("tack").unwrap(),
        flow: b"transport = \"tack\"",
    };
    let mut buf = [0u8; 128];
    let n = encode(&m, &mut buf).unwrap();
    assert_eq!(buf[20], 2);
    assert_eq!(decode(&buf[..n]), Ok(m));
    // An unknown transport code is a malformed field, not a panic.
    buf[20] = 99;
    assert_eq!(decode(&buf[..n]), Err(WireError::Invalid("transport code")));
}

/// The endpoint's RFC 7323 option (kind 3) survives a segment → message → bytes →
/// segment round trip in both directions; a message without it is byte-for-byte as before.
#[test]
fn tcp_timestamps_reach_the_endpoints() {
    use tcplab_transport::{Segment, Timestamps as Ts};
    let stamp = Some(Ts {
        val: 0xdead_beef,
        ecr: 42,
    });
    let ack = Segment {
        ack: 1448,
        wnd: 1 << 20,
        ts: stamp,
        ..Segment::default()
    };
    let mut buf = [0u8; 128];
    let n = encode(&packet(9, Packet::Tcp(ack), None), &mut buf).unwrap();
    assert_eq!(n, COMMON_HEADER + 16 + OPTION_HEADER + TCP_TIMESTAMP_LEN);
    assert_eq!(&buf[32..36], &[OPT_TCP_TIMESTAMP, 8, 0xde, 0xad]);
    assert_eq!(segment(decode(&buf[..n]).unwrap()).ts, stamp);
    let plain = Segment { ts: None, ..ack };
    assert_eq!(
        encode(&packet(9, Packet::Tcp(plain), None), &mut buf).unwrap(),
        COMMON_HEADER + 16
    );
    let payload = [7u8; 10];
    let data = Packet::Tcp(Segment {
        len: 10,
        ts: stamp,
        ..Segment::default()
    });
    let h = encode_packet_header(&mut buf, 9, &data, None).unwrap();
    buf[h..h + 10].copy_from_slice(&payload);
    let seg = segment(decode(&buf[..h + 10]).unwrap());
    assert_eq!((seg.len, seg.ts), (10, stamp));
    // A wrong length is rejected like any known option's.
    let mut bad = buf;
    bad[h - 9] = 7;
    assert!(decode(&bad[..h + 10]).is_err());
}

/// A transport's message types are its own: none is one of the driver's (HELLO ... RESET),
/// and each built-in the driver carries has a distinct HELLO code.
#[test]
fn transport_types_and_codes_are_distinct_from_the_drivers() {
    for t in tcplab_transport::PACKET_TYPES.iter().flat_map(|t| t.iter()) {
        assert_eq!(MessageType::from_u8(*t), None, "type {t}");
    }
    let codes: Vec<u8> = tcplab_transport::transport::WIRE_CODES
        .iter()
        .filter_map(|(c, _)| *c)
        .collect();
    for (i, c) in codes.iter().enumerate() {
        assert!(!codes[..i].contains(c), "HELLO code {c} used twice");
        let t = TransportCode::from_u8(*c).unwrap();
        assert_eq!(TransportCode::from_name(t.name()), Some(t));
    }
    assert_eq!(
        TransportCode::from_name("stopwait").map(TransportCode::code),
        Some(5)
    );
    // A registered transport's HELLO code is no built-in's.
    assert!(!codes.contains(&TransportCode::REGISTERED.code()));
    assert_eq!(TransportCode::from_u8(255), Some(TransportCode::REGISTERED));
}
