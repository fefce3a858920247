//! A controller declares the opt-in hooks it overrides (`CongestionControl::capabilities`):
//! the sender calls each declared hook and never one left out, and a controller that
//! declares nothing is called for everything.
//! Wired: one-way delay 50 ms, per-packet ACKs with SACK blocks, MSS 1000, NewReno
//! recovery (so duplicate ACKs that only SACK reach the controller only on request).

mod common;

use common::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{
    AckInfo, Capabilities, CongestionControl, CongestionEvent, Controller, HeadSegment, NewReno,
    Window,
};
use tcplab_transport::{AckPolicy, RecoveryMode, Sender};

/// How often each opt-in hook was called, one counter per capability.
#[derive(Default)]
struct Calls([AtomicU64; 7]);

/// The capabilities in the order of [`Calls`].
const EACH: [(Capabilities, &str); 7] = [
    (Capabilities::PACES_OR_TIMES, "pacing_rate / send_timer"),
    (Capabilities::HEARS_DUP_ACKS, "on_dup_ack"),
    (Capabilities::HEARS_SENDS, "on_sent"),
    (Capabilities::EXPIRES_HEAD, "retransmit_head"),
    (Capabilities::READS_DELIVERY, "AckInfo::rate / delivered"),
    (
        Capabilities::HEARS_ACKS_WITHOUT_PROGRESS,
        "on_ack without new data",
    ),
    (Capabilities::SETS_RECOVERY_WINDOW, "recovery_inflation"),
];

impl Calls {
    fn note(&self, cap: Capabilities) {
        let i = EACH.iter().position(|(c, _)| *c == cap).unwrap();
        self.0[i].fetch_add(1, Relaxed);
    }
    fn of(&self, i: usize) -> u64 {
        self.0[i].load(Relaxed)
    }
}

/// NewReno's window, answering every opt-in hook at its default and counting the calls.
struct Counting {
    declared: Capabilities,
    inner: NewReno,
    calls: Arc<Calls>,
}

impl CongestionControl for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn capabilities(&self) -> Capabilities {
        self.declared
    }
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.rate.is_some() || ack.delivered > 0 {
            self.calls.note(Capabilities::READS_DELIVERY);
        }
        if ack.bytes_acked == 0 {
            self.calls.note(Capabilities::HEARS_ACKS_WITHOUT_PROGRESS);
        }
        self.inner.on_ack(w, ack);
    }
    fn on_congestion_event(&mut self, w: &mut Window, ev: CongestionEvent, now: Time, f: u64) {
        self.inner.on_congestion_event(w, ev, now, f);
    }
    fn on_dup_ack(&mut self, _w: &mut Window, _now: Time, _in_flight: u64) {
        self.calls.note(Capabilities::HEARS_DUP_ACKS);
    }
    fn retransmit_head(&mut self, _head: &HeadSegment) -> bool {
        self.calls.note(Capabilities::EXPIRES_HEAD);
        false
    }
    fn on_sent(&mut self, _now: Time, _bytes: u32, _in_flight: u64) {
        self.calls.note(Capabilities::HEARS_SENDS);
    }
    fn recovery_inflation(&self) -> bool {
        self.calls.note(Capabilities::SETS_RECOVERY_WINDOW);
        true
    }
    fn pacing_rate(&self) -> Option<u64> {
        self.calls.note(Capabilities::PACES_OR_TIMES);
        None
    }
    fn send_timer(&self) -> Option<Time> {
        self.calls.note(Capabilities::PACES_OR_TIMES);
        None
    }
}

/// A transfer of 40 segments losing the sixth, with a controller declaring `declared`:
/// the calls of each hook, and when the transfer completed.
fn run(declared: Capabilities) -> (Arc<Calls>, Time) {
    let calls = Arc::new(Calls::default());
    let cc = Counting {
        declared,
        inner: NewReno::default(),
        calls: calls.clone(),
    };
    let total = 40 * M;
    let mut snd = Sender::new(
        0,
        sender_cfg(RecoveryMode::NewReno, Some(total)),
        Controller::Custom(Box::new(cc)),
    );
    snd.start(Time::ZERO);
    let rcv = receiver(AckPolicy::PerPacket, true, Some(total));
    let net = transfer(snd, rcv, &[5], Dur::from_millis(50));
    assert_eq!(net.snd.stats().fast_retransmits, 1);
    (calls, net.snd.stats().acked_all_at.unwrap())
}

/// Each capability alone: its hook is called, no other one is (so the sender neither
/// ignores a declaration nor calls what was not declared), and the transfer is the same
/// (the hooks answer as their defaults do).
#[test]
fn a_declared_hook_is_called_and_no_other() {
    let (_, plain_done) = run(Capabilities::NONE);
    for (i, (cap, hook)) in EACH.iter().enumerate() {
        let (calls, done) = run(*cap);
        for (j, (_, other)) in EACH.iter().enumerate() {
            let n = calls.of(j);
            if i == j {
                assert!(n > 0, "{hook} declared but never called");
            } else {
                assert_eq!(n, 0, "{other} called {n} times, only {hook} declared");
            }
        }
        assert_eq!(done, plain_done, "{hook}");
    }
}

/// Declaring nothing: no opt-in hook is called. Declaring everything: all are.
#[test]
fn none_and_all() {
    let (none, _) = run(Capabilities::NONE);
    let (all, _) = run(Capabilities::ALL);
    for (i, (_, hook)) in EACH.iter().enumerate() {
        assert_eq!(none.of(i), 0, "{hook}");
        assert!(all.of(i) > 0, "{hook}");
    }
}

/// A user controller that does not answer `capabilities` gets every hook (the safe
/// default): the trait's default declares them all.
#[test]
fn the_default_declares_everything() {
    struct Plain;
    impl CongestionControl for Plain {
        fn name(&self) -> &'static str {
            "plain"
        }
        fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}
        fn on_congestion_event(&mut self, _: &mut Window, _: CongestionEvent, _: Time, _: u64) {}
    }
    assert_eq!(Plain.capabilities(), Capabilities::ALL);
    let custom = Controller::Custom(Box::new(Plain));
    assert_eq!(custom.capabilities(), Capabilities::ALL);
}
