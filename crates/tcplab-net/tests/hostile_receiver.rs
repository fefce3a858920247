//! `tcplab recv` on loopback against forged HELLOs, with and without a pre-shared key:
//! after each hostile trial a legitimate transfer succeeds. And Ctrl-C (the stop flag)
//! ends either side within a second, the sender telling its receiver.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab_core::Dur;
use tcplab_net::udp::testnet::{claiming_hellos, refused_hellos};
use tcplab_net::udp::{self, RecvOptions, RecvOutcome, SendOptions, SendOutcome};
use tcplab_net::wire::Key;
use tcplab_net::NetError;

const FLOW: &str = "transport = \"tack\"\nbytes = \"2MB\"";

fn key_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("tcplab-{}-{name}.key", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

fn key() -> Key {
    Key::from_file(&key_file("good", b"0123456789abcdef0123456789abcdef\n")).unwrap()
}

/// Receiver on loopback; `hostile` datagrams sent to it from another socket first;
/// then the legitimate sender. Both outcomes.
fn trial(
    hostile: &[Vec<u8>],
    key: Option<&Key>,
) -> (Result<SendOutcome, NetError>, Result<RecvOutcome, NetError>) {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(20)),
                key: key.cloned(),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o)
        });
        let forger = UdpSocket::bind("127.0.0.1:0").unwrap();
        for h in hostile {
            forger.send_to(h, to).unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
        let mut o = SendOptions::from_table(to, &FLOW.parse().unwrap(), "test").unwrap();
        o.sample = None;
        o.key = key.cloned();
        let s = udp::send(&o);
        (s, rh.join().unwrap())
    })
}

fn assert_served(what: &str, s: Result<SendOutcome, NetError>, r: &Result<RecvOutcome, NetError>) {
    let s = s.unwrap_or_else(|e| panic!("{what}: the real sender failed: {e}"));
    assert_eq!(s.peer.delivered, 2_000_000, "{what}");
    let r = r
        .as_ref()
        .unwrap_or_else(|e| panic!("{what}: the receiver failed: {e}"));
    assert_eq!(r.delivered, 2_000_000, "{what}");
}

#[test]
fn without_a_key_refused_hellos_leave_the_receiver_listening() {
    for (what, h) in refused_hellos(false) {
        let t0 = Instant::now();
        let (s, r) = trial(std::slice::from_ref(&h), None);
        assert_served(what, s, &r);
        let r = r.unwrap();
        assert_eq!(r.counters.refused_hello, 1, "{what}: {:?}", r.counters);
        assert!(r.last_refusal.is_some(), "{what}");
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "{what}: served at once"
        );
    }
}

#[test]
fn without_a_key_a_forged_claim_is_released_for_the_real_sender() {
    // The three trials at once: each holds its receiver for the 3 s claim.
    std::thread::scope(|sc| {
        let hs: Vec<_> = claiming_hellos(false)
            .into_iter()
            .map(|(what, h)| sc.spawn(move || (what, trial(&[h], None))))
            .collect();
        for h in hs {
            let (what, (s, r)) = h.join().unwrap();
            assert_served(what, s, &r);
            assert_eq!(r.unwrap().released, 1, "{what}");
        }
    });
}

#[test]
fn with_a_key_no_forged_hello_is_read_and_the_real_sender_is_served_at_once() {
    let k = key();
    let wrong = Key::from_file(&key_file("wrong", b"fedcba9876543210fedcba9876543210")).unwrap();
    let mut hostile: Vec<Vec<u8>> = Vec::new();
    for (_, h) in refused_hellos(true)
        .into_iter()
        .chain(claiming_hellos(true))
    {
        let mut sealed = h.clone();
        let n = sealed.len();
        sealed.resize(n + tcplab_net::wire::TAG_LEN, 0);
        wrong.seal(0, &mut sealed, n).unwrap();
        hostile.push(h);
        hostile.push(sealed);
    }
    // Each hostile datagram in its own trial, and all of them in one.
    for (i, h) in hostile.iter().enumerate() {
        let t0 = Instant::now();
        let (s, r) = trial(std::slice::from_ref(h), Some(&k));
        assert_served(&format!("trial {i}"), s, &r);
        let r = r.unwrap();
        assert_eq!(r.counters.bad_mac, 1, "trial {i}: {:?}", r.counters);
        assert_eq!((r.released, r.counters.refused_hello), (0, 0), "trial {i}");
        assert!(t0.elapsed() < Duration::from_secs(3), "trial {i}");
    }
    let (s, r) = trial(&hostile, Some(&k));
    assert_served("all at once", s, &r);
    assert_eq!(r.unwrap().counters.bad_mac, hostile.len() as u64);
}

#[test]
fn a_keyed_sender_and_an_unkeyed_receiver_do_not_talk() {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let (s, r) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_millis(1500)),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o)
        });
        let mut o = SendOptions::from_table(to, &FLOW.parse().unwrap(), "test").unwrap();
        o.key = Some(key());
        o.connect_timeout = Dur::from_millis(1000);
        (udp::send(&o), rh.join().unwrap())
    });
    assert!(s
        .unwrap_err()
        .to_string()
        .contains("no tcplab receiver answered"));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("bad_mac"), "{e}");
}

fn stop_after(ms: u64) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        s.store(true, Ordering::Relaxed);
    });
    stop
}

#[test]
fn a_stopped_sender_closes_with_its_receiver_within_a_second() {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let table = "cc = \"cubic\"\nbytes = \"unlimited\"\nstop = \"30s\""
        .parse()
        .unwrap();
    let (s, r, took) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| udp::receive_on(rsock, &RecvOptions::default()));
        let mut o = SendOptions::from_table(to, &table, "test").unwrap();
        o.stop = Some(stop_after(800));
        let t0 = Instant::now();
        let s = udp::send(&o);
        let took = t0.elapsed();
        (s, rh.join().unwrap(), took)
    });
    let s = s.unwrap();
    assert!(s.interrupted);
    assert!(took < Duration::from_millis(800 + 1000), "{took:?}");
    let r = r.unwrap();
    assert!(r.sender_interrupted);
    assert!(r.delivered > 0);
    assert_eq!(s.peer.delivered, r.delivered, "the CLOSE_ACK's report");
    assert!(s.results.flows.rows() == 1 && s.results.flow_series.rows() > 0);
}

#[test]
fn a_stopped_receiver_or_handshake_ends_at_once() {
    let t0 = Instant::now();
    let o = RecvOptions {
        stop: Some(stop_after(200)),
        ..RecvOptions::default()
    };
    let e = udp::receive("127.0.0.1:0".parse::<SocketAddr>().unwrap(), &o).unwrap_err();
    assert!(matches!(e, NetError::Interrupted), "{e}");
    assert!(t0.elapsed() < Duration::from_millis(200 + 300));
    // A sender waiting for a receiver that never answers.
    let quiet = UdpSocket::bind("127.0.0.1:0").unwrap();
    let t0 = Instant::now();
    let mut o =
        SendOptions::from_table(quiet.local_addr().unwrap(), &FLOW.parse().unwrap(), "t").unwrap();
    o.stop = Some(stop_after(200));
    let e = udp::send(&o).unwrap_err();
    assert!(matches!(e, NetError::Interrupted), "{e}");
    assert!(t0.elapsed() < Duration::from_millis(200 + 300));
}
