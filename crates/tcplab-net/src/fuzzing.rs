//! Fuzz entry points, shared by the cargo-fuzz targets in `fuzz/` and by an ordinary
//! test that feeds them random and mutated inputs on stable Rust.
//!
//! Invariants checked (a violation panics, which the fuzzer reports): decoding never
//! panics and whatever decodes re-encodes to the same message; a session fed arbitrary
//! datagrams never panics, counts every datagram exactly once, never lets one break an
//! endpoint invariant, keeps its out-of-order data within the window, and when the
//! hostile datagrams all come from a foreign address the transfer still delivers
//! exactly the bytes sent.

use crate::udp::testnet::{receiver_addr, sender_addr, Pair};
use crate::udp::SessionState;
use crate::wire;
use std::net::SocketAddr;
use tcplab_core::Dur;

/// Decode, re-encode, decode again.
pub fn wire_input(data: &[u8]) {
    if let Ok(m) = wire::decode(data) {
        let mut buf = vec![0u8; data.len() + 64];
        let n = wire::encode(&m, &mut buf).expect("a decoded message encodes");
        assert_eq!(
            wire::decode(&buf[..n]),
            Ok(m),
            "re-encoding changed the message"
        );
    }
}

/// What a session run did with the fuzz input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exercised {
    pub injected: u64,
    pub accepted_hostile: bool,
    pub completed: bool,
}

/// A transfer on the virtual network with datagrams from `data` injected between steps.
/// Each chunk is `[op, len, bytes...]`: op bit 2 picks the victim (sender or receiver),
/// bits 0-1: 0 raw bytes from the peer's address, 1 raw bytes from a stranger,
/// 2 a captured real datagram with bytes XOR-ed in at chunk-given positions, 3 a replay
/// of a captured real datagram.
pub fn session_input(data: &[u8]) -> Exercised {
    session_input_for(0, data)
}

/// The flows `session_input_for` runs: TCP, TACK, TCP/NC, TCP-Forward, datagrams,
/// stop-and-wait, and stop-and-wait registered at run time (its packets OPAQUE, see
/// [`register_fuzzed_transports`]).
pub const FUZZ_FLOWS: [&str; 7] = [
    "cc = \"cubic\"\nbytes = \"60000B\"\nrecovery = \"sack\"",
    "transport = \"tack\"\nbytes = \"60000B\"",
    "transport = \"tcp-nc\"\ncc = \"reno\"\nbytes = \"60000B\"",
    "transport = \"tcp-forward\"\nbytes = \"60000B\"",
    "transport = \"datagram\"\nrate = \"20Mbps\"\nbytes = \"60000B\"",
    "transport = \"stopwait\"\nbytes = \"60000B\"",
    "transport = \"stopwait-registered\"\nbytes = \"60000B\"",
];

/// Registers the transports the fuzzed flows and tables name that are not built in:
/// stop-and-wait as `stopwait-registered` (`tcplab_transport::stopwait::registered`).
pub fn register_fuzzed_transports() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        tcplab_transport::transport::register(
            "stopwait-registered",
            tcplab_transport::stopwait::registered::REGISTRATION,
        )
        .expect("not a built-in name");
    });
}

/// `session_input` for the transport `FUZZ_FLOWS[transport % 7]` (0: the TCP session
/// of `session_input`, with its 1000-byte MSS and 256 kB window).
pub fn session_input_for(transport: u8, data: &[u8]) -> Exercised {
    register_fuzzed_transports();
    let t = transport as usize % FUZZ_FLOWS.len();
    let mut p = if t == 0 {
        Pair::new(60_000, "cubic", Dur::from_millis(2), 0.0, 1)
    } else {
        Pair::for_flow(FUZZ_FLOWS[t], Dur::from_millis(2), 0.0, 1)
    };
    let stranger: SocketAddr = "192.0.2.1:1".parse().expect("valid");
    let mut captured: Vec<Vec<u8>> = Vec::new();
    let mut ex = Exercised::default();
    let mut only_strangers = true;
    let mut rest = data;
    let mut steps = 0;
    while steps < 100_000 {
        p.emit();
        for d in [p.peek_to_receiver(), p.peek_to_sender()]
            .into_iter()
            .flatten()
        {
            if captured.len() < 16 {
                captured.push(d);
            }
        }
        if let [op, len, tail @ ..] = rest {
            let n = (*len as usize).min(tail.len());
            let (bytes, more) = tail.split_at(n);
            rest = more;
            let to_sender = op & 4 != 0;
            let from_peer = if to_sender {
                receiver_addr()
            } else {
                sender_addr()
            };
            let (from, dgram): (SocketAddr, Vec<u8>) = match op & 3 {
                0 => (from_peer, bytes.to_vec()),
                1 => (stranger, bytes.to_vec()),
                k => {
                    let Some(base) = captured.get(n % captured.len().max(1)).cloned() else {
                        continue;
                    };
                    let mut d = base;
                    if k == 2 {
                        for pair in bytes.chunks_exact(2) {
                            let i = pair[0] as usize % d.len().max(1);
                            if let Some(b) = d.get_mut(i) {
                                *b ^= pair[1];
                            }
                        }
                    }
                    (from_peer, d)
                }
            };
            only_strangers &= from == stranger;
            ex.injected += 1;
            if to_sender {
                p.inject_to_sender(from, &dgram);
            } else {
                p.inject_to_receiver(from, &dgram);
            }
        }
        let held = p.rcv.receiver().map_or(0, |r| r.out_of_order_bytes());
        assert!(
            held <= 256 * 1000,
            "out-of-order data beyond the window: {held}"
        );
        if (p.snd.is_finished() && p.rcv.is_finished(p.now)) || !p.step() {
            break;
        }
        steps += 1;
    }
    for st in [p.snd.state(), p.rcv.state()] {
        if let SessionState::Failed(why) = st {
            assert!(
                !why.contains("invariant"),
                "a datagram broke an endpoint: {why}"
            );
        }
    }
    let counted = p.snd.counters().total() + p.rcv.counters().total();
    assert_eq!(
        counted,
        p.delivered_datagrams + ex.injected,
        "a datagram went uncounted"
    );
    ex.completed = p.both_done();
    ex.accepted_hostile = !only_strangers;
    if only_strangers {
        assert!(ex.completed, "foreign datagrams stopped a transfer");
        assert_eq!(p.snd.report().map(|r| r.delivered), Some(60_000));
    }
    ex
}
