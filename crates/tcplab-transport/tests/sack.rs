//! RFC 6675 SACK-based loss recovery: scoreboard, IsLost, pipe, NextSeg, and go-back-N
//! after a timeout. First flight: segments 0..10 (initial window 10, MSS 1000).

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{AckPolicy, RecoveryMode};

const SACK: RecoveryMode = RecoveryMode::Sack;

/// RFC 6675 sections 4 (IsLost) and 5 step (2): a segment is lost once DupThresh (3)
/// SACKed segments lie above it, and that alone starts loss recovery even before the
/// third duplicate ACK. Two SACKed segments above are not enough. On entry (4.2)
/// ssthresh = cwnd = FlightSize / 2, and (4.3) the first segment is retransmitted.
#[test]
fn islost_needs_dupthresh_sacked_segments_above() {
    let mut s = sender(SACK, None);
    drain_sender(&mut s, Time::ZERO);
    let out = feed(&mut s, ms(100), &sack(0, &[(M, 3 * M)]));
    assert!(
        out.is_empty(),
        "two SACKed segments above segment 0: not lost yet"
    );
    assert!(!s.in_recovery());
    let out = feed(&mut s, ms(101), &sack(0, &[(M, 4 * M)]));
    assert_eq!(
        seqs(&out),
        vec![0],
        "three SACKed above: lost, on the second dupACK"
    );
    assert!(s.in_recovery());
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.window().ssthresh, 5 * M);
    assert_eq!(s.window().cwnd, 5 * M, "no Reno inflation in SACK recovery");
}

/// RFC 6675 section 4 SetPipe and NextSeg. Segments 0 and 2 are lost.
/// pipe counts every unSACKed segment not deemed lost, plus every retransmitted one
/// (below HighRxt); SACKed and lost segments do not count. Segments are sent while
/// cwnd - pipe >= 1 SMSS, choosing (rule 1) lost segments above HighRxt first, then
/// (rule 2) new data.
#[test]
fn pipe_and_nextseg_follow_the_scoreboard() {
    let mut s = sender(SACK, None);
    drain_sender(&mut s, Time::ZERO);
    feed(&mut s, ms(100), &sack(0, &[(M, 2 * M)]));
    feed(&mut s, ms(101), &sack(0, &[(3 * M, 4 * M), (M, 2 * M)]));
    let out = feed(&mut s, ms(102), &sack(0, &[(3 * M, 5 * M), (M, 2 * M)]));
    // SACKed: 1, 3, 4. Lost: 0 (three above). Not lost: 2 (two above), 5..9.
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!(s.window().cwnd, 5 * M);
    // pipe = 2, 5, 6, 7, 8, 9 (6 segments) + retransmitted 0 = 7.
    assert_eq!(s.snapshot().in_flight, 7 * M);

    // Segment 5 SACKed: now 2 has three SACKed above (3, 4, 5) and is lost.
    let out = feed(&mut s, ms(103), &sack(0, &[(3 * M, 6 * M), (M, 2 * M)]));
    // pipe = retransmitted 0 + 6, 7, 8, 9 = 5 = cwnd: nothing may be sent.
    assert_eq!(s.snapshot().in_flight, 5 * M);
    assert!(out.is_empty());

    // Segment 6 SACKed: pipe 4, so one segment: the lost segment 2 before any new data.
    let out = feed(&mut s, ms(104), &sack(0, &[(3 * M, 7 * M), (M, 2 * M)]));
    assert_eq!(seqs(&out), vec![2 * M]);
    assert!(out[0].retransmission);
    assert_eq!(s.snapshot().in_flight, 5 * M);

    // Segment 7 SACKed: nothing lost above HighRxt remains, so new data (rule 2).
    let out = feed(&mut s, ms(105), &sack(0, &[(3 * M, 8 * M), (M, 2 * M)]));
    assert_eq!(seqs(&out), vec![10 * M]);
    assert!(!out[0].retransmission);
    // pipe = 0 (retransmitted) + 2 (retransmitted) + 8, 9, 10.
    assert_eq!(s.snapshot().in_flight, 5 * M);

    // Partial ACKs keep recovery going until RecoveryPoint (10 000) is covered.
    feed(&mut s, ms(200), &sack(2 * M, &[(3 * M, 8 * M)]));
    assert!(s.in_recovery());
    feed(&mut s, ms(201), &ack(8 * M));
    assert!(s.in_recovery());
    feed(&mut s, ms(300), &ack(10 * M));
    assert!(!s.in_recovery(), "RecoveryPoint covered: recovery ends");
    assert_eq!(s.stats().retransmitted_segments, 2);
    assert_eq!(s.stats().rtos, 0);
}

fn run(mode: RecoveryMode, total: u64) -> Net {
    let rcv = receiver(AckPolicy::PerPacket, true, Some(total));
    transfer(
        sender(mode, Some(total)),
        rcv,
        &[1, 3, 5],
        Dur::from_millis(50),
    )
}

/// RFC 6675 section 1 and 5: with a scoreboard, several losses in one window are all
/// retransmitted within about one RTT of detecting the first, without a timeout; NewReno
/// (RFC 6582), with the same SACK-capable receiver, repairs one hole per RTT.
#[test]
fn several_losses_are_repaired_within_one_rtt() {
    let rtt = Dur::from_millis(100);
    let total = 30 * M;
    let sack = run(SACK, total);
    assert_eq!(sack.snd.stats().rtos, 0);
    assert_eq!(sack.snd.stats().fast_retransmits, 1);
    let rx = sack.retransmissions();
    assert_eq!(
        rx.iter().map(|r| r.1).collect::<Vec<_>>(),
        vec![M, 3 * M, 5 * M],
        "exactly the lost segments, once each"
    );
    assert!(
        rx[2].0 - rx[0].0 < rtt,
        "all holes resent within one RTT: {rx:?}"
    );

    let newreno = run(RecoveryMode::NewReno, total);
    let nx = newreno.retransmissions();
    assert_eq!(nx.len(), 3);
    assert!(
        nx[2].0 - nx[0].0 >= rtt * 2,
        "NewReno: one hole per RTT: {nx:?}"
    );
    // The receiver's cumulative ACK passes the last hole (segment 5) a whole RTT or more
    // earlier with SACK.
    let repaired = |n: &Net| n.acks.iter().find(|(_, a)| a.ack > 5 * M).unwrap().0;
    assert!(repaired(&sack) + rtt <= repaired(&newreno));
}

/// RFC 6675 section 5.1: after a timeout the sender retransmits from the cumulative ACK
/// point in slow start, and SHOULD use the SACK information it holds: segments the
/// receiver has SACKed are skipped rather than resent. (Retaining SACK state across a
/// timeout is the RFC 2018 erratum 1610 practice; this receiver never reneges.)
/// Only segments 2 and 6 of the first flight arrive: two duplicate ACKs, too few SACKed
/// segments for IsLost, so the timer fires.
#[test]
fn go_back_n_after_timeout_skips_sacked_segments() {
    let total = 10 * M;
    let drops = &[0, 1, 3, 4, 5, 7, 8, 9];
    let rcv = receiver(AckPolicy::PerPacket, true, Some(total));
    let net = transfer(sender(SACK, Some(total)), rcv, drops, Dur::from_millis(50));
    assert_eq!(net.snd.stats().rtos, 1);
    assert_eq!(net.snd.stats().fast_retransmits, 0);
    let mut rx: Vec<u64> = net.retransmissions().iter().map(|r| r.1 / M).collect();
    rx.sort_unstable();
    assert_eq!(
        rx,
        vec![0, 1, 3, 4, 5, 7, 8, 9],
        "SACKed 2 and 6 never resent"
    );
}
