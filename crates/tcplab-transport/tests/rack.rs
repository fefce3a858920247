//! RACK-TLP (RFC 8985) as the loss detection of SACK recovery, against RFC 6675 IsLost.
//! Wired tests: one-way delay 50 ms (RTT 100 ms), per-packet ACKs, MSS 1000.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{AckPolicy, LossDetection, RecoveryMode, SenderConfig};

const HALF: Dur = Dur::from_millis(50);

fn sack_sender(detection: LossDetection, total: u64) -> tcplab_transport::Sender {
    sender_with(SenderConfig {
        loss_detection: detection,
        ..sender_cfg(RecoveryMode::Sack, Some(total))
    })
}

/// Runs a transfer of `total` bytes through `data_fate` (ACKs take 50 ms, never lost).
fn run(detection: LossDetection, total: u64, data_fate: Fate) -> Net {
    let rcv = receiver(AckPolicy::PerPacket, true, Some(total));
    let mut net = Net::with_fates(sack_sender(detection, total), rcv, data_fate, fixed(HALF));
    net.run(Time(u64::MAX / 2), 100_000).unwrap();
    assert!(net.snd.is_complete(), "{detection:?}: transfer completes");
    assert_eq!(net.rcv.rcv_nxt(), total);
    net
}

/// Drops the first `times` transmissions of segment `k`; everything else takes 50 ms.
fn drop_segment(k: u64, times: u32) -> Fate {
    let mut seen = 0;
    Box::new(move |_, s| {
        if s.seq == k * M && seen < times {
            seen += 1;
            None
        } else {
            Some(HALF)
        }
    })
}

fn completion(net: &Net) -> Time {
    net.snd.stats().acked_all_at.expect("complete")
}

/// RFC 8985 section 2.2 / 6: segment 1 and its fast retransmission are both lost.
/// RFC 6675 cannot tell (IsLost only counts SACKed segments above HighRxt), so the RTO
/// repairs it; RACK marks the retransmission lost once segments sent after it are
/// SACKed and resends it about one RTT later, without a timeout.
#[test]
fn lost_retransmission_is_detected_without_rto() {
    let total = 60 * M;
    let dup = run(LossDetection::DupAck, total, drop_segment(1, 2));
    assert!(dup.snd.stats().rtos >= 1, "RFC 6675 needs the RTO");

    let rack = run(LossDetection::Rack, total, drop_segment(1, 2));
    let st = rack.snd.stats();
    assert_eq!(st.rtos, 0, "RACK repairs the lost retransmission");
    let resent: Vec<_> = rack
        .retransmissions()
        .into_iter()
        .filter(|r| r.1 == M)
        .collect();
    assert_eq!(resent.len(), 2, "segment 1 sent three times: {resent:?}");
    // The first segments sent after the retransmission leave with the next ACK burst
    // (about one RTT later: this wire has no bandwidth limit, so ACKs come in bursts);
    // their SACKs one RTT after that show the retransmission overdue (deadline: its
    // send + RACK.rtt + reo_wnd). Two RTTs, far below the 1 s minimum RTO.
    let gap = resent[1].0 - resent[0].0;
    assert!(
        gap <= Dur::from_millis(210),
        "second retransmission after {gap}"
    );
    assert_eq!(st.retransmitted_segments, 2, "nothing else resent");
    assert!(st.rack_lost >= 2, "original and retransmission marked lost");
    let (tr, td) = (completion(&rack), completion(&dup));
    assert!(
        tr + Dur::from_millis(100) < td,
        "RACK done at {tr}, RFC 6675 at {td}"
    );
    // The transmission log only holds what is outstanding.
    assert_eq!(rack.snd.rack_log_len(), 0);
}

/// RFC 8985 section 7: the last segment of a transfer is lost, so no later segment can
/// be SACKed. Without TLP only the RTO (1 s minimum) recovers it; with TLP a probe
/// (the last segment again, as no new data is left) leaves one PTO after the last ACK,
/// with PTO = 2·SRTT + WCDelAckT (200 ms) since one segment is in flight.
#[test]
fn tail_loss_is_recovered_by_a_probe_not_the_rto() {
    let total = 20 * M;
    let dup = run(LossDetection::DupAck, total, drop_segment(19, 1));
    assert_eq!(dup.snd.stats().rtos, 1);
    assert_eq!(dup.snd.stats().tlp_probes, 0);

    let rack = run(LossDetection::Rack, total, drop_segment(19, 1));
    let st = rack.snd.stats();
    assert_eq!(st.rtos, 0, "the probe repaired the tail");
    assert_eq!(st.tlp_probes, 1, "exactly one probe");
    assert_eq!(st.retransmitted_segments, 1);
    let probe = rack.retransmissions()[0];
    assert_eq!(probe.1, 19 * M, "the probe is the last segment");
    // Last ACK (of segment 18) at about 300 ms (two flights); the probe a PTO of
    // 2·100 ms + 200 ms later, then one RTT to the final ACK: about 800 ms, against
    // 1 s of RTO after the last send under RFC 6675.
    assert!(
        probe.0 > ms(500) && probe.0 < ms(800),
        "probe at {}",
        probe.0
    );
    assert!(completion(&rack) < completion(&dup));
}

/// RFC 8985 section 6.2: a segment overtaken by later ones by less than the reordering
/// window (min_RTT / 4 = 25 ms here) is not marked lost. Segment 5 takes 10 ms longer
/// than the others: its successors are SACKed 10 ms before it arrives. RFC 6675 deems
/// it lost at the third SACKed segment above and retransmits it spuriously; RACK waits
/// and never retransmits.
#[test]
fn mild_reordering_within_the_window_is_not_a_loss() {
    let total = 40 * M;
    let late = || -> Fate {
        Box::new(|_, s| {
            Some(if s.seq == 5 * M && !s.retransmission {
                HALF + Dur::from_millis(10)
            } else {
                HALF
            })
        })
    };
    let dup = run(LossDetection::DupAck, total, late());
    assert!(
        dup.snd.stats().retransmitted_segments >= 1,
        "RFC 6675 retransmits the late segment"
    );

    let rack = run(LossDetection::Rack, total, late());
    let st = rack.snd.stats();
    assert_eq!(st.retransmitted_segments, 0, "no spurious retransmission");
    assert_eq!(st.fast_retransmits, 0, "no recovery, no window cut");
    assert_eq!(st.rack_lost, 0);
    assert_eq!(st.rtos, 0);
}

/// Reordering beyond the window is a loss: segment 5 is 60 ms late (> 25 ms), so RACK
/// retransmits it once its successors' delivery shows it overdue, before it arrives.
#[test]
fn reordering_beyond_the_window_is_a_loss() {
    let total = 40 * M;
    let fate: Fate = Box::new(|_, s| {
        Some(if s.seq == 5 * M && !s.retransmission {
            HALF + Dur::from_millis(60)
        } else {
            HALF
        })
    });
    let rack = run(LossDetection::Rack, total, fate);
    let st = rack.snd.stats();
    assert_eq!(st.retransmitted_segments, 1);
    assert_eq!(st.fast_retransmits, 1);
    let (t, seq) = rack.retransmissions()[0];
    assert_eq!(seq, 5 * M);
    // Segment 6 (sent at 0) is SACKed at 100 ms: RACK.rtt = 100 ms; segment 5 is lost
    // at 0 + 100 + 25 ms, when the reordering timer fires.
    assert_eq!(t, ms(125), "reordering timer at xmit + RACK.rtt + reo_wnd");
}

/// RACK's window cut is undone as any other (RFC 3708 with D-SACK, RFC 2883): segment 5
/// arrives 60 ms late, beyond the reordering window, so RACK cuts the window and resends
/// it; the receiver reports the retransmission as a duplicate, the cut was spurious, and
/// with `undo` the window before it returns (ssthresh unset again: no other loss).
#[test]
fn a_spurious_rack_cut_is_undone_by_dsack() {
    let total = 40 * M;
    for undo in [false, true] {
        let fate: Fate = Box::new(|_, s| {
            Some(if s.seq == 5 * M && !s.retransmission {
                HALF + Dur::from_millis(60)
            } else {
                HALF
            })
        });
        let mut rcv_cfg = receiver_cfg(AckPolicy::PerPacket, true, Some(total));
        rcv_cfg.dsack = true;
        let snd = sender_with(SenderConfig {
            loss_detection: LossDetection::Rack,
            undo,
            ..sender_cfg(RecoveryMode::Sack, Some(total))
        });
        let rcv = tcplab_transport::Receiver::new(0, rcv_cfg);
        let mut net = Net::with_fates(snd, rcv, fate, fixed(HALF));
        net.run(Time(u64::MAX / 2), 100_000).unwrap();
        assert!(net.snd.is_complete());
        let st = net.snd.stats();
        assert_eq!((st.fast_retransmits, st.retransmitted_segments), (1, 1));
        assert_eq!(st.undos, u64::from(undo), "undo: {undo}");
        assert_eq!(net.snd.window().ssthresh == u64::MAX, undo, "undo: {undo}");
    }
}
