//! Input checks that make a broken peer or driver fail loudly instead of corrupting state.

mod common;

use common::*;
use tcplab_core::Time;
use tcplab_transport::{RecoveryMode, Violation};

/// An ACK for bytes never sent (RFC 793/9293 3.10.7.4: SEG.ACK > SND.NXT acknowledges
/// something not yet sent) is rejected with `AckBeyondSent` and leaves the sender unchanged.
#[test]
fn ack_beyond_snd_max_is_a_violation() {
    let mut s = sender(RecoveryMode::NewReno, None);
    drain_sender(&mut s, Time::ZERO);
    let before = (s.snd_una(), *s.window(), s.stats().rtt_samples);
    let err = s.handle_segment(ms(100), &ack(10 * M + 1)).unwrap_err();
    assert_eq!(
        err,
        Violation::AckBeyondSent {
            flow: 0,
            ack: 10 * M + 1,
            snd_max: 10 * M
        }
    );
    assert_eq!(before, (s.snd_una(), *s.window(), s.stats().rtt_samples));
    // Acknowledging exactly snd_max is fine.
    s.handle_segment(ms(100), &ack(10 * M)).unwrap();
    assert_eq!(s.snd_una(), 10 * M);
}

/// A SACK block reaching past the highest byte sent is rejected too.
#[test]
fn sack_beyond_snd_max_is_a_violation() {
    let mut s = sender(RecoveryMode::Sack, None);
    drain_sender(&mut s, Time::ZERO);
    let err = s
        .handle_segment(ms(100), &sack(0, &[(5 * M, 11 * M)]))
        .unwrap_err();
    assert!(
        matches!(err, Violation::SackBeyondSent { end, snd_max: s, .. } if end == 11 * M && s == 10 * M)
    );
    assert!(!s.in_recovery());
}

/// A receiver of a finite transfer rejects bytes past its end with `DataBeyondEnd`;
/// data ending exactly at the end is accepted.
#[test]
fn data_beyond_the_transfer_end_is_a_violation() {
    let mut r = receiver(delayed(), true, Some(2500));
    let err = r.handle_segment(ms(0), &data(2000, 1000)).unwrap_err();
    assert_eq!(
        err,
        Violation::DataBeyondEnd {
            flow: 0,
            end: 3000,
            total: 2500
        }
    );
    assert_eq!(r.rcv_nxt(), 0);
    r.handle_segment(ms(0), &data(0, 1000)).unwrap();
    r.handle_segment(ms(0), &data(1000, 1000)).unwrap();
    let mut last = data(2000, 500);
    last.fin = true;
    r.handle_segment(ms(0), &last).unwrap();
    assert_eq!(r.rcv_nxt(), 2500);
    assert_eq!(r.stats().completed_at, Some(ms(0)));
}
