//! Property tests: whatever the wire does (losses in both directions, random delays and
//! hence reordering), with any recovery mode and ACK policy, the receiver delivers every
//! byte exactly once and in order, the sender completes, and no invariant trips.
//!
//! Reliability is RFC 9293's basic guarantee; the checks are: `rcv_nxt == total` at the
//! end, `rcv_nxt` never decreases, every byte below `rcv_nxt` really arrived (checked by
//! the harness independently of the receiver), the receiver's own reassembly cross-check
//! (`ReassemblyMismatch`), no data past the end (`DataBeyondEnd`), and no ACK or SACK
//! beyond what was sent (`AckBeyondSent`, `SackBeyondSent`). Losses are confined to the
//! first few hundred packets so that every case must finish.

mod common;

use common::*;
use proptest::collection::{btree_set, vec};
use proptest::prelude::*;
use std::collections::BTreeSet;
use tcplab_core::Dur;
use tcplab_transport::{AckPolicy, RecoveryMode, MAX_SACK_BLOCKS};

fn fate(drops: BTreeSet<usize>, base: u64, jitter: Vec<u64>, stride: usize) -> Fate {
    Box::new(move |i, _| {
        let j = jitter[(i * stride) % jitter.len()];
        (!drops.contains(&i)).then(|| Dur::from_micros(base * 1000 + j * 500))
    })
}

#[allow(clippy::too_many_arguments)]
fn check(
    total: u64,
    mode: RecoveryMode,
    per_packet: bool,
    rcv_sack: bool,
    data_drops: BTreeSet<usize>,
    ack_drops: BTreeSet<usize>,
    base: u64,
    jitter: Vec<u64>,
) -> Result<(), TestCaseError> {
    let policy = if per_packet {
        AckPolicy::PerPacket
    } else {
        delayed()
    };
    let sack_on = rcv_sack || mode == RecoveryMode::Sack;
    let first_drop = data_drops.first().copied();
    let mut net = Net::with_fates(
        sender(mode, Some(total)),
        receiver(policy, sack_on, Some(total)),
        fate(data_drops, base, jitter.clone(), 1),
        fate(ack_drops, base, jitter, 7),
    );
    let r = net.run(tcplab_core::Time(u64::MAX / 2), 200_000);
    prop_assert!(r.is_ok(), "invariant violated: {:?}", r);
    prop_assert!(net.snd.is_complete(), "sender did not complete");
    prop_assert_eq!(net.rcv.rcv_nxt(), total);
    prop_assert_eq!(net.rcv.out_of_order_bytes(), 0);
    prop_assert!(net.arrived.iter().all(|&b| b));
    for (_, a) in &net.acks {
        prop_assert!(a.ack <= total);
        prop_assert!(a.sack_blocks().len() <= MAX_SACK_BLOCKS);
        for b in a.sack_blocks() {
            prop_assert!(a.ack < b.start && b.start < b.end && b.end <= total);
        }
    }
    if first_drop.is_some_and(|d| d < net.sent.len()) {
        prop_assert!(
            net.snd.stats().retransmitted_segments > 0,
            "a lost packet was never resent"
        );
    }
    for (_, s) in &net.sent {
        prop_assert!(s.seq + s.len as u64 <= total);
        prop_assert_eq!(s.fin, s.seq + s.len as u64 == total);
    }
    Ok(())
}

fn mode() -> impl Strategy<Value = RecoveryMode> {
    prop_oneof![
        Just(RecoveryMode::Reno),
        Just(RecoveryMode::NewReno),
        Just(RecoveryMode::Sack)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Short transfers (1 byte to 20 segments, often not a multiple of the MSS).
    #[test]
    fn short_transfers_deliver_every_byte_once(
        total in 1u64..20_000,
        mode in mode(),
        per_packet in any::<bool>(),
        rcv_sack in any::<bool>(),
        data_drops in btree_set(0usize..60, 0..12),
        ack_drops in btree_set(0usize..60, 0..12),
        base in 1u64..80,
        jitter in vec(0u64..40, 1..12),
    ) {
        check(total, mode, per_packet, rcv_sack, data_drops, ack_drops, base, jitter)?;
    }

    /// Long transfers (up to 300 segments) with losses spread over the first 400 packets.
    #[test]
    fn long_transfers_deliver_every_byte_once(
        total in 20_000u64..300_000,
        mode in mode(),
        per_packet in any::<bool>(),
        rcv_sack in any::<bool>(),
        data_drops in btree_set(0usize..400, 0..40),
        ack_drops in btree_set(0usize..400, 0..40),
        base in 1u64..80,
        jitter in vec(0u64..40, 1..12),
    ) {
        check(total, mode, per_packet, rcv_sack, data_drops, ack_drops, base, jitter)?;
    }
}
