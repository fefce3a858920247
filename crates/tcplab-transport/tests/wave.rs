//! TCP Wave on a sender–receiver pair joined by a drop-free bottleneck: bursts leave on
//! the timer, exactly TxTime apart, and the timer tracks the bottleneck.

mod common;

use common::{delayed, receiver_cfg, sender_cfg};
use std::collections::VecDeque;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{CongestionControl, Controller, Wave};
use tcplab_transport::{RecoveryMode, Segment, Sender};

/// A FIFO bottleneck (rate, one-way delay, no loss) for data; ACKs take `delay` back.
struct Path {
    rate_bps: u64,
    delay: Dur,
    busy: Time,
    to_rcv: VecDeque<(Time, Segment)>,
    to_snd: VecDeque<(Time, Segment)>,
}

struct Run {
    /// (time, segment) of every data segment the sender emitted.
    sent: Vec<(Time, Segment)>,
    /// (fire time, interval armed for the next burst) at every timer expiry.
    fires: Vec<(Time, Dur)>,
}

fn wave(s: &Sender) -> &Wave {
    match s.controller() {
        Controller::Wave(w) => w,
        _ => unreachable!(),
    }
}

fn run(rate_bps: u64, delay: Dur, until: Time) -> Run {
    let cfg = sender_cfg(RecoveryMode::Sack, None);
    let mut snd = Sender::new(
        0,
        cfg,
        Controller::Wave(Box::new(Wave::new(
            10,
            3,
            Dur::from_millis(500),
            Dur::from_millis(150),
        ))),
    );
    let mut rcv = tcplab_transport::Receiver::new(0, receiver_cfg(delayed(), true, None));
    snd.start(Time::ZERO);
    let mut p = Path {
        rate_bps,
        delay,
        busy: Time::ZERO,
        to_rcv: VecDeque::new(),
        to_snd: VecDeque::new(),
    };
    let mut out = Run {
        sent: vec![],
        fires: vec![],
    };
    let mut now = Time::ZERO;
    while now <= until {
        // Timers first, then arrivals due now, then whatever the endpoints emit.
        if snd.poll_timeout().is_some_and(|t| t <= now) {
            let before = wave(&snd).send_timer();
            snd.handle_timeout(now);
            if let Some(next) = wave(&snd).send_timer().filter(|&n| Some(n) != before) {
                out.fires.push((now, next - now));
            }
        }
        if rcv.poll_timeout().is_some_and(|t| t <= now) {
            rcv.handle_timeout(now);
        }
        while p.to_rcv.front().is_some_and(|(t, _)| *t <= now) {
            let (_, s) = p.to_rcv.pop_front().unwrap();
            rcv.handle_segment(now, &s).unwrap();
        }
        while p.to_snd.front().is_some_and(|(t, _)| *t <= now) {
            let (_, s) = p.to_snd.pop_front().unwrap();
            snd.handle_segment(now, &s).unwrap();
        }
        while let Some(s) = snd.poll_transmit(now) {
            let start = now.max(p.busy);
            p.busy = start + Dur::transmission(s.wire_len() as u64, p.rate_bps);
            p.to_rcv.push_back((p.busy + p.delay, s));
            out.sent.push((now, s));
        }
        while let Some(a) = rcv.poll_transmit(now) {
            p.to_snd.push_back((now + p.delay, a));
        }
        let next = [
            snd.poll_timeout(),
            rcv.poll_timeout(),
            p.to_rcv.front().map(|x| x.0),
            p.to_snd.front().map(|x| x.0),
        ]
        .into_iter()
        .flatten()
        .min();
        match next {
            Some(t) => now = t.max(now),
            None => break,
        }
    }
    out
}

/// Bursts leave exactly when the timer fires, and the gap to the next burst is the
/// interval Wave armed at that expiry (TxTime capped at init_timer).
#[test]
fn bursts_leave_exactly_txtime_apart() {
    let r = run(10_000_000, Dur::from_millis(20), Time(3_000_000_000));
    let mut starts: Vec<Time> = r.sent.iter().map(|(t, _)| *t).collect();
    starts.dedup();
    assert!(starts.len() > 20, "only {} bursts", starts.len());
    assert_eq!(starts[0], Time::ZERO);
    // Every burst is at most init_burst segments and leaves at one instant.
    for s in &starts {
        let n = r.sent.iter().filter(|(t, _)| t == s).count();
        assert!((1..=10).contains(&n), "{n} segments at {s}");
    }
    // fires[k] = (time of expiry k, interval armed then): bursts k and k+1 are that far apart.
    let mut distinct = std::collections::BTreeSet::new();
    for (k, &(t, iv)) in r.fires.iter().enumerate() {
        assert_eq!(starts[k], t, "burst {k} not at the timer expiry");
        if let Some(&next) = starts.get(k + 1) {
            assert_eq!(next - t, iv, "gap after burst {k}");
        }
        distinct.insert(iv.0);
    }
    // Startup at init_timer, then tracking: 10 segments of 1040 B at 10 Mbit/s = 8.32 ms.
    assert!(distinct.len() >= 2, "TxTime never adapted: {distinct:?}");
    assert_eq!(r.fires.last().unwrap().1, Dur::from_micros(8320));
    assert_eq!(
        r.fires[0].1,
        Dur::from_millis(500),
        "startup uses init_timer"
    );
}
