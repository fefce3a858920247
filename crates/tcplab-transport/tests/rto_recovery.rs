//! Recovery after a retransmission timeout with SACK information (the post-RTO
//! SACK stall once seen on the seed-001 channel). After a timeout every segment the receiver has not SACKed is presumed lost
//! (RFC 5681 section 3.1 restarts from the loss window; RFC 6675 section 5.1 ends SACK
//! recovery but keeps the scoreboard): what is in flight is only what was sent since and
//! is neither acknowledged nor SACKed. Go-back-N skips SACKed segments, so they must not
//! count as in flight either, and the delivery-rate sampler (draft-cheng-iccrg-delivery-
//! rate-estimation, section 3.2) must start a new interval: nothing is in flight.
//!
//! Script: MSS 1000, initial window 10 (segments 0..9 at t = 0), 20 segments to send.
//! Segments 0, 3 and 7 are lost; 1, 2, 4, 5, 6, 8, 9 are SACKed. DupThresh is set above
//! the window so that no fast recovery starts and the RTO (1 s, no RTT sample yet) fires.

mod common;

use common::*;
use std::sync::{Arc, Mutex};
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{
    AckInfo, CcParams, CongestionControl, CongestionEvent, Controller, NewReno, Window,
};
use tcplab_transport::{AckedBasis, RateSample, RecoveryMode, Sender, SenderConfig};

const TOTAL: u64 = 20 * M;

/// NewReno's window, recording every delivery-rate sample it is handed.
struct Recorder {
    inner: NewReno,
    samples: Arc<Mutex<Vec<(Time, RateSample)>>>,
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if let Some(rs) = ack.rate {
            self.samples.lock().unwrap().push((ack.now, rs));
        }
        self.inner.on_ack(w, ack);
    }
    fn on_congestion_event(&mut self, w: &mut Window, ev: CongestionEvent, now: Time, f: u64) {
        self.inner.on_congestion_event(w, ev, now, f);
    }
}

type Samples = Arc<Mutex<Vec<(Time, RateSample)>>>;

/// The sender after the timeout at 1 s, which resent segment 0.
fn after_rto(recovery: RecoveryMode) -> (Sender, Samples) {
    after_rto_counting(recovery, AckedBasis::Cumulative, 2.0)
}

/// [`after_rto`] with the controller told `acked_basis` of each ACK and NewReno's slow
/// start limited to `abc_limit` segments per ACK.
fn after_rto_counting(
    recovery: RecoveryMode,
    acked_basis: AckedBasis,
    abc_limit: f64,
) -> (Sender, Samples) {
    let samples = Samples::default();
    let params = &mut CcParams::new().with("abc_limit", abc_limit);
    let cc = Recorder {
        inner: NewReno::from_params(params).unwrap(),
        samples: samples.clone(),
    };
    let cfg = SenderConfig {
        dupthresh: 100,
        acked_basis,
        ..sender_cfg(recovery, Some(TOTAL))
    };
    let mut s = Sender::new(0, cfg, Controller::Custom(Box::new(cc)));
    s.start(Time::ZERO);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    let arrivals: [&[(u64, u64)]; 7] = [
        &[(M, 2 * M)],
        &[(M, 3 * M)],
        &[(4 * M, 5 * M), (M, 3 * M)],
        &[(4 * M, 6 * M), (M, 3 * M)],
        &[(4 * M, 7 * M), (M, 3 * M)],
        &[(8 * M, 9 * M), (4 * M, 7 * M), (M, 3 * M)],
        &[(8 * M, 10 * M), (4 * M, 7 * M), (M, 3 * M)],
    ];
    for (i, blocks) in arrivals.iter().enumerate() {
        let out = feed(&mut s, ms(100 + i as u64), &sack(0, blocks));
        assert!(out.is_empty(), "no fast recovery below DupThresh");
    }
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
    s.handle_timeout(ms(1000));
    assert_eq!(s.stats().rtos, 1);
    assert_eq!(seqs(&drain_sender(&mut s, ms(1000))), vec![0]);
    assert_eq!(
        s.window().cwnd,
        M,
        "RFC 5681: the loss window after a timeout"
    );
    (s, samples)
}

/// The sender-level pin: after the timeout each ACK lets the next hole (then new
/// data) leave, although SACKed segments lie between the holes. Counting the skipped
/// SACKed bytes as in flight (the bug) stopped the sender at segment 3 with the link
/// idle, waiting for a second, backed-off timer.
#[test]
fn each_ack_after_rto_sends_the_next_hole() {
    for recovery in [RecoveryMode::Sack, RecoveryMode::NewReno] {
        let (mut s, _) = after_rto(recovery);
        // Segment 0 arrives: the cumulative ACK moves to the hole at 3, and cwnd grows by
        // 2 SMSS (RFC 3465, L = 2) to 3 SMSS.
        let out = feed(
            &mut s,
            ms(1100),
            &sack(3 * M, &[(8 * M, 10 * M), (4 * M, 7 * M)]),
        );
        assert_eq!(s.window().cwnd, 3 * M);
        assert_eq!(
            seqs(&out),
            vec![3 * M, 7 * M, 10 * M],
            "{recovery:?}: both holes and one new segment fit in 3 SMSS; SACKed 4..6 and \
             8..9 are not in flight"
        );
        assert_eq!(s.snapshot().in_flight, 3 * M, "{recovery:?}");
        // The retransmission of 3 is lost again; every other segment arrives one RTT
        // after it left, and each ACK lets the next segment leave: the sender is never
        // idle while it has something to send.
        let mut in_flight = vec![7, 10];
        let mut next = 11;
        let mut t = 1200;
        while let Some(arrived) = (!in_flight.is_empty()).then(|| in_flight.remove(0)) {
            let sacked_to = (arrived + 1) * M;
            let out = feed(&mut s, ms(t), &sack(3 * M, &[(4 * M, sacked_to)]));
            for seg in &out {
                assert_eq!(seg.seq, next * M, "{recovery:?}: in order, each once");
                in_flight.push(next);
                next += 1;
            }
            if next < 20 {
                assert!(!out.is_empty(), "{recovery:?}: the ACK at {t} ms sends");
            }
            t += 100;
        }
        assert_eq!(next, 20, "{recovery:?}: all data sent");
        assert_eq!(
            s.stats().rtos,
            1,
            "{recovery:?}: no second timeout meanwhile"
        );
        assert_eq!(
            s.stats().fast_retransmits,
            0,
            "RFC 6675 5.1: no new recovery"
        );
    }
}

/// Delivery-rate draft, section 3.2 ("if there are no packets in flight yet"): with
/// every unSACKed segment presumed lost, nothing is in flight when the timeout's
/// retransmission leaves, so the next sample spans one round trip — not the 900 ms the
/// sender spent waiting for the timer, which made BBR's bandwidth estimate collapse.
#[test]
fn rate_sample_after_rto_spans_one_round_trip() {
    let (mut s, samples) = after_rto(RecoveryMode::Sack);
    feed(
        &mut s,
        ms(1100),
        &sack(3 * M, &[(8 * M, 10 * M), (4 * M, 7 * M)]),
    );
    let v = samples.lock().unwrap();
    let (t, rs) = *v.last().expect("the ACK of new data gives a sample");
    assert_eq!(t, ms(1100));
    assert_eq!(rs.interval, Dur::from_millis(100), "{rs:?}");
    assert_eq!(rs.delivered, M, "segment 0 (1, 2 were SACKed before)");
    assert_eq!(rs.delivery_rate, 10_000, "1000 B in 100 ms");
}

/// `acked_basis = "delivered"` (the `ns3` profile): the ACKs after the timeout fill the
/// holes and jump over the segments SACKed before it, but the controller hears only what
/// each ACK newly delivered, as ns-3.48's `TcpSocketBase::ProcessAck` hands its
/// controller `currentDelivered` (a segment counts once, when first SACKed or
/// acknowledged). Slow start then grows by the retransmission alone; counting the
/// cumulative jump (the default, RFC 5681 with byte counting) grows by the SACKed
/// segments too. Through FQ-CoDel that jump sent the `ns3` profile's flows a window's
/// burst after each timeout, which CoDel dropped, and the next timeout followed
/// (docs/validation.md).
#[test]
fn delivered_basis_counts_sacked_segments_once_after_rto() {
    // NewReno's slow start with no limit per ACK (as ns-3's TcpCubic), so that the
    // count shows in full.
    let grow = |basis: AckedBasis| {
        let (mut s, _) = after_rto_counting(RecoveryMode::Sack, basis, 1e6);
        let mut cwnd = vec![];
        // 0 arrives: ACK 3 (1, 2 SACKed before); then 3 arrives: ACK 7 (4..6 SACKed).
        for (t, a, blocks) in [
            (1100, 3, &[(8 * M, 10 * M), (4 * M, 7 * M)][..]),
            (1200, 7, &[(8 * M, 10 * M)][..]),
        ] {
            feed(&mut s, ms(t), &sack(a * M, blocks));
            cwnd.push(s.window().cwnd / M);
        }
        cwnd
    };
    assert_eq!(
        grow(AckedBasis::Delivered),
        vec![2, 3],
        "one segment delivered per ACK"
    );
    assert_eq!(
        grow(AckedBasis::Cumulative),
        vec![4, 8],
        "3 and 4 segments acknowledged: past ssthresh (5) in two ACKs"
    );
}
