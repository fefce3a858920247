//! Send and receive buffers: the receiver advertises what its buffer has free (out-of-order
//! data occupies it, the right edge never moves left), the sender keeps no more than its
//! send buffer outstanding, and quick-ACK mode ACKs every segment for a while.

mod common;
use common::*;
use tcplab_core::Time;
use tcplab_transport::{Receiver, ReceiverConfig, RecoveryMode, SenderConfig};

fn rcv(buf: u64, quick: u32) -> Receiver {
    Receiver::new(
        0,
        ReceiverConfig {
            rcv_buf: buf,
            quick_ack: quick,
            ..receiver_cfg(delayed(), true, None)
        },
    )
}

fn last_wnd(r: &mut Receiver, now: Time) -> (u64, u64) {
    let a = drain_receiver(r, now).pop().expect("an ACK");
    (a.ack, a.wnd)
}

/// Out-of-order data held at the receiver is taken off the window; filling the hole
/// gives the space back, and the right edge never moves left meanwhile.
#[test]
fn window_is_the_free_buffer_and_never_shrinks() {
    let mut r = rcv(10 * M, 0);
    r.handle_segment(ms(0), &seg(0)).unwrap();
    r.handle_segment(ms(0), &seg(1)).unwrap();
    assert_eq!(last_wnd(&mut r, ms(0)), (2 * M, 10 * M));
    for i in 3..6 {
        r.handle_segment(ms(1), &seg(i)).unwrap();
    }
    // Three segments held: right edge stays at 12 M (2 M + 10 M), not 2 M + 7 M = 9 M.
    assert_eq!(last_wnd(&mut r, ms(1)), (2 * M, 10 * M));
    r.handle_segment(ms(2), &seg(2)).unwrap();
    assert_eq!(last_wnd(&mut r, ms(2)), (6 * M, 10 * M));
    // A hole again: holding 4 segments, the edge 6 M + 10 M = 16 M stays put while the
    // cumulative ACK cannot move.
    for i in 7..11 {
        r.handle_segment(ms(3), &seg(i)).unwrap();
    }
    assert_eq!(last_wnd(&mut r, ms(3)), (6 * M, 10 * M));
    // The hole at 6 filled: rcv_nxt = 11 M, buffer empty: edge 21 M.
    r.handle_segment(ms(4), &seg(6)).unwrap();
    assert_eq!(last_wnd(&mut r, ms(4)), (11 * M, 10 * M));
    // A hole at 11 with 12 held, then 11 arrives partially (only 11 filled, 13 missing,
    // 14..16 held): the window counts the held segments.
    r.handle_segment(ms(5), &seg(12)).unwrap();
    for i in 14..17 {
        r.handle_segment(ms(5), &seg(i)).unwrap();
    }
    r.handle_segment(ms(6), &seg(11)).unwrap();
    let (a, w) = last_wnd(&mut r, ms(6));
    assert_eq!(a, 13 * M);
    assert_eq!(
        a + w,
        21 * M,
        "13 M + 7 M free would move the edge left of 21 M"
    );
    r.handle_segment(ms(7), &seg(13)).unwrap();
    assert_eq!(last_wnd(&mut r, ms(7)), (17 * M, 10 * M));
    // Without the free-space rule the window would stay 10 M with data held.
    // (it would advertise 18 M + 10 M = 28 M).
    r.handle_segment(ms(8), &seg(19)).unwrap();
    r.handle_segment(ms(8), &seg(20)).unwrap();
    r.handle_segment(ms(9), &seg(17)).unwrap();
    assert_eq!(
        last_wnd(&mut r, ms(9)),
        (18 * M, 9 * M),
        "edge 27 M kept, not 28 M"
    );
}

/// The send buffer bounds what is outstanding even when cwnd and rwnd would allow more.
#[test]
fn send_buffer_limits_outstanding_data() {
    let cfg = SenderConfig {
        snd_buf: 4 * M,
        ..sender_cfg(RecoveryMode::NewReno, Some(100 * M))
    };
    let mut s = sender_with(cfg);
    assert_eq!(
        drain_sender(&mut s, ms(0)).len(),
        4,
        "IW10 but a 4-segment buffer"
    );
    s.handle_segment(ms(10), &ack(2 * M)).unwrap();
    assert_eq!(drain_sender(&mut s, ms(10)).len(), 2);
    assert_eq!(s.snd_max() - s.snd_una(), 4 * M);
}

/// Quick-ACK: the first N in-order segments are ACKed one by one, then delayed ACKs
/// take over; out-of-order data restarts quick-ACK mode.
#[test]
fn quick_ack_acks_every_segment_for_a_while() {
    let mut r = rcv(1 << 30, 3);
    let mut acks = 0;
    for i in 0..7 {
        r.handle_segment(ms(i), &seg(i)).unwrap();
        acks += drain_receiver(&mut r, ms(i)).len();
    }
    assert_eq!(acks, 3 + 2, "3 quick, then one per 2 of the remaining 4");
    r.handle_segment(ms(10), &seg(8)).unwrap(); // out of order: a duplicate ACK
    assert_eq!(drain_receiver(&mut r, ms(10)).len(), 1);
    r.handle_segment(ms(11), &seg(7)).unwrap(); // fills the hole: ACK at once
    assert_eq!(drain_receiver(&mut r, ms(11)).len(), 1);
    for i in 9..11 {
        r.handle_segment(ms(12), &seg(i)).unwrap();
        assert_eq!(drain_receiver(&mut r, ms(12)).len(), 1, "quick again");
    }
}
