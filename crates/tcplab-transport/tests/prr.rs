//! RFC 6937 Proportional Rate Reduction against RFC 6675's cwnd = ssthresh. Twenty
//! segments outstanding (initial window 20, MSS 1000), segment 0 lost, and ACK k SACKs
//! segments 1..=k: recovery starts on ACK 3 with ssthresh 10 segments.

mod common;

use common::*;
use tcplab_transport::{RecoveryCwnd, RecoveryMode};

/// New segments sent on each of ACKs 1..=19, and the sender after the ACK that covers
/// the recovery point.
fn sends_per_ack(recovery_cwnd: RecoveryCwnd) -> (Vec<usize>, tcplab_transport::Sender) {
    let mut s = sender_with(tcplab_transport::SenderConfig {
        initial_cwnd: 20,
        recovery_cwnd,
        ..sender_cfg(RecoveryMode::Sack, None)
    });
    assert_eq!(drain_sender(&mut s, ms(0)).len(), 20);
    let mut sent = vec![];
    for k in 1..20 {
        let out = feed(&mut s, ms(100 + k), &sack(0, &[(M, (k + 1) * M)]));
        sent.push(out.iter().filter(|x| !x.retransmission).count());
    }
    feed(&mut s, ms(200), &ack(20 * M));
    (sent, s)
}

/// PRR spreads the reduction over the recovery: while pipe > ssthresh it sends
/// ssthresh / RecoverFS = one segment per two delivered (from ACK 6: the first share paid
/// for the fast retransmission), then PRR-SSRB brings pipe up to ssthresh. RFC 6675 is
/// silent until pipe has fallen below cwnd = ssthresh (ACK 11), then sends one per ACK.
/// PRR ends recovery with cwnd = ssthresh.
#[test]
fn prr_sends_in_proportion_rfc6675_waits() {
    let (prr, s) = sends_per_ack(RecoveryCwnd::Prr);
    assert_eq!(
        &prr[..5],
        &[0, 0, 0, 0, 0],
        "ACKs 1..5: retransmission's share"
    );
    assert_eq!(
        &prr[5..12],
        &[1, 0, 1, 0, 1, 0, 1],
        "ACKs 6..12: every other ACK"
    );
    assert!(!s.in_recovery());
    assert_eq!(
        s.window().cwnd,
        10 * M,
        "RFC 6937: cwnd = ssthresh at the end"
    );

    let (rfc, _) = sends_per_ack(RecoveryCwnd::Ssthresh);
    assert_eq!(&rfc[..10], &[0; 10], "silent until pipe < ssthresh");
    assert_eq!(&rfc[10..], &[1; 9], "then one per ACK");
    // Both send about ssthresh worth during the episode; PRR no more than RFC 6675.
    let (np, nr) = (prr.iter().sum::<usize>(), rfc.iter().sum::<usize>());
    assert!((8..=nr).contains(&np), "PRR {np}, RFC 6675 {nr}");
}
