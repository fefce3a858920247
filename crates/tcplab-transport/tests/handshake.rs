//! The three-way handshake (`handshake = true`): SYN first, data only after the
//! SYN-ACK, the SYN timer at the initial RTO with RFC 6298 backoff, and what a lost SYN
//! leaves behind (RFC 5681 section 3.1's one-segment window, RFC 6298 section 5.7's 3 s
//! RTO).

mod common;
use common::*;
use tcplab_core::{Dur, Time};
use tcplab_transport::RecoveryMode;

fn hs_sender() -> tcplab_transport::Sender {
    let cfg = tcplab_transport::SenderConfig {
        handshake: true,
        ..sender_cfg(RecoveryMode::NewReno, Some(100 * M))
    };
    sender_with(cfg)
}

fn syn_ack() -> tcplab_transport::Segment {
    tcplab_transport::Segment {
        syn: true,
        wnd: 1 << 30,
        ..Default::default()
    }
}

/// One SYN, nothing else until the SYN-ACK; then the full initial window, and the
/// SYN-ACK's round trip is the first RTT sample.
#[test]
fn data_waits_for_the_syn_ack() {
    let mut s = hs_sender();
    let out = drain_sender(&mut s, Time::ZERO);
    assert_eq!(out.len(), 1);
    assert!(out[0].syn && out[0].len == 0);
    assert_eq!(
        s.poll_timeout(),
        Some(Time::ZERO + Dur::from_secs(1)),
        "RFC 6298: 1 s"
    );
    s.handle_segment(ms(1), &ack(0)).unwrap();
    assert!(
        drain_sender(&mut s, ms(1)).is_empty(),
        "a plain ACK opens nothing"
    );
    s.handle_segment(ms(20), &syn_ack()).unwrap();
    let data = drain_sender(&mut s, ms(20));
    assert_eq!(data.len(), 10, "IW10 after a clean handshake");
    assert!(data.iter().all(|d| !d.syn && d.len == MSS));
    assert_eq!(s.rtt().srtt(), Some(Dur::from_millis(20)));
    assert_eq!(s.stats().syn_retransmits, 0);
}

/// A lost SYN: resent after 1 s, then 2 s (backoff); once answered, no RTT sample
/// (Karn), an RTO of 3 s and a window of one segment.
#[test]
fn a_lost_syn_costs_a_second_and_the_initial_window() {
    let mut s = hs_sender();
    assert_eq!(drain_sender(&mut s, Time::ZERO).len(), 1);
    s.handle_timeout(ms(1000));
    let again = drain_sender(&mut s, ms(1000));
    assert_eq!(again.len(), 1);
    assert!(again[0].syn && again[0].retransmission);
    assert_eq!(s.poll_timeout(), Some(ms(3000)), "backed off to 2 s");
    s.handle_segment(ms(1010), &syn_ack()).unwrap();
    assert_eq!(
        s.rtt().srtt(),
        None,
        "Karn: no sample from a retransmitted SYN"
    );
    assert_eq!(s.rtt().rto(), Dur::from_secs(3), "RFC 6298 section 5.7");
    assert_eq!(
        drain_sender(&mut s, ms(1010)).len(),
        1,
        "RFC 5681: IW = 1 segment"
    );
    assert_eq!(s.stats().syn_retransmits, 1);
    assert_eq!(s.stats().established_at, Some(ms(1010)));
}

/// A duplicate SYN-ACK after the connection is up is no duplicate ACK.
#[test]
fn a_late_syn_ack_is_ignored() {
    let mut s = hs_sender();
    drain_sender(&mut s, Time::ZERO);
    s.handle_segment(ms(2), &syn_ack()).unwrap();
    drain_sender(&mut s, ms(2));
    for t in 3..6 {
        s.handle_segment(ms(t), &syn_ack()).unwrap();
    }
    assert!(!s.in_recovery());
    assert_eq!(s.stats().fast_retransmits, 0);
}

/// The receiver answers every SYN with a SYN-ACK carrying its window, then takes data.
#[test]
fn receiver_answers_each_syn() {
    let mut r = receiver(delayed(), true, Some(10 * M));
    let syn = tcplab_transport::Segment {
        syn: true,
        ..Default::default()
    };
    for t in [0, 1000] {
        r.handle_segment(ms(t), &syn).unwrap();
        let out = drain_receiver(&mut r, ms(t));
        assert_eq!(out.len(), 1);
        assert!(out[0].syn && out[0].wnd == tcplab_transport::DEFAULT_RCV_BUF);
    }
    r.handle_segment(ms(1001), &seg(0)).unwrap();
    assert_eq!(r.rcv_nxt(), M);
}

/// `syn_rto` sets the first SYN timeout apart from the RTO (ns-3's ConnTimeout, 3 s).
#[test]
fn syn_rto_sets_the_first_syn_timeout() {
    let cfg = tcplab_transport::SenderConfig {
        handshake: true,
        syn_rto: Some(Dur::from_secs(3)),
        ..sender_cfg(RecoveryMode::NewReno, Some(10 * M))
    };
    let mut s = sender_with(cfg);
    drain_sender(&mut s, Time::ZERO);
    assert_eq!(s.poll_timeout(), Some(ms(3000)));
    s.handle_timeout(ms(3000));
    assert_eq!(drain_sender(&mut s, ms(3000)).len(), 1);
    assert_eq!(s.poll_timeout(), Some(ms(9000)), "then doubling: 6 s");
}
