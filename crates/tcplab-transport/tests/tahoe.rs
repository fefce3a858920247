//! TCP Tahoe (Jacobson 1988): fast retransmit without fast recovery. Scripted ACKs; the
//! first flight is segments 0..10 (initial window 10, MSS 1000).

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{Controller, Tahoe};
use tcplab_transport::{RecoveryMode, Sender};

fn tahoe(total: Option<u64>) -> Sender {
    let cfg = sender_cfg(RecoveryMode::NewReno, total);
    let mut s = Sender::new(0, cfg, Controller::Tahoe(Tahoe::default()));
    s.start(Time::ZERO);
    s
}

/// The third duplicate ACK resends the lost segment, sets ssthresh = FlightSize/2 and
/// cwnd = 1 SMSS, with no recovery state and no window inflation: further duplicate ACKs
/// send nothing. The ACK of the retransmission then grows cwnd in slow start (RFC 3465,
/// L = 2) up to ssthresh, and by one SMSS per window after it.
#[test]
fn third_dupack_drops_cwnd_to_one_segment_then_slow_start() {
    let mut s = tahoe(None);
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 10);
    assert!(feed(&mut s, ms(100), &ack(0)).is_empty());
    assert!(feed(&mut s, ms(101), &ack(0)).is_empty());
    let out = feed(&mut s, ms(102), &ack(0));
    assert_eq!(seqs(&out), vec![0], "fast retransmit of segment 0");
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.window().cwnd, M, "Tahoe: one segment");
    assert_eq!(s.window().ssthresh, 5 * M);
    assert!(!s.in_recovery(), "no fast recovery");
    for i in 0..4 {
        assert!(
            feed(&mut s, ms(103 + i), &ack(0)).is_empty(),
            "no inflation"
        );
        assert_eq!(s.window().cwnd, M);
    }
    // The retransmission repaired the only hole: everything up to 10 is acknowledged.
    let out = feed(&mut s, ms(200), &ack(10 * M));
    assert_eq!(
        s.window().cwnd,
        3 * M,
        "slow start: 1 + min(10, L = 2) segments"
    );
    assert_eq!(seqs(&out), vec![10 * M, 11 * M, 12 * M]);
    feed(&mut s, ms(300), &ack(12 * M));
    assert_eq!(s.window().cwnd, 5 * M, "slow start up to ssthresh");
    assert_eq!(s.snapshot().state, "congestion_avoidance");
    for (i, a) in [13, 14, 15, 16, 17].into_iter().enumerate() {
        feed(&mut s, ms(400 + i as u64), &ack(a * M));
    }
    assert_eq!(s.window().cwnd, 6 * M, "then one SMSS per window");
    assert_eq!(s.stats().rtos, 0);
}

/// Three losses in one window (segments 1, 3, 5; RTT 100 ms, delayed ACKs): one fast
/// retransmit, then Tahoe goes back to the lost segment and resends everything after it
/// in slow start (Fall & Floyd 1996, fig. 2), so every hole is repaired without a timeout
/// — at the cost of resending segments the receiver already holds.
#[test]
fn go_back_n_repairs_several_losses_without_timeout() {
    let total = 30 * M;
    let half = Dur::from_millis(50);
    let net = transfer(
        tahoe(Some(total)),
        receiver(delayed(), false, Some(total)),
        &[1, 3, 5],
        half,
    );
    let st = net.snd.stats();
    assert_eq!(st.rtos, 0, "no timeout");
    assert_eq!(st.fast_retransmits, 1);
    let rx: Vec<u64> = net.retransmissions().iter().map(|r| r.1 / M).collect();
    for hole in [1, 3, 5] {
        assert!(rx.contains(&hole), "hole {hole} resent: {rx:?}");
    }
    assert!(
        rx.contains(&2) || rx.contains(&4),
        "go-back-N resends received segments too: {rx:?}"
    );
    assert!(
        net.snd.stats().acked_all_at.unwrap() < ms(1000),
        "done before the 1 s RTO would fire"
    );
}
