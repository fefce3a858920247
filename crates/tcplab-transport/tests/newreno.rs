//! RFC 6582 NewReno fast recovery: partial ACKs, `recover`, and several losses per window.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::RecoveryMode;

const NR: RecoveryMode = RecoveryMode::NewReno;

/// RFC 6582 section 3.2. First flight: segments 0..10; 0, 2 and 4 are lost, so segments
/// 1, 3, 5..9 produce seven duplicate ACKs. Then:
/// - step 2: the third dupACK retransmits segment 0 and sets recover = 10 000;
/// - step 5 (partial ACK): each ACK below `recover` retransmits exactly the first
///   unacknowledged segment, deflates cwnd by the newly acknowledged bytes and adds back
///   one SMSS, and sends new data if the deflated window allows; the retransmission timer
///   is reset on the first partial ACK only;
/// - step 3 (full ACK): exit with cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
#[test]
fn partial_acks_retransmit_one_segment_each_and_full_ack_exits() {
    let mut s = sender(NR, None);
    drain_sender(&mut s, Time::ZERO);
    let mut out = vec![];
    for i in 0..7 {
        out.extend(feed(&mut s, ms(100 + i), &ack(0)));
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.window().ssthresh, 5 * M);
    // retransmission of 0 at the third dupACK; cwnd 8 -> 12 over four more: segments 10, 11.
    assert_eq!(seqs(&out), vec![0, 10 * M, 11 * M]);
    assert_eq!(s.window().cwnd, 12 * M);
    assert_eq!(
        s.poll_timeout(),
        Some(ms(1000)),
        "timer not restarted by dupACKs"
    );

    // First partial ACK: segments 0 and 1 delivered.
    let out = feed(&mut s, ms(200), &ack(2 * M));
    assert!(
        s.in_recovery(),
        "a partial ACK does not end NewReno recovery"
    );
    assert_eq!(
        s.window().cwnd,
        12 * M - 2 * M + M,
        "deflate by 2 SMSS, add back 1"
    );
    assert_eq!(
        seqs(&out),
        vec![2 * M, 12 * M],
        "retransmit the hole, then one new segment"
    );
    assert!(out[0].retransmission && !out[1].retransmission);
    assert_eq!(
        s.poll_timeout(),
        Some(ms(200) + Dur::from_secs(1)),
        "reset on first partial ACK"
    );

    // Second partial ACK: segments 2 and 3 delivered.
    let out = feed(&mut s, ms(300), &ack(4 * M));
    assert!(s.in_recovery());
    assert_eq!(s.window().cwnd, 11 * M - 2 * M + M);
    assert_eq!(seqs(&out), vec![4 * M, 13 * M]);
    assert_eq!(
        s.poll_timeout(),
        Some(ms(1200)),
        "later partial ACKs do not reset the timer (RFC 6582 section 4.1, Impatient)"
    );

    // Full ACK: everything up to recover (10 000) and beyond delivered.
    s.handle_segment(ms(400), &ack(12 * M)).unwrap();
    assert!(!s.in_recovery());
    let flight = s.flight_size();
    assert_eq!(flight, 2 * M, "segments 12 and 13 still out");
    assert_eq!(
        s.window().cwnd,
        s.window().ssthresh.min(flight.max(M) + M),
        "RFC 6582 3.2 step 3, option 1"
    );
    assert_eq!(s.window().cwnd, 3 * M);
    let out = drain_sender(&mut s, ms(400));
    assert_eq!(
        seqs(&out),
        vec![14 * M],
        "no burst on exit: one segment fits"
    );
    assert_eq!(s.stats().fast_retransmits, 1, "one recovery episode");
    assert_eq!(s.stats().retransmitted_segments, 3);
    assert_eq!(s.stats().rtos, 0);
}

/// RFC 6582 section 3.2 step 2 (and section 6): after a retransmission timeout `recover`
/// is set to the highest sequence sent, and duplicate ACKs that do not cover more than
/// `recover` must not start a new fast retransmit. The same ACKs do trigger one in Reno
/// mode, which shows the script really delivers three duplicate ACKs.
#[test]
fn no_fast_retransmit_for_dupacks_below_recover_after_timeout() {
    for (mode, expect_fr) in [(RecoveryMode::NewReno, false), (RecoveryMode::Reno, true)] {
        let mut s = sender(mode, None);
        drain_sender(&mut s, Time::ZERO);
        s.handle_timeout(ms(1000));
        assert_eq!(seqs(&drain_sender(&mut s, ms(1000))), vec![0]);
        // Go-back-N in slow start: cwnd 2, segments 1 and 2 resent.
        let out = feed(&mut s, ms(1100), &ack(M));
        assert_eq!(seqs(&out), vec![M, 2 * M]);
        let cwnd = s.window().cwnd;
        let mut out = vec![];
        for i in 0..3 {
            out.extend(feed(&mut s, ms(1200 + i), &ack(M)));
        }
        if expect_fr {
            // Reno resends segment 1 again (a false fast retransmit), then go-back-N
            // continues under the inflated window.
            assert_eq!(s.stats().fast_retransmits, 1, "{mode:?}");
            assert_eq!(out[0].seq, M, "{mode:?}");
            assert!(s.in_recovery());
        } else {
            assert_eq!(s.stats().fast_retransmits, 0, "{mode:?}: ack {M} < recover");
            assert!(out.is_empty(), "{mode:?}");
            assert!(!s.in_recovery());
            assert_eq!(s.window().cwnd, cwnd, "no window change either");
        }
    }
}

/// RFC 6582 section 3.2 end to end through a wire (RTT 100 ms, delayed ACKs): three
/// losses in the first window (segments 1, 3, 5) are repaired by one fast retransmit and
/// two partial-ACK retransmissions, one RTT apart, without a timeout. Reno (RFC 5681)
/// leaves recovery on the first partial ACK and, with no further duplicate ACKs coming,
/// needs the retransmission timer (Fall & Floyd 1996).
#[test]
fn three_losses_in_one_window_need_no_timeout() {
    let total = 30 * M;
    let rtt = Dur::from_millis(100);
    let half = Dur::from_millis(50);
    let rcv = || receiver(delayed(), false, Some(total));
    let net = transfer(sender(NR, Some(total)), rcv(), &[1, 3, 5], half);
    assert_eq!(net.snd.stats().rtos, 0);
    assert_eq!(net.snd.stats().fast_retransmits, 1);
    let rx = net.retransmissions();
    assert_eq!(
        rx.iter().map(|r| r.1).collect::<Vec<_>>(),
        vec![M, 3 * M, 5 * M]
    );
    assert_eq!(
        rx[1].0 - rx[0].0,
        rtt,
        "one retransmission per partial ACK, an RTT apart"
    );
    assert_eq!(rx[2].0 - rx[1].0, rtt);

    let reno = transfer(
        sender(RecoveryMode::Reno, Some(total)),
        rcv(),
        &[1, 3, 5],
        half,
    );
    assert!(reno.snd.stats().rtos >= 1, "Reno needs a timeout here");
    assert!(reno.snd.stats().acked_all_at > net.snd.stats().acked_all_at);
}
