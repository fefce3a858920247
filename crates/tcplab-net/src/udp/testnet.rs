//! A virtual network for sessions: both sides on one virtual clock, datagrams delayed
//! and optionally dropped, and a hook to inject foreign datagrams. Used by the session
//! tests and the fuzz entry points; no sockets.

use super::{ReceiverSession, SenderSession, SessionState};
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
        }
    }

    /// A transfer of the flow `flow_toml` (one `[[flow]]` table, any built-in transport)
    /// with one-way `delay` and random `loss` each way.
    pub fn for_flow(flow_toml: &str, delay: Dur, loss: f64, seed: u64) -> Pair {
        let table: toml::Table = flow_toml.parse().expect("a TOML table");
        let f = super::flow_spec(&table, "testnet").expect("a valid flow");
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
        p
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
        while let Some(n) = self.rcv.poll_datagram(self.now, &mut self.buf) {
            if self.rng.next_f64() >= self.loss {
                self.to_snd.push_back((t, self.buf[..n].to_vec()));
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
