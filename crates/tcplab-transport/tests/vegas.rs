//! Vegas' fine-grained retransmission (Brakmo & Peterson 1995; INET, seed 001 Alg. 1),
//! driven through the sender's `retransmit_head` hook. Scripted ACKs, MSS 1000, initial
//! window 10 segments sent at t = 0.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{CcParams, Controller, Vegas};
use tcplab_transport::{RecoveryMode, Sender};

fn vegas(recovery: RecoveryMode, params: CcParams) -> Sender {
    let cc = Vegas::from_params(&mut params.clone()).unwrap();
    let mut s = Sender::new(
        0,
        sender_cfg(recovery, None),
        Controller::Vegas(Box::new(cc)),
    );
    s.start(Time::ZERO);
    s
}

fn fine_rto(s: &Sender) -> Dur {
    match s.controller() {
        Controller::Vegas(v) => v.fine_rto().expect("an RTT was measured"),
        _ => unreachable!(),
    }
}

/// First flight, then an ACK of segments 0 and 1 at 100 ms: one RTT sample of 100 ms.
/// Alg. 1 (INET initialisation sa = 8·RTT, sd = RTT, then the update with the same
/// sample): sa = 800 ms, sd = 75 ms, timeout = ((sa/4 + sd)/2)·(1 + 1/16) = 146.09375 ms.
fn after_first_rtt(recovery: RecoveryMode, params: CcParams) -> Sender {
    let mut s = vegas(recovery, params);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    feed(&mut s, ms(100), &ack(2 * M));
    assert_eq!(fine_rto(&s), Dur(146_093_750));
    s
}

/// A duplicate ACK after the head segment (2, sent at 0) has been out longer than the
/// fine-grained timeout retransmits it at once — on the first duplicate ACK, not the
/// third — and counts as the loss signal (Vegas cuts cwnd by a quarter). Before the
/// timeout has expired a duplicate ACK does nothing; with `fine_retransmit = 0` the sender
/// waits for three.
#[test]
fn first_dupack_retransmits_once_the_fine_timeout_expired() {
    // Expired (150 ms > 146.1 ms): retransmitted on the first duplicate ACK.
    let mut s = after_first_rtt(RecoveryMode::NewReno, CcParams::new());
    let cwnd = s.window().cwnd;
    let out = feed(&mut s, ms(150), &ack(2 * M));
    assert_eq!(seqs(&out), vec![2 * M]);
    assert!(out[0].retransmission);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(s.in_recovery());
    assert_eq!(
        s.window().ssthresh,
        cwnd - cwnd / 4,
        "Vegas: 3/4 of the window"
    );
    assert!(fine_rto(&s) > Dur(146_093_750), "timeout backed off by 1/8");

    // Not yet expired (140 ms): nothing until the third duplicate ACK.
    let mut s = after_first_rtt(RecoveryMode::NewReno, CcParams::new());
    assert!(feed(&mut s, ms(140), &ack(2 * M)).is_empty());
    assert_eq!(s.stats().fast_retransmits, 0);

    // Switched off: expired, but only the third duplicate ACK retransmits.
    let off = CcParams::new().with("fine_retransmit", 0.0);
    let mut s = after_first_rtt(RecoveryMode::NewReno, off);
    assert!(feed(&mut s, ms(150), &ack(2 * M)).is_empty());
    assert!(feed(&mut s, ms(151), &ack(2 * M)).is_empty());
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!(seqs(&feed(&mut s, ms(152), &ack(2 * M))), vec![2 * M]);
    assert_eq!(s.stats().fast_retransmits, 1);
}

/// After a retransmission Vegas checks the first ACKs of new data: segments 2 and 3 were
/// both lost; the ACK of the retransmitted 2 (a partial ACK, at 250 ms) finds segment 3
/// out for 250 ms > the timeout, so it is resent at once. Under RFC 5681 recovery, which
/// leaves recovery on that ACK and would otherwise wait for the timer, this is the only
/// retransmission; with `fine_retransmit = 0` nothing is resent.
#[test]
fn first_acks_after_a_retransmission_are_checked() {
    for (fine, expect) in [(1.0, vec![3 * M]), (0.0, vec![])] {
        let p = CcParams::new().with("fine_retransmit", fine);
        let mut s = after_first_rtt(RecoveryMode::Reno, p);
        for i in 0..3 {
            feed(&mut s, ms(150 + i), &ack(2 * M));
        }
        assert_eq!(s.stats().retransmitted_segments, 1, "segment 2");
        let out = feed(&mut s, ms(250), &ack(3 * M));
        assert!(!s.in_recovery(), "Reno left recovery");
        let rx: Vec<u64> = out
            .iter()
            .filter(|x| x.retransmission)
            .map(|x| x.seq)
            .collect();
        assert_eq!(rx, expect, "fine_retransmit = {fine}");
    }
}

/// `fine_rto_from`: after segment 2 has been retransmitted early (first duplicate ACK at
/// 150 ms; the timeout backs off by 1/8 to 164.36 ms), a duplicate ACK at 170 ms finds it
/// 170 ms past its *first* transmission but only 20 ms past its latest. Timed from the
/// latest transmission (0, Brakmo & Peterson) nothing is resent; timed from the first
/// (1, INET's `TcpVegas`) segment 2 is retransmitted a second time and the timeout doubles.
/// A duplicate ACK at 160 ms is below the timeout in both modes.
#[test]
fn fine_rto_from_first_transmission_resends_a_retransmitted_head_again() {
    let rx = |out: &[tcplab_transport::Segment]| -> Vec<u64> {
        out.iter()
            .filter(|x| x.retransmission)
            .map(|x| x.seq)
            .collect()
    };
    for (from, again) in [(0.0, false), (1.0, true)] {
        let p = CcParams::new().with("fine_rto_from", from);
        let mut s = after_first_rtt(RecoveryMode::NewReno, p);
        assert_eq!(rx(&feed(&mut s, ms(150), &ack(2 * M))), vec![2 * M]);
        let t1 = fine_rto(&s);
        assert_eq!(t1, Dur(164_355_468), "146.09375 ms · 9/8");
        assert!(s.in_recovery());

        let out = feed(&mut s, ms(160), &ack(2 * M));
        assert!(
            rx(&out).is_empty(),
            "fine_rto_from = {from}: 160 ms < timeout"
        );

        let out = feed(&mut s, ms(170), &ack(2 * M));
        if again {
            assert_eq!(rx(&out), vec![2 * M], "INET: timed from the first send");
            assert_eq!(
                fine_rto(&s),
                t1 * 2,
                "exponential backoff for a resent head"
            );
            assert_eq!(s.stats().retransmitted_segments, 2);
        } else {
            assert!(rx(&out).is_empty(), "timed from the latest send (150 ms)");
            assert_eq!(fine_rto(&s), t1);
            assert_eq!(s.stats().retransmitted_segments, 1);
        }
        assert_eq!(s.stats().fast_retransmits, 1, "one loss event either way");
    }
    let bad = CcParams::new().with("fine_rto_from", 2.0);
    let err = Vegas::from_params(&mut bad.clone()).unwrap_err();
    assert!(err.contains("fine_rto_from"), "{err}");
}
