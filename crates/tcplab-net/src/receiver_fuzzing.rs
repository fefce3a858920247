//! The stateful fuzz entry for a receiver on an open network: one `ReceiverSession`
//! (keyed or not) fed a sequence of datagrams - raw bytes, HELLOs with fuzzed fields and
//! tables (hostile ones among them: huge transfers, huge windows), data of every
//! transport (registered stop-and-wait's OPAQUE among them) for the connection a HELLO opened, CLOSEs and RESETs, from the peer or a
//! stranger, sealed or not - with time passing between them, its answers drained as a
//! driver would.
//!
//! Invariants (a violation panics, which the fuzzer reports): no panic; every datagram
//! counted exactly once; no datagram breaks an endpoint invariant; TCP out-of-order data
//! stays within the receive window. Memory is bounded by the session's caps: the
//! stable-Rust test runs this under a counting allocator and bounds its peak, and
//! cargo-fuzz's `-rss_limit_mb`/`-malloc_limit_mb` do the same for the fuzz target.

use crate::payload;
use crate::udp::testnet::{hello, sender_addr};
use crate::udp::{ReceiverSession, SessionState, FUZZ_TABLES};
use crate::wire::{self, Key, Message, TransportCode};
use std::net::SocketAddr;
use tcplab_core::{Dur, Time};
use tcplab_transport::coded::{Code, CodedPacket, Symbol};
use tcplab_transport::datagram::Datagram;
use tcplab_transport::opaque_wire;
use tcplab_transport::stopwait::{registered, StopWaitPacket};
use tcplab_transport::tack::{TackData, TackPacket};
use tcplab_transport::{Packet, ReceiverConfig, Segment};

/// The receive window of the fuzzed TCP receivers (bytes).
pub const FUZZ_RCV_BUF: u64 = 256 * 1000;

fn u64_of(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = b.len().min(8);
    a[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(a)
}

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverRun {
    pub datagrams: u64,
    pub claimed: bool,
    pub data_accepted: u64,
    pub released: u64,
}

/// Runs the receiver on `data`: its first byte picks keyed (odd) or not, the rest are
/// chunks `[op, len, bytes...]`. `op % 8`: 0 raw bytes; 1 a HELLO whose table is the
/// bytes (transport, MSS and size from them too); 2 a HELLO of table
/// `FUZZ_TABLES[bytes[0]]` with its own fields, or with the transport byte from
/// `bytes[1]`; 3 TCP DATA, 4 TACK data, 5 a coded SYMBOL, 6 a DATAGRAM or (odd
/// `bytes[9]`) registered stop-and-wait's OPAQUE data, each for the
/// last HELLO's connection at a fuzzed position with valid payload bytes; 7 a CLOSE or
/// RESET, or time passing (up to 4 s, past a claim's release). Bit 3: from a stranger.
/// Bit 4: left unsealed (keyed runs).
pub fn receiver_input(data: &[u8]) -> ReceiverRun {
    let Some((&mode, mut rest)) = data.split_first() else {
        return ReceiverRun::default();
    };
    crate::fuzzing::register_fuzzed_transports();
    let key = (mode & 1 == 1).then(|| Key::new(b"fuzzing key, 32 bytes long......").expect("long"));
    let cfg = ReceiverConfig {
        rcv_buf: FUZZ_RCV_BUF,
        ..ReceiverConfig::default()
    };
    let mut rcv = ReceiverSession::new(cfg, None, Dur::from_secs(10));
    if let Some(k) = &key {
        rcv = rcv.with_key(k.clone(), 1);
    }
    let stranger: SocketAddr = "192.0.2.1:1".parse().expect("valid");
    let mut now = Time::ZERO;
    let mut conn = 1u64;
    let mut nonce = 0u64;
    let mut run = ReceiverRun::default();
    let mut buf = vec![0u8; 70_000];
    let mut out = vec![0u8; 70_000];
    while let [op, len, tail @ ..] = rest {
        let n = (*len as usize).min(tail.len());
        let (b, more) = tail.split_at(n);
        rest = more;
        let from = if op & 8 != 0 { stranger } else { sender_addr() };
        let m = match op % 8 {
            0 => {
                buf[..n].copy_from_slice(b);
                n
            }
            1 | 2 => {
                conn = u64_of(b).max(1);
                let h = if op % 8 == 1 {
                    let mss = (u64_of(b.get(1..).unwrap_or(&[])) % 70_000) as u32;
                    let t = TransportCode::from_u8(b.first().map_or(0, |x| x % 6)).expect("0-5");
                    hello(conn, t, mss.max(1), Some(u64_of(b) >> 8), b)
                } else {
                    let i = b.first().map_or(0, |&x| x as usize) % FUZZ_TABLES.len();
                    let t = b.get(1).and_then(|&x| TransportCode::from_u8(x % 8));
                    crate::udp::testnet::hello_for(FUZZ_TABLES[i], conn, t, key.is_some())
                };
                buf[..h.len()].copy_from_slice(&h);
                h.len()
            }
            3..=6 => {
                let seq = u64_of(b) % (1 << 24);
                let plen = (b.get(8).copied().unwrap_or(1) as usize * 8).clamp(1, 1500);
                let (pkt, k, off) = match op % 8 {
                    3 => (
                        Packet::Tcp(Segment {
                            seq,
                            len: plen as u32,
                            ..Segment::default()
                        }),
                        conn,
                        seq,
                    ),
                    4 => (
                        Packet::Tack(TackPacket::Data(TackData {
                            flow: 0,
                            len: plen as u32,
                            seq,
                            pn: seq / 8,
                            pn_floor: 0,
                            sent_at: now,
                            rtt_min_ns: 0,
                            fin: false,
                            retransmission: false,
                        })),
                        conn,
                        seq,
                    ),
                    5 => {
                        let seed = seq as u32;
                        let (k, off) = payload::symbol_key(conn, seed);
                        let code = if b.get(9).is_some_and(|x| x & 1 == 1) {
                            Code::Lt
                        } else {
                            Code::Rlnc
                        };
                        let start = (seq % 4096) as u32;
                        let span = u32::from(b.get(10).copied().unwrap_or(1)).max(1);
                        let s = Symbol {
                            flow: 0,
                            code,
                            repair: false,
                            start,
                            span,
                            seed,
                            base: start,
                            payload: plen as u32,
                            newest: start.saturating_add(span),
                            entered: Time(u64::from_be_bytes(
                                b.get(11..19)
                                    .and_then(|x| x.try_into().ok())
                                    .unwrap_or([0; 8]),
                            )),
                        };
                        (Packet::Coded(CodedPacket::Symbol(s)), k, off)
                    }
                    _ if b.get(9).is_some_and(|x| x & 1 == 1) => {
                        // Registered stop-and-wait's data, as OPAQUE.
                        let p = StopWaitPacket {
                            seq: seq % 64,
                            len: plen as u32,
                        };
                        (Packet::Opaque(registered::to_opaque(&p)), 0, 0)
                    }
                    _ => {
                        let (k, off) = payload::datagram_key(conn, seq);
                        let d = Datagram {
                            seq,
                            sent_at: now,
                            len: plen as u32,
                        };
                        (Packet::Datagram(d), k, off)
                    }
                };
                let msg = Message::Packet {
                    conn,
                    pkt,
                    ts: None,
                    payload: &[],
                };
                let Ok(h) = wire::encode(&msg, &mut buf) else {
                    continue;
                };
                if let Packet::Opaque(o) = pkt {
                    // Its padding: zeros, as long as its length on the wire gives.
                    let n = opaque_wire::padding(o.wire_len) as usize;
                    buf[h..h + n].fill(0);
                    h + n
                } else {
                    payload::fill(k, off, &mut buf[h..h + plen]);
                    h + plen
                }
            }
            _ => {
                let x = b.first().copied().unwrap_or(0);
                if x < 64 {
                    now += Dur::from_millis(u64::from(x) * 64);
                    if rcv.poll_timeout().is_some_and(|t| t <= now) {
                        rcv.handle_timeout(now);
                    }
                    continue;
                }
                let msg = if x < 160 {
                    Message::Close {
                        conn,
                        end: u64_of(b.get(1..).unwrap_or(&[])),
                        interrupted: x & 1 == 1,
                    }
                } else {
                    Message::Reset { conn, reason: x }
                };
                wire::encode(&msg, &mut buf).unwrap_or(0)
            }
        };
        let sealed = match &key {
            Some(k) if op & 16 == 0 => {
                let nn = wire::mac::nonce_for(buf.get(3).copied().unwrap_or(0), nonce);
                k.seal(nn, &mut buf, m).unwrap_or(m)
            }
            _ => m,
        };
        run.datagrams += 1;
        rcv.handle_datagram(now, from, &buf[..sealed]);
        // Drain the answers as the driver does; learn the session nonce from HELLO_ACK.
        while let Some(k) = rcv.poll_datagram(now, &mut out) {
            let body = match &key {
                Some(key) => key.open(0, &out[..k]),
                None => Some(&out[..k]),
            };
            if let Some(Ok(Message::HelloAck { nonce: Some(x), .. })) = body.map(wire::decode) {
                nonce = x;
            }
        }
        if rcv.poll_timeout().is_some_and(|t| t <= now) {
            rcv.handle_timeout(now);
        }
        let held = rcv.receiver().map_or(0, |r| r.out_of_order_bytes());
        assert!(
            held <= FUZZ_RCV_BUF,
            "out-of-order data beyond the window: {held}"
        );
        run.claimed |= rcv.peer().is_some();
        now += Dur::from_micros(100);
    }
    if let SessionState::Failed(why) = rcv.state() {
        assert!(
            !why.contains("invariant"),
            "a datagram broke an endpoint: {why}"
        );
    }
    assert_eq!(
        rcv.counters().total(),
        run.datagrams,
        "a datagram went uncounted"
    );
    run.data_accepted = rcv.data_accepted();
    run.released = rcv.released();
    run
}
