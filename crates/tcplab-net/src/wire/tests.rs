//! Round trips, golden bytes and hostile inputs for wire format v1.

use super::*;
use proptest::prelude::*;
use tcplab_transport::SackBlock;

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

fn sack() -> impl Strategy<Value = ([SackBlock; MAX_SACK], u8)> {
    proptest::collection::vec((0u64..u64::MAX - 1, 1u64..1 << 40), 0..=MAX_SACK).prop_map(|v| {
        let mut s = [SackBlock::default(); MAX_SACK];
        for (i, (start, len)) in v.iter().enumerate() {
            s[i] = SackBlock {
                start: *start,
                end: start.saturating_add(*len).max(start + 1),
            };
        }
        (s, v.len() as u8)
    })
}

fn control() -> impl Strategy<Value = Message<'static>> {
    prop_oneof![
        (any::<u64>(), 1u32.., proptest::option::of(0u64..u64::MAX))
            .prop_map(|(conn, mss, total)| Message::Hello { conn, mss, total }),
        (any::<u64>(), any::<u32>(), any::<u64>())
            .prop_map(|(conn, mss, rcv_buf)| Message::HelloAck { conn, mss, rcv_buf }),
        (any::<u64>(), any::<u64>()).prop_map(|(conn, end)| Message::Close { conn, end }),
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
            .prop_map(
                |(conn, ack, wnd, (sack, n_sack), ts, tcp_ts)| Message::Ack {
                    conn,
                    ack,
                    wnd,
                    sack,
                    n_sack,
                    ts,
                    tcp_ts,
                }
            ),
    ]
}

proptest! {
    #[test]
    fn control_messages_round_trip(m in control()) {
        let mut buf = [0u8; 256];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        // Every truncation is an error, never a panic or a different message.
        for cut in 0..n {
            prop_assert!(decode(&buf[..cut]).is_err());
        }
    }

    #[test]
    fn data_round_trips(conn: u64, seq in 0u64..u64::MAX / 2, fin: bool, retx: bool, ts in ts(),
                        tcp_ts in tcp_ts(),
                        payload in proptest::collection::vec(any::<u8>(), 1..1500)) {
        let m = Message::Data {
            conn, seq, fin, retransmission: retx, ts, tcp_ts, payload: &payload,
        };
        let mut buf = vec![0u8; 2048];
        let n = encode(&m, &mut buf).unwrap();
        prop_assert_eq!(decode(&buf[..n]), Ok(m));
        // The in-place header writer lays out the same bytes.
        let mut b2 = vec![0u8; 2048];
        let h = encode_data_header(&mut b2, conn, seq, fin, retx, ts, tcp_ts).unwrap();
        b2[h..h + payload.len()].copy_from_slice(&payload);
        prop_assert_eq!(&buf[..n], &b2[..h + payload.len()]);
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
            b[3] = 1 + b[3] % 7;
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
    let m = Message::Ack {
        conn: 0x0102_0304_0506_0708,
        ack: 2920,
        wnd: 65536,
        sack: [
            SackBlock {
                start: 4380,
                end: 5840,
            },
            SackBlock::default(),
            SackBlock::default(),
            SackBlock::default(),
        ],
        n_sack: 1,
        ts: Some(Timestamps { val: 7, ecr: 9 }),
        tcp_ts: None,
    };
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

#[test]
fn unknown_options_are_skipped_and_bad_ones_rejected() {
    let mut buf = [0u8; 128];
    let m = Message::Ack {
        conn: 1,
        ack: 0,
        wnd: 1,
        sack: [SackBlock::default(); MAX_SACK],
        n_sack: 0,
        ts: None,
        tcp_ts: None,
    };
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
    let n = encode(&Message::Close { conn: 1, end: 5 }, &mut buf).unwrap();
    let mut b = buf;
    b[2] = 2;
    assert_eq!(decode(&b[..n]), Err(WireError::UnsupportedVersion(2)));
    let mut b = buf;
    b[3] = 16;
    assert_eq!(decode(&b[..n]), Err(WireError::UnknownType(16)));
    let mut b = buf;
    b[0] = 0;
    assert!(matches!(decode(&b[..n]), Err(WireError::BadMagic(_))));
    let mut m = [SackBlock::default(); MAX_SACK];
    m[0] = SackBlock { start: 10, end: 10 };
    let n = encode(
        &Message::Ack {
            conn: 1,
            ack: 0,
            wnd: 0,
            sack: m,
            n_sack: 1,
            ts: None,
            tcp_ts: None,
        },
        &mut buf,
    )
    .unwrap();
    assert_eq!(
        decode(&buf[..n]),
        Err(WireError::Invalid("SACK block (end <= start)"))
    );
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
    let n = encode(&Message::ack_of(9, &ack, None), &mut buf).unwrap();
    assert_eq!(n, COMMON_HEADER + 16 + OPTION_HEADER + TCP_TIMESTAMP_LEN);
    assert_eq!(&buf[32..36], &[OPT_TCP_TIMESTAMP, 8, 0xde, 0xad]);
    assert_eq!(decode(&buf[..n]).unwrap().to_segment(0).unwrap().ts, stamp);
    let plain = Segment { ts: None, ..ack };
    assert_eq!(
        encode(&Message::ack_of(9, &plain, None), &mut buf).unwrap(),
        COMMON_HEADER + 16
    );
    let payload = [7u8; 10];
    let h = encode_data_header(&mut buf, 9, 0, false, false, None, stamp).unwrap();
    buf[h..h + 10].copy_from_slice(&payload);
    let seg = decode(&buf[..h + 10]).unwrap().to_segment(0).unwrap();
    assert_eq!((seg.len, seg.ts), (10, stamp));
    // A wrong length is rejected like any known option's.
    let mut bad = buf;
    bad[h - 9] = 7;
    assert!(decode(&bad[..h + 10]).is_err());
}
