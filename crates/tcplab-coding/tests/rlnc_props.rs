//! RLNC properties: exact recovery under random erasures, duplicates and
//! dependent symbols; rank/seen/decoded cross-checked against a from-scratch
//! Gauss–Jordan elimination of every coefficient vector received so far.

use proptest::prelude::*;
use std::collections::BTreeSet;
use tcplab_coding::gf256;
use tcplab_coding::rlnc::{
    seeded_coefficients, CoefficientsRef, RlncDecoder, RlncEncoder, RlncOutcome, RlncSymbolRef,
};
use tcplab_coding::rng::SplitMix64;

/// Reference: RREF of the received coefficient vectors (absolute columns
/// 0..width), recomputed from scratch. Returns (rank, pivot columns,
/// columns whose pivot row is a unit vector).
fn reference(rows: &[Vec<u8>], width: usize) -> (usize, BTreeSet<u32>, BTreeSet<u32>) {
    let mut m: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| {
            let mut v = r.clone();
            v.resize(width, 0);
            v
        })
        .collect();
    let mut rank = 0;
    let mut pivots = Vec::new();
    for col in 0..width {
        let Some(p) = (rank..m.len()).find(|&r| m[r][col] != 0) else {
            continue;
        };
        m.swap(rank, p);
        let inv = gf256::inv(m[rank][col]).unwrap();
        for x in m[rank].iter_mut() {
            *x = gf256::mul(*x, inv);
        }
        for r in 0..m.len() {
            if r != rank && m[r][col] != 0 {
                let f = m[r][col];
                let pivot_row = m[rank].clone();
                for (x, y) in m[r].iter_mut().zip(&pivot_row) {
                    *x ^= gf256::mul(f, *y);
                }
            }
        }
        pivots.push((col, rank));
        rank += 1;
    }
    let seen = pivots.iter().map(|&(c, _)| c as u32).collect();
    let decoded = pivots
        .iter()
        .filter(|&&(_, r)| m[r].iter().filter(|&&x| x != 0).count() == 1)
        .map(|&(c, _)| c as u32)
        .collect();
    (rank, seen, decoded)
}

/// Absolute coefficient vector of a symbol.
fn absolute_coefficients(bytes: &[u8]) -> Vec<u8> {
    let s = RlncSymbolRef::from_bytes(bytes).unwrap();
    let n = usize::from(s.window_len);
    let mut c = vec![0; n];
    match s.coefficients {
        CoefficientsRef::Seeded(seed) => seeded_coefficients(s.start, seed, &mut c),
        CoefficientsRef::Explicit(e) => c.copy_from_slice(e),
    }
    let mut abs = vec![0; s.start as usize];
    abs.extend(c);
    abs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Packets of random lengths (including 0 and 1 byte), a window that
    /// grows by pushes, random erasures, duplicates and recoded (dependent)
    /// symbols; every report is checked against the reference.
    #[test]
    fn growing_window_matches_reference(
        packet_size in 1usize..40,
        lens in proptest::collection::vec(0usize..40, 1..12),
        loss in 0.0f64..0.5,
        pattern in any::<u64>(),
    ) {
        let packets: Vec<Vec<u8>> = lens.iter().enumerate()
            .map(|(i, &l)| (0..l.min(packet_size)).map(|j| (i * 31 + j * 7) as u8).collect())
            .collect();
        let k = packets.len();
        let mut enc = RlncEncoder::new(packet_size, k).unwrap();
        let mut dec = RlncDecoder::new(packet_size, k).unwrap();
        let mut rng = SplitMix64::new(pattern);
        let mut received: Vec<Vec<u8>> = Vec::new();
        let mut buf = Vec::new();
        let mut last = Vec::new();
        let mut ever_decoded = BTreeSet::new();
        for step in 0..(40 * k as u32) {
            // Grow the window by one packet every other step.
            if step % 2 == 0 && (enc.window().end as usize) < k {
                enc.push(&packets[enc.window().end as usize]).unwrap();
            }
            enc.encode_into(step, &mut buf).unwrap();
            if f64::from(rng.next_u32()) < loss * 4_294_967_296.0 {
                continue;
            }
            // Sometimes resend the previous symbol (a duplicate).
            let dup = rng.next_u32() % 5 == 0 && !last.is_empty();
            let bytes = if dup { last.clone() } else { buf.clone() };
            let receipt = dec.receive(&bytes).unwrap();
            let (outcome, rank, seen_now) = (receipt.outcome, receipt.rank, receipt.newly_seen);
            let newly: Vec<u32> = receipt.newly_decoded.to_vec();
            received.push(absolute_coefficients(&bytes));
            let (ref_rank, ref_seen, ref_decoded) = reference(&received, k);
            prop_assert_eq!(rank, ref_rank);
            prop_assert_eq!(outcome == RlncOutcome::Innovative, seen_now.is_some());
            if dup {
                prop_assert_eq!(outcome, RlncOutcome::NonInnovative);
            }
            for i in 0..k as u32 {
                prop_assert_eq!(dec.is_seen(i), ref_seen.contains(&i), "seen {}", i);
                prop_assert_eq!(dec.is_decoded(i), ref_decoded.contains(&i), "decoded {}", i);
                if let Some(p) = dec.packet(i) {
                    prop_assert_eq!(p, &packets[i as usize][..], "packet {}", i);
                }
            }
            for i in newly {
                prop_assert!(ever_decoded.insert(i), "{} reported twice", i);
                prop_assert!(dec.is_decoded(i));
            }
            last = bytes;
            if dec.rank() == k {
                break;
            }
        }
        prop_assert_eq!(dec.rank(), k);
        prop_assert_eq!(ever_decoded.len(), k);
        prop_assert_eq!(dec.first_unseen(), k as u32);
    }

    /// TCP/NC-style stream: the sender slides its window to the receiver's
    /// first unseen packet, the receiver drops what it has delivered.
    #[test]
    fn sliding_stream_delivers_every_packet(
        packet_size in 1usize..30,
        total in 1usize..60,
        capacity in 1usize..10,
        loss in 0.0f64..0.4,
        pattern in any::<u64>(),
    ) {
        let packets: Vec<Vec<u8>> = (0..total)
            .map(|i| (0..(i * 13) % (packet_size + 1)).map(|j| (i ^ j) as u8).collect())
            .collect();
        let mut enc = RlncEncoder::new(packet_size, capacity).unwrap();
        // Seen-but-undecoded packets stay buffered below the sender's
        // window, so the receiver needs more room than the sender's window.
        let mut dec = RlncDecoder::new(packet_size, 64).unwrap();
        let mut rng = SplitMix64::new(pattern);
        let mut delivered = Vec::new();
        let mut buf = Vec::new();
        let mut next_push = 0;
        for step in 0..(100 * total as u32 + 100) {
            if delivered.len() == total {
                break;
            }
            // Sender: slide to the receiver's first unseen packet (the ACK),
            // then fill the window.
            let ack = dec.first_unseen().min(enc.window().end);
            if ack > enc.window().start {
                enc.slide_to(ack).unwrap();
            }
            while next_push < total && enc.window().len() < capacity {
                enc.push(&packets[next_push]).unwrap();
                next_push += 1;
            }
            enc.encode_into(step, &mut buf).unwrap();
            if f64::from(rng.next_u32()) < loss * 4_294_967_296.0 {
                continue;
            }
            dec.receive(&buf).unwrap();
            // Receiver: deliver in order, then drop what was delivered.
            while let Some(p) = dec.packet(delivered.len() as u32) {
                delivered.push(p.to_vec());
            }
            let lost = dec.drop_below(delivered.len() as u32);
            prop_assert_eq!(lost, 0);
        }
        prop_assert_eq!(delivered, packets);
    }
}

#[test]
fn recoded_symbols_decode_downstream() {
    // Source -> relay (partial rank) -> sink: the relay recodes what it has
    // without decoding; the sink must still recover every packet.
    let k = 12;
    let packets: Vec<Vec<u8>> = (0..k).map(|i| vec![i as u8; 20]).collect();
    let mut enc = RlncEncoder::new(20, k).unwrap();
    for p in &packets {
        enc.push(p).unwrap();
    }
    let mut relay = RlncDecoder::new(20, k).unwrap();
    let mut sink = RlncDecoder::new(20, k).unwrap();
    let mut buf = Vec::new();
    let mut seed = 0;
    while sink.rank() < k {
        if relay.rank() < k && seed % 2 == 0 {
            enc.encode_into(seed, &mut buf).unwrap();
            relay.receive(&buf).unwrap();
        }
        relay.recode_into(seed, &mut buf).unwrap();
        let r = sink.receive(&buf).unwrap();
        assert!(
            r.rank <= relay.rank(),
            "sink cannot know more than the relay"
        );
        seed += 1;
        assert!(seed < 500);
    }
    for i in 0..k as u32 {
        assert_eq!(sink.packet(i).unwrap(), &packets[i as usize][..]);
    }
}

#[test]
fn stale_symbols_are_ignored() {
    let mut enc = RlncEncoder::new(4, 4).unwrap();
    let mut dec = RlncDecoder::new(4, 4).unwrap();
    for i in 0..4u8 {
        enc.push(&[i; 4]).unwrap();
    }
    let mut old = Vec::new();
    enc.encode_into(1, &mut old).unwrap();
    let mut buf = Vec::new();
    let mut seed = 100;
    while dec.rank() < 4 {
        enc.encode_into(seed, &mut buf).unwrap();
        dec.receive(&buf).unwrap();
        seed += 1;
    }
    assert_eq!(dec.drop_decoded_prefix(), 4);
    let r = dec.receive(&old).unwrap();
    assert_eq!(r.outcome, RlncOutcome::Stale);
    assert_eq!(dec.stats().stale, 1);
}

#[test]
fn systematic_packets_decode_immediately() {
    let mut enc = RlncEncoder::new(8, 3).unwrap();
    let mut dec = RlncDecoder::new(8, 3).unwrap();
    for i in 0..3u8 {
        enc.push(&[i; 5]).unwrap();
    }
    let mut buf = Vec::new();
    enc.encode_with_coefficients_into(&[0, 7, 0], &mut buf)
        .unwrap();
    let r = dec.receive(&buf).unwrap();
    assert_eq!(r.newly_seen, Some(1));
    assert_eq!(r.newly_decoded, &[1]);
    assert_eq!(dec.packet(1).unwrap(), &[1; 5]);
    assert_eq!(dec.first_unseen(), 0);
}
