//! RFC 6298 retransmission timer behaviour of the sender, driven with scripted ACKs.

mod common;

use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::{RecoveryMode, SenderConfig};

const NR: RecoveryMode = RecoveryMode::NewReno;

/// RFC 6298 (2.1): before any RTT sample the RTO is 1 s, and (5.1) the timer starts when
/// the first data segment is sent, so it fires 1 s after the first flight.
#[test]
fn initial_rto_is_one_second_and_starts_with_first_segment() {
    let mut s = sender(NR, Some(20 * M));
    assert_eq!(s.snapshot().rto, Dur::from_secs(1));
    let out = drain_sender(&mut s, Time::ZERO);
    assert_eq!(out.len(), 10, "initial window of 10 segments (RFC 6928)");
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
}

/// RFC 6298 (2.2) first sample: SRTT = R, RTTVAR = R/2; (2.3) later samples:
/// RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R; RTO = SRTT + max(G, 4 RTTVAR).
/// (5.3) each ACK of new data restarts the timer at now + RTO. Minimum RTO disabled here.
#[test]
fn rto_is_srtt_plus_four_rttvar_and_timer_restarts_on_new_ack() {
    let mut s = sender_with(SenderConfig {
        min_rto: Dur::ZERO,
        ..sender_cfg(NR, Some(40 * M))
    });
    drain_sender(&mut s, Time::ZERO);
    // Segment 0 (sent at 0) acknowledged at 100 ms: R = 100 ms.
    feed(&mut s, ms(100), &ack(M));
    assert_eq!(s.rtt().srtt(), Some(Dur::from_millis(100)));
    assert_eq!(s.rtt().rttvar(), Dur::from_millis(50));
    assert_eq!(s.snapshot().rto, Dur::from_millis(300)); // 100 + 4 * 50
    assert_eq!(
        s.poll_timeout(),
        Some(ms(400)),
        "timer restarted at 100 ms + RTO"
    );
    // Segment 1 (sent at 0) acknowledged at 300 ms: R = 300 ms.
    feed(&mut s, ms(300), &ack(2 * M));
    let rttvar = (3 * 50_000_000 + (300_000_000 - 100_000_000)) / 4; // 87.5 ms
    let srtt = (7 * 100_000_000 + 300_000_000) / 8; // 125 ms
    assert_eq!(s.rtt().rttvar(), Dur(rttvar));
    assert_eq!(s.rtt().srtt(), Some(Dur(srtt)));
    let rto = Dur(srtt + 4 * rttvar); // 475 ms
    assert_eq!(s.snapshot().rto, rto);
    assert_eq!(s.poll_timeout(), Some(ms(300) + rto));
}

/// RFC 6298 (2.3): when 4·RTTVAR falls below the clock granularity G, RTO = SRTT + G.
/// A lossless path with a constant 100 ms RTT drives RTTVAR towards zero.
#[test]
fn clock_granularity_bounds_the_variance_term() {
    let s = sender_with(SenderConfig {
        min_rto: Dur::ZERO,
        clock_granularity: Dur::from_millis(100),
        ..sender_cfg(NR, Some(60 * M))
    });
    let r = receiver(tcplab_transport::AckPolicy::PerPacket, true, Some(60 * M));
    let mut net = Net::new(s, r, Dur::from_millis(50));
    net.run(ms(10_000), 10_000).unwrap();
    assert!(net.snd.is_complete());
    assert!(net.snd.stats().rtt_samples >= 30);
    assert_eq!(net.snd.rtt().srtt(), Some(Dur::from_millis(100)));
    assert!(net.snd.rtt().rttvar() * 4 < Dur::from_millis(100));
    assert_eq!(net.snd.snapshot().rto, Dur::from_millis(200));
}

/// RFC 6298 (2.4): an RTO below 1 s is rounded up to the 1 s minimum. The same 100 ms
/// path as above gives 1 s with the default minimum.
#[test]
fn minimum_rto_of_one_second_applies() {
    let s = sender(NR, Some(60 * M));
    let r = receiver(tcplab_transport::AckPolicy::PerPacket, true, Some(60 * M));
    let mut net = Net::new(s, r, Dur::from_millis(50));
    net.run(ms(10_000), 10_000).unwrap();
    assert_eq!(net.snd.rtt().srtt(), Some(Dur::from_millis(100)));
    assert!(net.snd.rtt().base_rto() < Dur::from_secs(2));
    assert_eq!(net.snd.snapshot().rto, Dur::from_secs(1));
}

/// RFC 6298 (5.4)-(5.6): on expiry retransmit the earliest unacknowledged segment, double
/// the RTO and restart the timer; (2.5) the RTO is capped (60 s here). With the ACK path
/// black-holed the timer fires at 1, 3, 7, 15, 31, 63, 123, 183 s. RFC 5681 (3.1): after
/// a timeout cwnd is one segment, so each expiry resends exactly one segment.
#[test]
fn timer_backs_off_exponentially_when_black_holed() {
    let mut s = sender(NR, Some(10 * M));
    drain_sender(&mut s, Time::ZERO);
    let mut fired = vec![];
    for _ in 0..8 {
        let t = s.poll_timeout().expect("timer running");
        s.handle_timeout(t);
        let out = drain_sender(&mut s, t);
        assert_eq!(out.len(), 1, "one segment per expiry (cwnd = 1 SMSS)");
        assert_eq!(out[0].seq, 0, "the earliest unacknowledged segment");
        assert!(out[0].retransmission);
        assert_eq!(s.window().cwnd, M);
        fired.push(t.as_nanos() / 1_000_000_000);
    }
    assert_eq!(fired, vec![1, 3, 7, 15, 31, 63, 123, 183]);
    assert_eq!(s.stats().rtos, 8);
    // ssthresh = max(FlightSize / 2, 2 SMSS) with FlightSize = 10 segments (RFC 5681 (4)).
    assert_eq!(s.window().ssthresh, 5 * M);
}

/// Karn's algorithm (RFC 6298 section 3): a retransmitted segment gives no RTT sample, and
/// (section 5, note after 5.7) the backed-off RTO is kept until a valid sample arrives,
/// so the timer restarted by the ACK uses the doubled value.
#[test]
fn karn_no_sample_from_retransmitted_segment_and_backoff_kept() {
    let mut s = sender(NR, Some(2 * M));
    drain_sender(&mut s, Time::ZERO);
    s.handle_timeout(ms(1000));
    let out = drain_sender(&mut s, ms(1000));
    assert_eq!(seqs(&out), vec![0]);
    feed(&mut s, ms(1100), &ack(M));
    assert_eq!(s.stats().rtt_samples, 0);
    assert_eq!(s.rtt().srtt(), None);
    assert_eq!(s.snapshot().rto, Dur::from_secs(2));
    assert_eq!(s.poll_timeout(), Some(ms(3100)));
}

/// Karn's algorithm (RFC 6298 section 3; Karn & Partridge 1987): an ACK that covers a
/// retransmitted segment is ambiguous as a whole: it was triggered by the retransmission,
/// so segments it also covers that were sent once (and arrived long before) must not
/// yield a sample either. Otherwise a timeout would feed a ~1 s "RTT" into SRTT.
#[test]
fn karn_no_sample_from_ack_that_covers_a_retransmission() {
    let mut s = sender(NR, Some(3 * M));
    drain_sender(&mut s, Time::ZERO);
    // Segment 0 is lost; 1 and 2 arrive. The timer fires and segment 0 is resent.
    s.handle_timeout(ms(1000));
    assert_eq!(seqs(&drain_sender(&mut s, ms(1000))), vec![0]);
    // The retransmission fills the hole: one ACK covers segments 0 (resent) and 1, 2.
    feed(&mut s, ms(1100), &ack(3 * M));
    assert!(s.is_complete());
    assert_eq!(s.stats().rtt_samples, 0, "no sample from an ambiguous ACK");
    assert_eq!(s.rtt().srtt(), None);
}

/// RFC 6298 (5.2): when all outstanding data is acknowledged the timer is turned off
/// (checked with a zero receive window so that no new data restarts it), and (5.1) it is
/// started again when data is next sent.
#[test]
fn timer_stops_when_everything_is_acknowledged() {
    let mut s = sender(NR, None);
    drain_sender(&mut s, Time::ZERO);
    assert!(s.poll_timeout().is_some());
    let mut a = ack(10 * M);
    a.wnd = 0;
    let out = feed(&mut s, ms(100), &a);
    assert!(out.is_empty(), "zero window: nothing may be sent");
    assert!(!s.is_complete());
    assert_eq!(s.flight_size(), 0);
    assert_eq!(s.poll_timeout(), None, "no outstanding data, no timer");
    // The window opens again: data leaves and the timer restarts at now + RTO.
    let out = feed(&mut s, ms(200), &ack(10 * M));
    assert!(!out.is_empty());
    assert_eq!(s.poll_timeout(), Some(ms(200) + s.snapshot().rto));
}
