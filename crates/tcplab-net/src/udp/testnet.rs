//! A virtual network for sessions: both sides on one virtual clock, datagrams delayed
//! and optionally dropped, and a hook to inject foreign datagrams. Used by the session
//! tests and the fuzz entry points; no sockets.

use super::{ReceiverSession, SenderSession, SessionState};
use crate::wire::{self, Key, Message, TransportCode};
use std::collections::VecDeque;
use std::net::SocketAddr;
use tcplab_core::{Dur, Rng, Time};
use tcplab_transport::cc;
use tcplab_transport::{ReceiverConfig, SenderConfig};

pub const SENDER_ADDR: &str = "10.0.0.1:4000";
pub const RECEIVER_ADDR: &str = "10.0.0.2:5201";

pub struct Pair {
    pub snd: SenderSession,
    pub rcv: ReceiverSession,
    pub now: Time,
    delay: Dur,
    loss: f64,
    rng: Rng,
    to_rcv: VecDeque<(Time, Vec<u8>)>,
    to_snd: VecDeque<(Time, Vec<u8>)>,
    buf: Vec<u8>,
    pub delivered_datagrams: u64,
    /// Datagrams the receiver sent to addresses other than the sender's.
    pub elsewhere: u64,
    /// With `record`, every datagram delivered to the receiver, in order.
    pub record: bool,
    pub recorded: Vec<Vec<u8>>,
}

pub fn sender_addr() -> SocketAddr {
    SENDER_ADDR.parse().expect("valid")
}
pub fn receiver_addr() -> SocketAddr {
    RECEIVER_ADDR.parse().expect("valid")
}

impl Pair {
    /// A `bytes`-byte transfer with `cc`, one-way `delay`, random `loss` each way.
    pub fn new(bytes: u64, cc_name: &str, delay: Dur, loss: f64, seed: u64) -> Pair {
        let cfg = SenderConfig {
            total_bytes: Some(bytes),
            mss: 1000,
            recovery: tcplab_transport::RecoveryMode::Sack,
            // As a parsed scenario gives it: the session must open the connection itself.
            handshake: true,
            ..SenderConfig::default()
        };
        let c = cc::build(cc_name, &Default::default()).expect("built-in controller");
        Pair {
            snd: SenderSession::new(Time::ZERO, receiver_addr(), 0xfeed_beef, cfg, c),
            rcv: ReceiverSession::new(
                ReceiverConfig {
                    rcv_buf: 256 * 1000,
                    ..ReceiverConfig::default()
                },
                None,
                Dur::from_secs(10),
            ),
            now: Time::ZERO,
            delay,
            loss,
            rng: Rng::from_seed(seed),
            to_rcv: VecDeque::new(),
            to_snd: VecDeque::new(),
            buf: vec![0; 2048],
            delivered_datagrams: 0,
            elsewhere: 0,
            record: false,
            recorded: Vec::new(),
        }
    }

    /// A transfer of the flow `flow_toml` (one `[[flow]]` table, any built-in transport)
    /// with one-way `delay` and random `loss` each way.
    pub fn for_flow(flow_toml: &str, delay: Dur, loss: f64, seed: u64) -> Pair {
        Pair::for_flow_with(flow_toml, delay, loss, seed, None)
    }

    /// `for_flow`, with both ends holding `key` when given.
    pub fn for_flow_with(
        flow_toml: &str,
        delay: Dur,
        loss: f64,
        seed: u64,
        key: Option<&Key>,
    ) -> Pair {
        let table: toml::Table = flow_toml.parse().expect("a TOML table");
        let mut f = super::flow_spec(&table, "testnet").expect("a valid flow");
        if key.is_some() {
            f = super::with_mac(f, "testnet").expect("room for a MAC");
        }
        let conn = 0xfeed_beef;
        let (shape, ends) = super::flow_endpoints::build(&f, conn).expect("buildable");
        let snd = SenderSession::with_endpoint(
            Time::ZERO,
            receiver_addr(),
            conn,
            ends.source,
            shape,
            table.to_string().into_bytes(),
        )
        .with_symbol_bytes(ends.payload.source);
        let mut p = Pair::new(1, "reno", delay, loss, seed);
        p.snd = snd;
        match key {
            Some(k) => p.with_key(k, seed),
            None => p,
        }
    }

    /// Both ends authenticate with `key` (the receiver's nonces seeded with `seed`).
    pub fn with_key(mut self, key: &Key, seed: u64) -> Pair {
        self.snd = self.snd.with_key(key.clone());
        self.rcv = self.rcv.with_key(key.clone(), seed);
        self
    }

    /// Hands `bytes` from `from` to the receiver now (a foreign or forged datagram).
    pub fn inject_to_receiver(&mut self, from: SocketAddr, bytes: &[u8]) {
        self.rcv.handle_datagram(self.now, from, bytes);
    }

    /// Hands `bytes` from `from` to the sender now.
    pub fn inject_to_sender(&mut self, from: SocketAddr, bytes: &[u8]) {
        self.snd.handle_datagram(self.now, from, bytes);
    }

    /// A copy of the next datagram in flight to the receiver, if any (for replays).
    pub fn peek_to_receiver(&self) -> Option<Vec<u8>> {
        self.to_rcv.front().map(|(_, d)| d.clone())
    }

    pub fn peek_to_sender(&self) -> Option<Vec<u8>> {
        self.to_snd.front().map(|(_, d)| d.clone())
    }

    /// Collects what both sides want to send now (the network then carries it).
    pub fn emit(&mut self) {
        let t = self.now + self.delay;
        while let Some(n) = self.snd.poll_datagram(self.now, &mut self.buf) {
            if self.rng.next_f64() >= self.loss {
                self.to_rcv.push_back((t, self.buf[..n].to_vec()));
            }
        }
        loop {
            // What the receiver sends elsewhere (a RESET to a stranger) leaves the pair.
            let to_sender = self.rcv.dest() == Some(sender_addr());
            let Some(n) = self.rcv.poll_datagram(self.now, &mut self.buf) else {
                break;
            };
            if to_sender && self.rng.next_f64() >= self.loss {
                self.to_snd.push_back((t, self.buf[..n].to_vec()));
            } else if !to_sender {
                self.elsewhere += 1;
            }
        }
    }

    /// Advances to the next event; false when nothing is left to happen.
    pub fn step(&mut self) -> bool {
        self.emit();
        let cands = [
            self.to_rcv.front().map(|x| x.0),
            self.to_snd.front().map(|x| x.0),
            self.snd.poll_timeout(),
            self.rcv.poll_timeout(),
        ];
        let Some(next) = cands.into_iter().flatten().min() else {
            return false;
        };
        self.now = self.now.max(next);
        while self.to_rcv.front().is_some_and(|x| x.0 <= self.now) {
            let (_, d) = self.to_rcv.pop_front().expect("front");
            self.rcv.handle_datagram(self.now, sender_addr(), &d);
            self.delivered_datagrams += 1;
            if self.record {
                self.recorded.push(d);
            }
        }
        while self.to_snd.front().is_some_and(|x| x.0 <= self.now) {
            let (_, d) = self.to_snd.pop_front().expect("front");
            self.snd.handle_datagram(self.now, receiver_addr(), &d);
            self.delivered_datagrams += 1;
        }
        if self.snd.poll_timeout().is_some_and(|t| t <= self.now) {
            self.snd.handle_timeout(self.now);
        }
        if self.rcv.poll_timeout().is_some_and(|t| t <= self.now) {
            self.rcv.handle_timeout(self.now);
        }
        true
    }

    /// Runs until both sides finish (or `limit` of virtual time passes).
    pub fn run(&mut self, limit: Dur) {
        while !(self.snd.is_finished() && self.rcv.is_finished(self.now))
            && self.now < Time::ZERO + limit
        {
            if !self.step() {
                break;
            }
        }
    }

    pub fn both_done(&self) -> bool {
        *self.snd.state() == SessionState::Done && *self.rcv.state() == SessionState::Done
    }
}

/// A HELLO datagram with these fields.
pub fn hello(
    conn: u64,
    transport: TransportCode,
    mss: u32,
    total: Option<u64>,
    flow: &[u8],
) -> Vec<u8> {
    let m = Message::Hello {
        conn,
        mss,
        total,
        transport,
        flow,
    };
    let mut buf = vec![0; 64 + flow.len()];
    let n = wire::encode(&m, &mut buf).expect("room");
    buf.truncate(n);
    buf
}

/// The HELLO a sender of `flow_toml` sends (its MSS and size as the table gives them,
/// reduced for a MAC when `keyed`), with the transport byte `transport` if given.
pub fn hello_for(
    flow_toml: &str,
    conn: u64,
    transport: Option<TransportCode>,
    keyed: bool,
) -> Vec<u8> {
    let table: toml::Table = flow_toml.parse().expect("a TOML table");
    let mut f = super::flow_spec(&table, "testnet").expect("a valid flow");
    if keyed {
        f = super::with_mac(f, "testnet").expect("room for a MAC");
    }
    let shape = super::flow_endpoints::shape(&f).expect("a wire transport");
    let text = table.to_string();
    hello(
        conn,
        transport.unwrap_or(shape.transport),
        shape.mss,
        shape.total,
        text.as_bytes(),
    )
}

/// HELLOs a receiver must refuse (counted, answered with a RESET, forgotten), each
/// with what it tries.
pub fn refused_hellos(keyed: bool) -> Vec<(&'static str, Vec<u8>)> {
    let tack = "transport = \"tack\"\nbytes = \"60000B\"";
    let long = format!("{tack}\nname = \"{}\"", "x".repeat(1300));
    vec![
        // 16 + 16 + 2 bytes: the 34-byte HELLO that made `tcplab recv` exit.
        (
            "a flow table that is not UTF-8",
            hello(7, tack_code(), 1000, Some(60_000), &[0xff, 0xfe]),
        ),
        (
            "a flow table that is not TOML",
            hello(8, tack_code(), 1000, Some(60_000), b"bytes = = 3"),
        ),
        (
            "transport byte tcp, table tack",
            hello_for(tack, 9, Some(TransportCode::TCP), keyed),
        ),
        (
            "transport byte tack, table tcp",
            hello_for("bytes = \"60000B\"", 10, Some(tack_code()), keyed),
        ),
        (
            "a flow table longer than a HELLO carries",
            hello_for(&long, 12, None, keyed),
        ),
        ("an MSS the table does not give", {
            let mut h = hello_for(tack, 13, None, keyed);
            h[16..20].copy_from_slice(&999u32.to_be_bytes());
            h
        }),
        (
            "a registered transport this process does not have",
            hello(
                14,
                TransportCode::REGISTERED,
                1400,
                Some(60_000),
                b"transport = \"never-registered\"\nbytes = \"60000B\"",
            ),
        ),
        (
            "transport byte registered, table tcp",
            hello_for(
                "bytes = \"60000B\"",
                15,
                Some(TransportCode::REGISTERED),
                keyed,
            ),
        ),
        (
            "transport byte registered, no table",
            hello(16, TransportCode::REGISTERED, 1400, Some(60_000), b""),
        ),
    ]
}

/// Valid HELLOs from someone who then sends nothing: each claims an unkeyed receiver.
pub fn claiming_hellos(keyed: bool) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "tack",
            hello_for("transport = \"tack\"\nbytes = \"60000B\"", 21, None, keyed),
        ),
        (
            "datagram",
            hello_for(
                "transport = \"datagram\"\nrate = \"20Mbps\"\nbytes = \"60000B\"",
                22,
                None,
                keyed,
            ),
        ),
        (
            "tcp",
            hello(23, TransportCode::TCP, 1000, Some(60_000), b""),
        ),
        (
            // Its sink's state grows with the symbols that arrive, not the declared size.
            "a TCP-Forward flow of 900 GB",
            hello_for(
                "transport = \"tcp-forward\"\nbytes = \"900GB\"",
                11,
                None,
                keyed,
            ),
        ),
    ]
}

/// Flow tables the receiver fuzz entry opens: every transport, and hostile sizes.
pub const FUZZ_TABLES: [&str; 10] = [
    "cc = \"cubic\"\nbytes = \"60000B\"\nrecovery = \"sack\"",
    "transport = \"tack\"\nbytes = \"60000B\"",
    "transport = \"tcp-nc\"\ncc = \"reno\"\nbytes = \"60000B\"",
    "transport = \"tcp-forward\"\nbytes = \"60000B\"",
    "transport = \"datagram\"\nrate = \"20Mbps\"\nbytes = \"60000B\"",
    "transport = \"tcp-forward\"\nbytes = \"90GB\"",
    "transport = \"tack\"\nbytes = \"unlimited\"\nstop = \"1s\"\nrcv_buf = \"90GB\"",
    "transport = \"tcp-nc\"\nbytes = \"900GB\"",
    "transport = \"datagram\"\nrate = \"10Gbps\"\nbytes = \"900GB\"",
    // Registered (`crate::fuzzing::register_fuzzed_transports`): OPAQUE data.
    "transport = \"stopwait-registered\"\nbytes = \"60000B\"",
];

fn tack_code() -> TransportCode {
    TransportCode::from_name("tack").expect("the driver carries TACK")
}
