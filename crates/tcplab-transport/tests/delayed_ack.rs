//! Receiver acknowledgement policy (RFC 1122 4.2.3.2, RFC 5681 4.2) and SACK block
//! generation (RFC 2018 section 4). Segments are numbered: `seg(i)` is [i·1000, i·1000+1000).

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{AckPolicy, Receiver, SackBlock, Segment};

fn rx() -> Receiver {
    receiver(delayed(), true, None)
}

/// Feeds segment `i` at `t` and returns the ACKs due at once.
fn put(r: &mut Receiver, t: Time, i: u64) -> Vec<Segment> {
    r.handle_segment(t, &seg(i)).unwrap();
    drain_receiver(r, t)
}

fn blocks(a: &Segment) -> Vec<(u64, u64)> {
    a.sack_blocks()
        .iter()
        .map(|b: &SackBlock| (b.start / M, b.end / M))
        .collect()
}

/// RFC 5681 section 4.2 / RFC 1122 4.2.3.2: an ACK for at least every second full-sized
/// segment; the first of a pair is held.
#[test]
fn acks_every_second_full_segment() {
    let mut r = rx();
    assert!(put(&mut r, ms(0), 0).is_empty());
    assert_eq!(r.poll_timeout(), Some(ms(200)));
    let a = put(&mut r, ms(1), 1);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, 2 * M);
    assert_eq!(
        r.poll_timeout(),
        None,
        "delayed-ACK timer cancelled by the ACK"
    );
    assert!(put(&mut r, ms(2), 2).is_empty());
    assert_eq!(put(&mut r, ms(3), 3)[0].ack, 4 * M);
    assert_eq!(r.stats().acks_sent, 2);
}

/// RFC 1122 4.2.3.2 / RFC 5681 4.2: a lone segment is acknowledged when the delayed-ACK
/// timer (200 ms here, below the 500 ms limit) expires: exactly at +200 ms, not before.
#[test]
fn lone_segment_is_acked_exactly_at_200ms() {
    let mut r = rx();
    assert!(put(&mut r, ms(10), 0).is_empty());
    assert_eq!(r.poll_timeout(), Some(ms(210)));
    let just_before = Time(ms(210).as_nanos() - 1);
    r.handle_timeout(just_before);
    assert!(drain_receiver(&mut r, just_before).is_empty());
    r.handle_timeout(ms(210));
    let a = drain_receiver(&mut r, ms(210));
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, M);
    assert_eq!(r.poll_timeout(), None);
}

/// RFC 5681 section 4.2: out-of-order data is acknowledged at once (a duplicate ACK with
/// a SACK block for it), and so is a segment that fills all or part of a gap.
#[test]
fn out_of_order_and_gap_filling_segments_are_acked_at_once() {
    let mut r = rx();
    assert!(put(&mut r, ms(0), 0).is_empty());
    let a = put(&mut r, ms(1), 2);
    assert_eq!(a.len(), 1, "out of order: immediate");
    assert_eq!(a[0].ack, M);
    assert_eq!(blocks(&a[0]), vec![(2, 3)]);
    let a = put(&mut r, ms(2), 4);
    assert_eq!((a[0].ack, blocks(&a[0])), (M, vec![(4, 5), (2, 3)]));
    // Segment 1 fills the first gap only: still immediate.
    let a = put(&mut r, ms(3), 1);
    assert_eq!(a.len(), 1, "partial gap fill: immediate");
    assert_eq!((a[0].ack, blocks(&a[0])), (3 * M, vec![(4, 5)]));
    // Segment 3 fills the last gap: immediate, no SACK blocks left.
    let a = put(&mut r, ms(4), 3);
    assert_eq!(a.len(), 1, "gap filled: immediate");
    assert_eq!((a[0].ack, a[0].n_sack), (5 * M, 0));
    // A segment entirely below rcv_nxt (a spurious retransmission): immediate ACK.
    let a = put(&mut r, ms(5), 2);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, 5 * M);
    assert_eq!(r.stats().duplicate_segments, 1);
}

/// The per-packet policy acknowledges every in-order segment at once.
#[test]
fn per_packet_policy_acks_every_segment() {
    let mut r = receiver(AckPolicy::PerPacket, true, None);
    for i in 0..5 {
        let a = put(&mut r, ms(i), i);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, (i + 1) * M);
        assert_eq!(r.poll_timeout(), None);
    }
}

/// A delayed-ACK policy with `every = 3` waits for three segments.
#[test]
fn delayed_ack_every_n_is_honoured() {
    let mut r = receiver(
        AckPolicy::Delayed {
            every: 3,
            max_delay: Dur::from_millis(40),
        },
        true,
        None,
    );
    assert!(put(&mut r, ms(0), 0).is_empty());
    assert!(put(&mut r, ms(1), 1).is_empty());
    assert_eq!(
        r.poll_timeout(),
        Some(ms(40)),
        "timer from the first held segment"
    );
    assert_eq!(put(&mut r, ms(2), 2)[0].ack, 3 * M);
}

/// RFC 2018 section 4: the first SACK block holds the segment that triggered the ACK;
/// the others repeat the most recently reported blocks; at most 3 blocks (alongside
/// timestamps); no block covers data below the cumulative ACK.
#[test]
fn sack_blocks_most_recent_first_at_most_three() {
    let mut r = rx();
    put(&mut r, ms(0), 0);
    let mut last = vec![];
    for (k, i) in [2u64, 4, 6, 8].into_iter().enumerate() {
        last = put(&mut r, ms(1 + k as u64), i);
    }
    assert_eq!(
        blocks(&last[0]),
        vec![(8, 9), (6, 7), (4, 5)],
        "newest first, 3 max"
    );
    // Segment 3 joins [2,3) and [4,5): the merged block comes first.
    let a = put(&mut r, ms(10), 3);
    assert_eq!(blocks(&a[0]), vec![(2, 5), (8, 9), (6, 7)]);
    // Segment 1 advances rcv_nxt to 5: blocks below it disappear, the rest keep their order.
    let a = put(&mut r, ms(11), 1);
    assert_eq!(a[0].ack, 5 * M);
    assert_eq!(blocks(&a[0]), vec![(8, 9), (6, 7)]);
    assert!(a[0].sack_blocks().iter().all(|b| b.start > a[0].ack));
}

/// RFC 2018 section 4: "The data receiver SHOULD include as many distinct SACK blocks as
/// possible in the SACK option." Four blocks are held ([2], [4], [6], [8], received in
/// the order 8, 6, 4, 2); once the cumulative ACK swallows [2], the remaining three are
/// all reported, most recent first.
#[test]
fn sack_reports_as_many_blocks_as_fit() {
    let mut r = rx();
    put(&mut r, ms(0), 0);
    for (k, i) in [8u64, 6, 4, 2].into_iter().enumerate() {
        put(&mut r, ms(1 + k as u64), i);
    }
    let a = put(&mut r, ms(10), 1);
    assert_eq!(a[0].ack, 3 * M);
    assert_eq!(blocks(&a[0]), vec![(4, 5), (6, 7), (8, 9)]);
}
