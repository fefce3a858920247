//! RFC 5681 congestion control and fast retransmit / fast recovery (Reno mode), with
//! scripted ACKs. The first flight is segments 0..10 (initial window 10, MSS 1000).

mod common;

use common::*;
use tcplab_core::Time;
use tcplab_transport::RecoveryMode;

const RENO: RecoveryMode = RecoveryMode::Reno;

/// RFC 5681 section 3.2 step 1-2: duplicate ACKs below DupThresh (3) do not retransmit;
/// the third does: the lost segment is resent, ssthresh = max(FlightSize/2, 2 SMSS) (eq. 4)
/// and cwnd = ssthresh + 3 SMSS. Each further duplicate ACK inflates cwnd by one SMSS
/// (step 4), which lets new data out once cwnd exceeds the flight.
#[test]
fn fast_retransmit_on_third_dupack_with_reno_window() {
    for mode in [RecoveryMode::Reno, RecoveryMode::NewReno] {
        let mut s = sender(mode, None);
        assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
        // Segment 0 lost: every later segment produces a duplicate ACK for 0.
        assert!(feed(&mut s, ms(100), &ack(0)).is_empty());
        assert!(feed(&mut s, ms(101), &ack(0)).is_empty());
        assert_eq!(s.stats().fast_retransmits, 0, "two dupACKs are not enough");
        assert!(!s.in_recovery());
        let out = feed(&mut s, ms(102), &ack(0));
        assert_eq!(
            seqs(&out),
            vec![0],
            "third dupACK retransmits segment 0 only"
        );
        assert!(out[0].retransmission);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert!(s.in_recovery());
        assert_eq!(s.window().ssthresh, 5 * M, "FlightSize 10 segments / 2");
        assert_eq!(s.window().cwnd, 8 * M, "ssthresh + 3 SMSS");
        // Dupacks 4..6: cwnd 9, 10, 11 segments; flight is 10, so the 6th sends one new segment.
        assert!(feed(&mut s, ms(103), &ack(0)).is_empty());
        assert_eq!(s.window().cwnd, 9 * M);
        assert!(feed(&mut s, ms(104), &ack(0)).is_empty());
        assert_eq!(s.window().cwnd, 10 * M);
        let out = feed(&mut s, ms(105), &ack(0));
        assert_eq!(s.window().cwnd, 11 * M);
        assert_eq!(seqs(&out), vec![10 * M], "inflated window sends new data");
        assert!(!out[0].retransmission);
    }
}

/// RFC 5681 section 3.2 step 6: the ACK of new data ends fast recovery with
/// cwnd = ssthresh ("deflating" the window). In Reno mode this happens on the first new
/// ACK even if it is partial.
#[test]
fn reno_exits_recovery_on_first_new_ack_with_cwnd_ssthresh() {
    let mut s = sender(RENO, None);
    drain_sender(&mut s, Time::ZERO);
    for i in 0..5 {
        feed(&mut s, ms(100 + i), &ack(0));
    }
    assert!(s.in_recovery());
    assert_eq!(s.window().cwnd, 10 * M);
    // Partial ACK (segments 0..3 now delivered, 3 is also lost).
    let out = feed(&mut s, ms(200), &ack(3 * M));
    assert!(!s.in_recovery(), "Reno leaves recovery on any new ACK");
    assert_eq!(s.window().cwnd, 5 * M);
    assert_eq!(s.window().ssthresh, 5 * M);
    assert!(
        out.iter().all(|x| !x.retransmission),
        "Reno does not retransmit on a partial ACK"
    );
}

/// RFC 5681 eq. (4): ssthresh has a floor of 2 SMSS. Three segments in flight and three
/// duplicate ACKs: FlightSize/2 = 1.5 segments, so ssthresh = 2 segments.
#[test]
fn ssthresh_floor_is_two_segments() {
    let mut s = sender(RENO, Some(3 * M));
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 3);
    for i in 0..3 {
        feed(&mut s, ms(100 + i), &ack(0));
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.window().ssthresh, 2 * M);
    assert_eq!(s.window().cwnd, 5 * M);
}

/// RFC 5681 section 3.1: after a retransmission timeout cwnd is the loss window (1 SMSS)
/// and ssthresh = max(FlightSize/2, 2 SMSS); the sender then slow-starts again.
#[test]
fn timeout_sets_cwnd_to_one_segment() {
    let mut s = sender(RENO, None);
    drain_sender(&mut s, Time::ZERO);
    // Segments 0..4 acknowledged, growing cwnd to 14 and filling it: segments 4..18 out.
    feed(&mut s, ms(100), &ack(2 * M));
    feed(&mut s, ms(101), &ack(4 * M));
    assert_eq!(s.window().cwnd, 14 * M);
    assert_eq!(s.flight_size(), 14 * M);
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    assert_eq!(s.window().cwnd, M);
    assert_eq!(s.window().ssthresh, 7 * M);
    let out = drain_sender(&mut s, t);
    assert_eq!(seqs(&out), vec![4 * M]);
    // Slow start after the timeout: each ACK of one segment adds one segment.
    let out = feed(&mut s, t + tcplab_core::Dur::from_millis(100), &ack(5 * M));
    assert_eq!(s.window().cwnd, 2 * M);
    assert_eq!(seqs(&out), vec![5 * M, 6 * M]);
}

/// RFC 5681 section 3.1 eq. (2) with RFC 3465 (L = 2): in slow start each ACK grows cwnd by
/// the bytes it acknowledges, at most 2 SMSS. In congestion avoidance (cwnd >= ssthresh)
/// cwnd grows by one SMSS per cwnd of acknowledged bytes (eq. 3, byte counting).
#[test]
fn slow_start_and_congestion_avoidance_growth() {
    let mut s = sender(RENO, None);
    drain_sender(&mut s, Time::ZERO);
    assert_eq!(s.window().cwnd, 10 * M);
    feed(&mut s, ms(100), &ack(M));
    assert_eq!(s.window().cwnd, 11 * M, "ACK of 1 SMSS: +1 SMSS");
    feed(&mut s, ms(101), &ack(5 * M));
    assert_eq!(s.window().cwnd, 13 * M, "ACK of 4 SMSS: +2 SMSS (L = 2)");

    // Enter congestion avoidance through a fast recovery: ssthresh = cwnd = 8 segments.
    let una = s.snd_una();
    for i in 0..3 {
        feed(&mut s, ms(200 + i), &ack(una));
    }
    let ssthresh = s.window().ssthresh;
    assert_eq!(ssthresh, s.flight_size() / 2);
    feed(&mut s, ms(300), &ack(una + M));
    assert!(!s.in_recovery());
    assert_eq!(s.window().cwnd, ssthresh);
    // Now acknowledge one segment at a time: cwnd grows by one SMSS after a full cwnd.
    let w = s.window().cwnd;
    let mut acked = 0;
    let mut next = una + M;
    while acked + M < w {
        next += M;
        acked += M;
        feed(&mut s, ms(400), &ack(next));
        assert_eq!(
            s.window().cwnd,
            w,
            "no growth before a full window is acknowledged"
        );
    }
    feed(&mut s, ms(400), &ack(next + M));
    assert_eq!(
        s.window().cwnd,
        w + M,
        "one SMSS per window of acknowledged data"
    );
}
