//! The sending side of a UDP connection, sans-IO: datagrams in, datagrams out, time
//! passed in. It wraps a `tcplab_transport::Sender` with the handshake, the wire format,
//! the checks that keep hostile datagrams away from the endpoint, and the close.

use super::counters::{InputCounters, Paws, TsClock};
use super::SessionState;
use crate::payload;
use crate::wire::{self, Message, Timestamps};
use std::net::SocketAddr;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::Controller;
use tcplab_transport::{Segment, Sender, SenderConfig};

/// HELLO and CLOSE are repeated this often until answered...
const CONTROL_RETRY: Dur = Dur::from_millis(200);
/// ...for this long at most (by default).
pub const CONTROL_TIMEOUT: Dur = Dur::from_secs(5);
/// An open connection whose peer sends nothing valid for this long is abandoned.
pub const IDLE_TIMEOUT: Dur = Dur::from_secs(10);

/// What the receiver reported in its CLOSE_ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerReport {
    pub delivered: u64,
    pub acks_sent: u64,
    pub segments_received: u64,
    pub duplicate_segments: u64,
}

pub struct SenderSession {
    conn: u64,
    peer: SocketAddr,
    total: Option<u64>,
    snd: Sender,
    state: SessionState,
    /// Next HELLO or CLOSE (re)transmission, and when to give up.
    control_at: Option<Time>,
    control_deadline: Time,
    control_timeout: Dur,
    last_heard: Time,
    started_at: Option<Time>,
    paws: Paws,
    ts: TsClock,
    counters: InputCounters,
    report: Option<PeerReport>,
    datagrams_sent: u64,
}

impl SenderSession {
    /// A connection `conn` (non-zero, random) to `peer` that starts at `now`.
    pub fn new(now: Time, peer: SocketAddr, conn: u64, cfg: SenderConfig, cc: Controller) -> Self {
        // The session's own handshake (below) opens the connection; the endpoint's SYN
        // exchange (`handshake = true`, the scenario default) has no wire format here.
        let cfg = SenderConfig {
            handshake: false,
            ..cfg
        };
        SenderSession {
            conn,
            peer,
            total: cfg.total_bytes,
            snd: Sender::new(0, cfg, cc),
            state: SessionState::Handshake,
            control_at: Some(now),
            control_deadline: now + CONTROL_TIMEOUT,
            control_timeout: CONTROL_TIMEOUT,
            last_heard: now,
            started_at: None,
            paws: Paws::default(),
            ts: TsClock::default(),
            counters: InputCounters::default(),
            report: None,
            datagrams_sent: 0,
        }
    }

    /// How long HELLO and CLOSE wait for an answer before the session fails.
    pub fn with_control_timeout(mut self, now: Time, d: Dur) -> Self {
        self.control_timeout = d;
        self.control_deadline = now + d;
        self
    }

    pub fn sender(&self) -> &Sender {
        &self.snd
    }
    pub fn state(&self) -> &SessionState {
        &self.state
    }
    pub fn counters(&self) -> &InputCounters {
        &self.counters
    }
    pub fn report(&self) -> Option<PeerReport> {
        self.report
    }
    pub fn started_at(&self) -> Option<Time> {
        self.started_at
    }
    pub fn datagrams_sent(&self) -> u64 {
        self.datagrams_sent
    }
    pub fn conn(&self) -> u64 {
        self.conn
    }
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }

    /// The application stops writing at `now` (time-limited transfers).
    pub fn stop(&mut self, now: Time) {
        self.snd.stop();
        self.maybe_close(now);
    }

    fn fail(&mut self, why: String) {
        if !matches!(self.state, SessionState::Failed(_)) {
            self.state = SessionState::Failed(why);
        }
    }

    /// Processes one received datagram. Never panics; every datagram is counted.
    pub fn handle_datagram(&mut self, now: Time, from: SocketAddr, bytes: &[u8]) {
        let Some(msg) = self.counters.screen(Some(self.peer), from, bytes) else {
            return;
        };
        if msg.conn() != self.conn {
            self.counters.unknown_conn += 1;
            return;
        }
        match (&self.state, msg) {
            (SessionState::Handshake, Message::HelloAck { .. }) => {
                self.counters.accepted += 1;
                self.state = SessionState::Open;
                self.control_at = None;
                self.started_at = Some(now);
                self.snd.start(now);
            }
            (SessionState::Open | SessionState::Closing, Message::Ack { ts, .. }) => {
                if let Some(t) = ts {
                    if !self.paws.fresh(t.val) {
                        self.counters.replayed += 1;
                        return;
                    }
                }
                let seg = msg.to_segment(0).expect("an ACK is a segment");
                if !self.ack_in_window(&seg) {
                    self.counters.out_of_window += 1;
                    return;
                }
                if let Some(t) = ts {
                    self.paws.update(t.val);
                }
                self.counters.accepted += 1;
                if let Err(v) = self.snd.handle_segment(now, &seg) {
                    self.fail(format!("sender invariant broken: {v}"));
                    return;
                }
                self.maybe_close(now);
            }
            (
                SessionState::Closing,
                Message::CloseAck {
                    delivered,
                    acks_sent,
                    segments_received,
                    duplicate_segments,
                    ..
                },
            ) => {
                self.counters.accepted += 1;
                self.report = Some(PeerReport {
                    delivered,
                    acks_sent,
                    segments_received,
                    duplicate_segments,
                });
                let sent = self.snd.app_bytes().unwrap_or(0);
                self.state = if delivered == sent {
                    SessionState::Done
                } else {
                    SessionState::Failed(format!(
                        "the receiver delivered {delivered} bytes, the sender sent {sent}"
                    ))
                };
                self.control_at = None;
            }
            (_, Message::Reset { reason, .. }) => {
                self.counters.accepted += 1;
                self.fail(format!(
                    "the receiver reset the connection (reason {reason})"
                ));
            }
            // Duplicates of the handshake answer, and anything out of place.
            _ => {
                self.counters.unexpected += 1;
                return;
            }
        }
        self.last_heard = now;
    }

    /// An ACK may only acknowledge and SACK bytes that were sent.
    fn ack_in_window(&self, seg: &Segment) -> bool {
        let max = self.snd.snd_max();
        seg.ack <= max && seg.sack_blocks().iter().all(|b| b.end <= max)
    }

    fn maybe_close(&mut self, now: Time) {
        if self.state == SessionState::Open && self.snd.is_complete() {
            self.state = SessionState::Closing;
            self.control_at = Some(now);
            self.control_deadline = now + self.control_timeout;
        }
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        match self.state {
            SessionState::Handshake | SessionState::Closing if now >= self.control_deadline => {
                let what = if self.state == SessionState::Handshake {
                    format!("no tcplab receiver answered at {}", self.peer)
                } else {
                    format!("the receiver at {} did not confirm the close", self.peer)
                };
                self.fail(format!(
                    "{what} within {:.1} s",
                    self.control_timeout.as_secs_f64()
                ));
            }
            SessionState::Open if now.saturating_since(self.last_heard) >= IDLE_TIMEOUT => {
                self.fail(format!(
                    "the receiver at {} went silent for {:.0} s",
                    self.peer,
                    IDLE_TIMEOUT.as_secs_f64()
                ));
            }
            SessionState::Open => {
                if self.snd.poll_timeout().is_some_and(|t| t <= now) {
                    self.snd.handle_timeout(now);
                }
                self.maybe_close(now);
            }
            _ => {}
        }
    }

    /// The next datagram to send to the peer, written into `buf`; its length.
    pub fn poll_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<usize> {
        if let Some(t) = self.control_at {
            if t <= now {
                self.control_at = Some(now + CONTROL_RETRY);
                let msg = match self.state {
                    SessionState::Handshake => Message::Hello {
                        conn: self.conn,
                        mss: self.snd.window().mss,
                        total: self.total,
                    },
                    _ => Message::Close {
                        conn: self.conn,
                        end: self.snd.app_bytes().unwrap_or(0),
                    },
                };
                self.datagrams_sent += 1;
                return wire::encode(&msg, buf).ok();
            }
        }
        if self.state != SessionState::Open {
            return None;
        }
        let seg = self.snd.poll_transmit(now)?;
        let ts = Timestamps {
            val: self.ts.stamp(now.0),
            ecr: self.paws.recent().unwrap_or(0),
        };
        let h = wire::encode_data_header(
            buf,
            self.conn,
            seg.seq,
            seg.fin,
            seg.retransmission,
            Some(ts),
        )
        .ok()?;
        let end = h + seg.len as usize;
        if end > buf.len() {
            self.fail(format!(
                "MSS {} does not fit a {}-byte datagram buffer",
                seg.len,
                buf.len()
            ));
            return None;
        }
        payload::fill(self.conn, seg.seq, &mut buf[h..end]);
        self.datagrams_sent += 1;
        Some(end)
    }

    /// When `handle_timeout` is next needed.
    pub fn poll_timeout(&self) -> Option<Time> {
        match self.state {
            SessionState::Handshake | SessionState::Closing => {
                let t = self
                    .control_at
                    .map_or(self.control_deadline, |c| c.min(self.control_deadline));
                Some(t)
            }
            SessionState::Open => {
                let idle = self.last_heard + IDLE_TIMEOUT;
                Some(self.snd.poll_timeout().map_or(idle, |t| t.min(idle)))
            }
            _ => None,
        }
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.state, SessionState::Done | SessionState::Failed(_))
    }
}
