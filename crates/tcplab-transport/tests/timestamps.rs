//! RFC 7323 timestamps at the sender and the receiver: the option on every segment, the
//! receiver's echo (section 4.3) and RTT samples from every ACK of new data, those for
//! retransmitted data included (section 4), which clear the RTO backoff.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{RecoveryMode, Segment, SenderConfig, Timestamps, DATA_HEADER_BYTES};

const NR: RecoveryMode = RecoveryMode::NewReno;

fn ts_sender(timestamps: bool) -> tcplab_transport::Sender {
    sender_with(SenderConfig {
        timestamps,
        min_rto: Dur::ZERO,
        ..sender_cfg(NR, Some(20 * M))
    })
}

/// An ACK of `upto` echoing `ecr` (what a timestamp-using receiver sends).
fn ts_ack(upto: u64, ecr: u32) -> Segment {
    Segment {
        ts: Some(Timestamps { val: 1, ecr }),
        ..ack(upto)
    }
}

/// Every segment carries the option, 12 bytes longer on the wire; without timestamps none.
#[test]
fn option_on_every_segment_adds_12_bytes() {
    let mut on = ts_sender(true);
    let out = drain_sender(&mut on, ms(3));
    assert_eq!(out.len(), 10);
    for s in &out {
        assert_eq!(s.ts.map(|t| t.val), Some(3000), "1 µs ticks: 3 ms");
        assert_eq!(s.wire_len(), MSS + DATA_HEADER_BYTES + 12);
    }
    let mut off = ts_sender(false);
    let out = drain_sender(&mut off, ms(3));
    assert!(out
        .iter()
        .all(|s| s.ts.is_none() && s.wire_len() == MSS + DATA_HEADER_BYTES));
}

/// After a timeout the head is retransmitted; the ACK that covers it echoes the
/// retransmission's TSval, so it yields an RTT sample and clears the backoff. Without
/// timestamps Karn's rule forbids a sample and the backed-off RTO stays.
#[test]
fn ack_of_retransmission_gives_a_sample_and_clears_backoff() {
    for timestamps in [true, false] {
        let mut s = ts_sender(timestamps);
        drain_sender(&mut s, Time::ZERO);
        s.handle_timeout(ms(1000));
        assert_eq!(s.stats().rtos, 1);
        let rtx = drain_sender(&mut s, ms(1000));
        assert!(rtx[0].retransmission && rtx[0].seq == 0);
        assert_eq!(s.rtt().backoff_count(), 1);
        let ecr = rtx[0].ts.map_or(0, |t| t.val);
        let a = if timestamps { ts_ack(M, ecr) } else { ack(M) };
        feed(&mut s, ms(1080), &a);
        if timestamps {
            assert_eq!(s.stats().rtt_samples, 1, "no Karn ambiguity with TSecr");
            assert_eq!(s.rtt().latest(), Some(Dur::from_millis(80)));
            assert_eq!(s.rtt().backoff_count(), 0, "backoff cleared");
            assert_eq!(s.snapshot().rto, Dur::from_millis(240), "80 + 4 * 40");
        } else {
            assert_eq!(s.stats().rtt_samples, 0, "Karn: no sample");
            assert_eq!(s.rtt().backoff_count(), 1);
            assert_eq!(s.snapshot().rto, Dur::from_secs(2));
        }
    }
}

/// With timestamps the sample dates the transmission the receiver echoed (RFC 7323 4.3:
/// the first of a delayed-ACK pair), not the newest segment covered.
#[test]
fn sample_uses_the_echoed_transmission() {
    let mut s = ts_sender(true);
    drain_sender(&mut s, Time::ZERO);
    feed(&mut s, ms(100), &ts_ack(2 * M, 0)); // echoes the TSval of t = 0
    assert_eq!(s.rtt().latest(), Some(Dur::from_millis(100)));
    let out = feed(&mut s, ms(100), &ts_ack(2 * M, 0));
    assert!(out.is_empty(), "a duplicate ACK is no sample");
    assert_eq!(s.stats().rtt_samples, 1);
}

/// The receiver stamps its ACKs and echoes per section 4.3: the first segment of a
/// delayed-ACK pair, not an out-of-order segment, and the retransmission that fills the
/// hole.
#[test]
fn receiver_echo_rules() {
    let mut cfg = receiver_cfg(delayed(), true, Some(20 * M));
    cfg.timestamps = true;
    let mut r = tcplab_transport::Receiver::new(0, cfg);
    let stamped = |i: u64, val: u32| Segment {
        ts: Some(Timestamps { val, ecr: 0 }),
        ..seg(i)
    };
    r.handle_segment(ms(1), &stamped(0, 10)).unwrap();
    r.handle_segment(ms(1), &stamped(1, 11)).unwrap();
    let a = drain_receiver(&mut r, ms(7));
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ts, Some(Timestamps { val: 7000, ecr: 10 }));
    r.handle_segment(ms(2), &stamped(3, 13)).unwrap(); // segment 2 missing
    assert_eq!(drain_receiver(&mut r, ms(8))[0].ts.unwrap().ecr, 10);
    r.handle_segment(ms(3), &stamped(2, 50)).unwrap(); // its retransmission
    let a = drain_receiver(&mut r, ms(9));
    assert_eq!((a[0].ack, a[0].ts.unwrap().ecr), (4 * M, 50));
    // Without timestamps no option.
    let mut plain = receiver(delayed(), true, Some(20 * M));
    plain.handle_segment(ms(1), &stamped(0, 10)).unwrap();
    plain.handle_timeout(ms(300));
    assert_eq!(drain_receiver(&mut plain, ms(300))[0].ts, None);
}

/// A whole lossy transfer: with timestamps every ACK of new data gives a sample, those
/// after the losses included; without, ACKs covering retransmissions give none.
#[test]
fn lossy_transfer_samples_every_ack() {
    let run = |timestamps: bool| {
        let snd = sender_with(SenderConfig {
            timestamps,
            ..sender_cfg(NR, Some(200 * M))
        });
        let mut cfg = receiver_cfg(delayed(), true, Some(200 * M));
        cfg.timestamps = timestamps;
        let rcv = tcplab_transport::Receiver::new(0, cfg);
        transfer(snd, rcv, &[20, 21, 60, 61, 62, 100], Dur::from_millis(10))
    };
    let (on, off) = (run(true), run(false));
    let new_data_acks = |n: &Net| {
        let mut una = 0;
        n.acks
            .iter()
            .filter(|(_, a)| {
                let advanced = a.ack > una;
                una = una.max(a.ack);
                advanced
            })
            .count() as u64
    };
    // Every ACK that advanced the receiver's window reached the sender (no ACK loss).
    assert_eq!(on.snd.stats().rtt_samples, new_data_acks(&on));
    assert!(
        off.snd.stats().rtt_samples < new_data_acks(&off),
        "Karn drops samples"
    );
    assert!(on.snd.stats().retransmitted_segments >= 6);
}
