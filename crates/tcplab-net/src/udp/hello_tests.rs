//! A receiver on an open network: forged, malformed and replayed HELLOs neither stop it
//! nor keep the real sender out, with and without a pre-shared key; Ctrl-C on either
//! side ends both promptly.

use super::testnet::{claiming_hellos, refused_hellos, sender_addr, Pair};
use super::{SessionState, CLAIM_TIMEOUT, RESET_REFUSED};
use crate::wire::{self, Key, Message};
use std::net::SocketAddr;
use tcplab_core::{Dur, Time};

fn stranger() -> SocketAddr {
    "192.0.2.7:9999".parse().expect("valid")
}

fn key() -> Key {
    Key::new(b"a test key of 32 bytes, no more.").expect("long enough")
}

/// A 60 kB TACK transfer, keyed or not.
fn pair(keyed: bool) -> Pair {
    let k = key();
    Pair::for_flow_with(
        "transport = \"tack\"\nbytes = \"60000B\"",
        Dur::from_millis(2),
        0.0,
        1,
        keyed.then_some(&k),
    )
}

fn assert_completes(p: &mut Pair, what: &str) {
    p.run(Dur::from_secs(30));
    assert!(
        p.both_done(),
        "{what}: {:?} / {:?}",
        p.snd.state(),
        p.rcv.state()
    );
    assert_eq!(p.snd.report().map(|r| r.delivered), Some(60_000), "{what}");
}

#[test]
fn a_refused_hello_is_counted_answered_and_forgotten() {
    for (what, h) in refused_hellos(false) {
        let mut p = pair(false);
        p.inject_to_receiver(stranger(), &h);
        let c = *p.rcv.counters();
        assert_eq!(c.refused_hello, 1, "{what}: {c:?}");
        assert_eq!(*p.rcv.state(), SessionState::Handshake, "{what}");
        assert_eq!(p.rcv.peer(), None, "{what}: still listening");
        // The refusal goes back to where the HELLO came from, as a RESET.
        assert_eq!(p.rcv.dest(), Some(stranger()), "{what}");
        let mut buf = [0u8; 256];
        let n = p.rcv.poll_datagram(Time::ZERO, &mut buf).expect("a RESET");
        assert!(matches!(
            wire::decode(&buf[..n]),
            Ok(Message::Reset {
                reason: RESET_REFUSED,
                ..
            })
        ));
        assert!(p.rcv.last_refusal().is_some(), "{what}");
        // The real sender is served at once.
        assert_completes(&mut p, what);
        assert!(
            p.now < Time::ZERO + Dur::from_secs(1),
            "{what}: {:?}",
            p.now
        );
    }
}

#[test]
fn refusals_name_the_reason() {
    let why = |i: usize| {
        let mut p = pair(false);
        p.inject_to_receiver(stranger(), &refused_hellos(false)[i].1);
        p.rcv.last_refusal().expect("refused").to_string()
    };
    assert!(why(0).contains("not UTF-8"), "{}", why(0));
    assert!(why(2).contains("the HELLO says tcp"), "{}", why(2));
    assert!(why(3).contains("the HELLO says tack"), "{}", why(3));
    assert!(why(4).contains("more than 1200"), "{}", why(4));
}

#[test]
fn a_forged_claim_is_released_and_the_real_sender_served() {
    for (what, h) in claiming_hellos(false) {
        let mut p = pair(false);
        p.inject_to_receiver(stranger(), &h);
        assert_eq!(
            p.rcv.peer(),
            Some(stranger()),
            "{what}: the forged HELLO claims"
        );
        assert_completes(&mut p, what);
        assert_eq!(p.rcv.released(), 1, "{what}");
        assert!(
            p.now >= Time::ZERO + CLAIM_TIMEOUT,
            "{what}: served after the release"
        );
        assert!(
            p.rcv.counters().wrong_source > 0,
            "{what}: kept out meanwhile"
        );
    }
}

#[test]
fn a_claim_closed_or_reset_before_any_data_is_released_at_once() {
    let conn = 21; // claiming_hellos(false)[0]'s connection
    for (what, m) in [
        (
            "CLOSE",
            Message::Close {
                conn,
                end: 0,
                interrupted: false,
            },
        ),
        ("RESET", Message::Reset { conn, reason: 2 }),
    ] {
        let mut p = pair(false);
        p.inject_to_receiver(stranger(), &claiming_hellos(false)[0].1);
        let mut buf = [0u8; 64];
        let n = wire::encode(&m, &mut buf).expect("room");
        p.inject_to_receiver(stranger(), &buf[..n]);
        assert_eq!(p.rcv.peer(), None, "{what}: listening again");
        assert_eq!(*p.rcv.state(), SessionState::Handshake, "{what}");
        assert_completes(&mut p, what);
        assert!(
            p.now < Time::ZERO + Dur::from_secs(1),
            "{what}: served at once"
        );
    }
}

#[test]
fn with_a_key_no_forged_hello_is_read() {
    let wrong = Key::new(b"another key, also of 32 bytes...").expect("long enough");
    let mut all = refused_hellos(true);
    all.extend(claiming_hellos(true));
    for (what, h) in all {
        for sealed_with in [None, Some(&wrong)] {
            let mut p = pair(true);
            let mut d = h.clone();
            if let Some(k) = sealed_with {
                let n = d.len();
                d.resize(n + wire::TAG_LEN, 0);
                k.seal(0, &mut d, n).expect("room");
            }
            p.inject_to_receiver(stranger(), &d);
            let c = *p.rcv.counters();
            assert_eq!(c.bad_mac, 1, "{what}: {c:?}");
            assert_eq!(c.total(), 1, "{what}: nothing else was read");
            assert_eq!(
                p.rcv.dest(),
                None,
                "{what}: no answer to an unauthenticated HELLO"
            );
            assert_completes(&mut p, what);
            assert!(p.now < Time::ZERO + Dur::from_secs(1), "{what}");
            assert_eq!(p.rcv.released(), 0);
        }
    }
}

#[test]
fn with_a_key_recorded_datagrams_fail_in_another_session() {
    // Record a keyed session's datagrams to the receiver.
    let mut first = pair(true);
    first.record = true;
    first.run(Dur::from_secs(30));
    assert!(first.both_done());
    let recorded = first.recorded;
    assert!(recorded.len() > 10);
    // Replay them all into a new session (another nonce) while its real sender runs.
    let mut p = Pair::for_flow_with(
        "transport = \"tack\"\nbytes = \"60000B\"",
        Dur::from_millis(2),
        0.0,
        1,
        Some(&key()),
    );
    p.rcv = super::ReceiverSession::new(Default::default(), None, Dur::from_secs(10))
        .with_key(key(), 99);
    p.step();
    for d in &recorded[1..] {
        p.inject_to_receiver(sender_addr(), d);
    }
    let c = *p.rcv.counters();
    assert_eq!(c.bad_mac, recorded.len() as u64 - 1, "{c:?}");
    assert_completes(&mut p, "after the replay");
}

#[test]
fn a_replayed_hello_does_not_claim_twice() {
    let mut h = claiming_hellos(true)[0].1.clone();
    let n = h.len();
    h.resize(n + wire::TAG_LEN, 0);
    key().seal(0, &mut h, n).expect("room");
    // A recorded HELLO with a valid MAC claims once (a MAC cannot tell a replay from the
    // original), is released for want of data, and is refused when replayed again.
    let mut rcv = super::ReceiverSession::new(Default::default(), None, Dur::from_secs(10))
        .with_key(key(), 5);
    rcv.handle_datagram(Time::ZERO, stranger(), &h);
    assert_eq!(rcv.peer(), Some(stranger()));
    let t = Time::ZERO + CLAIM_TIMEOUT;
    assert_eq!(rcv.poll_timeout(), Some(t));
    rcv.handle_timeout(t);
    assert_eq!((rcv.peer(), rcv.released()), (None, 1));
    rcv.handle_datagram(t, stranger(), &h);
    assert_eq!(rcv.peer(), None);
    assert_eq!(rcv.counters().refused_hello, 1);
    assert!(rcv.last_refusal().unwrap().contains("replayed"));
}

#[test]
fn an_interrupted_sender_closes_and_both_end_at_once() {
    let mut p = Pair::new(50_000_000, "cubic", Dur::from_millis(5), 0.0, 1);
    while p.now < Time::ZERO + Dur::from_millis(300) {
        assert!(p.step());
    }
    let at = p.now;
    p.snd.interrupt(at);
    p.run(Dur::from_secs(60));
    assert_eq!(*p.snd.state(), SessionState::Done, "CLOSE_ACK came back");
    assert_eq!(*p.rcv.state(), SessionState::Done, "{:?}", p.rcv.state());
    assert!(p.snd.interrupted() && p.rcv.sender_interrupted());
    assert!(
        p.now < at + Dur::from_secs(1),
        "ended {:?} after",
        p.now.saturating_since(at)
    );
    let r = p.snd.report().expect("the receiver's report");
    assert!(r.delivered > 0 && r.delivered < 50_000_000, "{r:?}");
}

#[test]
fn an_interrupted_handshake_ends_at_once() {
    let mut p = Pair::new(1000, "reno", Dur::from_millis(1), 1.0, 1);
    p.step();
    p.snd.interrupt(p.now);
    assert!(p.snd.is_finished());
    let mut rcv = super::ReceiverSession::new(Default::default(), None, Dur::from_secs(10));
    rcv.interrupt(Time::ZERO);
    assert!(
        rcv.is_finished(Time::ZERO),
        "a listening receiver stops at once"
    );
}

/// A HELLO for a transport registered at run time names it in its flow table: a
/// receiver process that has not registered that name refuses it and says why (what
/// `tcplab recv` reports).
#[test]
fn a_registered_transport_the_receiver_lacks_is_refused_by_name() {
    let table = b"transport = \"never-registered\"\nbytes = \"60000B\"";
    let h = super::testnet::hello(
        31,
        crate::wire::TransportCode::REGISTERED,
        1400,
        None,
        table,
    );
    let mut p = pair(false);
    p.inject_to_receiver(stranger(), &h);
    assert_eq!(p.rcv.counters().refused_hello, 1);
    let why = p.rcv.last_refusal().expect("a reason");
    assert!(
        why.contains("unknown transport 'never-registered'"),
        "{why}"
    );
    assert_completes(&mut p, "after the refusal");
}
