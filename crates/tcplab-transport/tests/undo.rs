//! D-SACK at the receiver (RFC 2883) and undo of spurious reductions at the sender: Eifel
//! detection with timestamps (RFC 3522, RFC 4015 response after a timeout) and
//! D-SACK-based detection without (RFC 3708).

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{Receiver, RecoveryMode, SackBlock, Segment, Sender, SenderConfig};

fn rcv(timestamps: bool, dsack: bool) -> Receiver {
    let mut cfg = receiver_cfg(tcplab_transport::AckPolicy::PerPacket, true, Some(1000 * M));
    cfg.timestamps = timestamps;
    cfg.dsack = dsack;
    Receiver::new(0, cfg)
}

fn snd(recovery: RecoveryMode, timestamps: bool, undo: bool) -> Sender {
    sender_with(SenderConfig {
        timestamps,
        undo,
        min_rto: Dur::from_millis(200),
        ..sender_cfg(recovery, Some(1000 * M))
    })
}

/// Hands `segs` to the receiver at `now` and returns its ACKs.
fn deliver(r: &mut Receiver, now: Time, segs: &[Segment]) -> Vec<Segment> {
    let mut acks = vec![];
    for s in segs {
        r.handle_segment(now, s).unwrap();
        acks.extend(drain_receiver(r, now));
    }
    acks
}

/// Hands `acks` to the sender at `now` and returns what it sends.
fn ack_all(s: &mut Sender, now: Time, acks: &[Segment]) -> Vec<Segment> {
    acks.iter().flat_map(|a| feed(s, now, a)).collect()
}

/// RFC 2883: a duplicate below the cumulative ACK is the first block; a duplicate of
/// held out-of-order data comes first, followed by the block that holds it. Reported
/// once. Without `dsack` neither appears.
#[test]
fn receiver_reports_duplicates_first() {
    let mut r = rcv(false, true);
    deliver(&mut r, ms(1), &[seg(0), seg(1)]);
    let a = deliver(&mut r, ms(2), &[seg(0)]);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, 2 * M);
    assert_eq!(a[0].sack_blocks(), &[SackBlock { start: 0, end: M }]);
    let a = deliver(&mut r, ms(3), &[seg(3), seg(4), seg(3)]);
    assert_eq!(
        a[2].sack_blocks(),
        &[
            SackBlock {
                start: 3 * M,
                end: 4 * M
            },
            SackBlock {
                start: 3 * M,
                end: 5 * M
            }
        ],
        "duplicate, then the held block containing it"
    );
    let a = deliver(&mut r, ms(4), &[seg(6)]);
    assert_eq!(a[0].n_sack, 2, "the duplicate is reported once");
    assert!(a[0].sack_blocks()[0].start == 6 * M);

    let mut plain = rcv(false, false);
    deliver(&mut plain, ms(1), &[seg(0)]);
    assert_eq!(deliver(&mut plain, ms(2), &[seg(0)])[0].n_sack, 0);
}

/// Reordering: segment 0 arrives after 1..4, so three duplicate ACKs cut the window.
/// Returns the sender after the receiver has seen the original and the needless
/// retransmission and the sender has taken every ACK.
fn reordered_head(recovery: RecoveryMode, timestamps: bool, undo: bool, dsack: bool) -> Sender {
    let mut s = snd(recovery, timestamps, undo);
    let mut r = rcv(timestamps, dsack);
    let first = drain_sender(&mut s, Time::ZERO);
    assert_eq!(first.len(), 10);
    let dups = deliver(&mut r, ms(10), &first[1..5]);
    let rtx = ack_all(&mut s, ms(20), &dups);
    assert!(rtx[0].retransmission && rtx[0].seq == 0, "fast retransmit");
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(s.window().cwnd < 10 * M, "window cut");
    let mut acks = deliver(&mut r, ms(21), &first[..1]); // the late original
    acks.extend(deliver(&mut r, ms(22), &first[5..]));
    acks.extend(deliver(&mut r, ms(30), &rtx)); // the needless copy
                                                // Whatever the sender sends from here (NewReno's partial ACKs resend more) crosses the
                                                // path in turn until it is quiet.
    let mut now = ms(31);
    let mut out = ack_all(&mut s, now, &acks);
    while !out.is_empty() && now < ms(1000) {
        now += Dur::from_millis(10);
        let acks = deliver(&mut r, now, &out);
        now += Dur::from_millis(10);
        out = ack_all(&mut s, now, &acks);
    }
    s
}

/// RFC 3708: every retransmission of the episode reported by D-SACK: the reduction was
/// spurious and cwnd and ssthresh are restored (here to the initial window and slow
/// start). Without D-SACK blocks, or without undo, the cut stays.
#[test]
fn dsack_undoes_a_spurious_fast_retransmit() {
    for recovery in [RecoveryMode::Sack, RecoveryMode::NewReno] {
        let s = reordered_head(recovery, false, true, true);
        assert_eq!(s.stats().undos, 1, "{recovery:?}");
        assert!(s.window().cwnd >= 10 * M, "{recovery:?}");
        assert_eq!(s.window().ssthresh, u64::MAX, "{recovery:?}");
        assert_eq!(
            s.stats().fast_retransmits,
            1,
            "D-SACK ACKs are no duplicate ACKs"
        );
        assert!(!s.in_recovery());
        for (undo, dsack) in [(true, false), (false, true)] {
            let s = reordered_head(recovery, false, undo, dsack);
            assert_eq!(s.stats().undos, 0);
            assert!(s.window().ssthresh < 10 * M, "{recovery:?} {undo} {dsack}");
        }
    }
}

/// RFC 3522: the ACK that fills the hole echoes the original's TSval, older than the
/// retransmission's: undone at once, D-SACK not needed.
#[test]
fn eifel_undoes_a_spurious_fast_retransmit() {
    for recovery in [RecoveryMode::Sack, RecoveryMode::NewReno] {
        let s = reordered_head(recovery, true, true, false);
        assert_eq!(s.stats().undos, 1, "{recovery:?}");
        assert_eq!(s.window().ssthresh, u64::MAX, "{recovery:?}");
        // Undone on the ACK that NewReno would take as partial: no further resends.
        assert_eq!(s.stats().retransmitted_segments, 1, "{recovery:?}");
    }
    // A genuine loss: the retransmission fills the hole and is echoed; nothing undone.
    let mut s = snd(RecoveryMode::Sack, true, true);
    let mut r = rcv(true, false);
    let first = drain_sender(&mut s, Time::ZERO);
    let dups = deliver(&mut r, ms(10), &first[1..]);
    let rtx = ack_all(&mut s, ms(20), &dups);
    let acks = deliver(&mut r, ms(30), &rtx[..1]);
    ack_all(&mut s, ms(40), &acks);
    assert_eq!(s.stats().undos, 0);
    assert_eq!(s.window().ssthresh, 5 * M);
}

/// A delay spike on the path: the ACKs of a flight are held past the RTO (200 ms); the
/// sender times out and retransmits the head. When the held ACKs arrive they echo the
/// original transmissions: Eifel finds the timeout spurious and RFC 4015 restores
/// ssthresh (pipe_prev; here slow start's), sets cwnd = FlightSize + min(acked, IW) and
/// resumes with new data instead of going back N.
#[test]
fn eifel_undoes_a_spurious_timeout_after_a_delay_spike() {
    let run = |undo: bool| {
        let mut s = snd(RecoveryMode::Sack, true, undo);
        let mut r = rcv(true, false);
        let first = drain_sender(&mut s, Time::ZERO);
        let acks = deliver(&mut r, ms(10), &first);
        let second = ack_all(&mut s, ms(20), &acks); // 20 segments, RTT 20 ms
        assert_eq!(second.len(), 20);
        let held = deliver(&mut r, ms(30), &second);
        let rto_at = s.poll_timeout().unwrap();
        s.handle_timeout(rto_at);
        assert_eq!(s.stats().rtos, 1);
        let rtx = drain_sender(&mut s, rto_at);
        assert_eq!((rtx.len(), rtx[0].seq), (1, 10 * M), "the head, cwnd 1");
        let after = ack_all(&mut s, rto_at + Dur::from_millis(100), &held[..1]);
        (s, after)
    };
    let (s, after) = run(true);
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.window().ssthresh, u64::MAX, "pipe_prev");
    assert_eq!(s.window().cwnd, 19 * M + M, "FlightSize + min(acked, IW)");
    assert!(after.iter().all(|x| !x.retransmission && x.seq >= 30 * M));
    assert_eq!(
        s.rtt().backoff_count(),
        0,
        "the echoed sample clears the backoff"
    );

    let (s, after) = run(false);
    assert_eq!(s.stats().undos, 0);
    assert_eq!(
        s.window().ssthresh,
        10 * M,
        "half of the 20 segments in flight"
    );
    assert!(s.window().cwnd <= 3 * M);
    assert!(after.iter().all(|x| x.retransmission), "go-back-N resends");
}
