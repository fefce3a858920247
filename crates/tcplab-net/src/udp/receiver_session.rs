//! The receiving side of a UDP connection, sans-IO. It listens for one HELLO (from any
//! address), then serves that peer and connection only, checking every data datagram
//! before the `tcplab_transport::Receiver` sees it.

use super::counters::{InputCounters, Paws, TsClock};
use super::SessionState;
use crate::payload;
use crate::wire::{self, Message, Timestamps};
use std::net::SocketAddr;
use tcplab_core::{Dur, Time};
use tcplab_transport::{Receiver, ReceiverConfig};

/// After the close, answer repeated CLOSEs this long (the sender may miss our CLOSE_ACK).
const LINGER: Dur = Dur::from_millis(500);

pub struct ReceiverSession {
    cfg: ReceiverConfig,
    /// Before the first HELLO: give up listening at this time (`None`: wait forever).
    listen_until: Option<Time>,
    idle_timeout: Dur,
    peer: Option<SocketAddr>,
    conn: u64,
    mss: u32,
    total: Option<u64>,
    rcv: Option<Receiver>,
    state: SessionState,
    /// Control answers owed (HELLO_ACK / CLOSE_ACK), one per request received.
    owe_hello_ack: bool,
    owe_close_ack: bool,
    linger_until: Option<Time>,
    last_heard: Time,
    started_at: Option<Time>,
    paws: Paws,
    ts: TsClock,
    counters: InputCounters,
    /// Data datagrams accepted (the Receiver's own stats count segments too).
    payload_bytes: u64,
}

impl ReceiverSession {
    /// `cfg` gives the ACK policy, SACK and receive buffer; MSS and size come from HELLO.
    pub fn new(cfg: ReceiverConfig, listen_until: Option<Time>, idle_timeout: Dur) -> Self {
        ReceiverSession {
            cfg,
            listen_until,
            idle_timeout,
            peer: None,
            conn: 0,
            mss: 0,
            total: None,
            rcv: None,
            state: SessionState::Handshake,
            owe_hello_ack: false,
            owe_close_ack: false,
            linger_until: None,
            last_heard: Time::ZERO,
            started_at: None,
            paws: Paws::default(),
            ts: TsClock::default(),
            counters: InputCounters::default(),
            payload_bytes: 0,
        }
    }

    pub fn receiver(&self) -> Option<&Receiver> {
        self.rcv.as_ref()
    }
    pub fn state(&self) -> &SessionState {
        &self.state
    }
    pub fn counters(&self) -> &InputCounters {
        &self.counters
    }
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }
    pub fn started_at(&self) -> Option<Time> {
        self.started_at
    }
    pub fn mss(&self) -> u32 {
        self.mss
    }
    pub fn total(&self) -> Option<u64> {
        self.total
    }
    pub fn payload_bytes(&self) -> u64 {
        self.payload_bytes
    }

    fn fail(&mut self, why: String) {
        if !matches!(self.state, SessionState::Failed(_)) {
            self.state = SessionState::Failed(why);
        }
    }

    /// Processes one received datagram. Never panics; every datagram is counted.
    pub fn handle_datagram(&mut self, now: Time, from: SocketAddr, bytes: &[u8]) {
        let Some(msg) = self.counters.screen(self.peer, from, bytes) else {
            return;
        };
        let Some(_) = self.peer else {
            // Listening: only a HELLO opens a connection.
            match msg {
                Message::Hello { conn, mss, total } if conn != 0 => {
                    let mut cfg = self.cfg.clone();
                    cfg.mss = mss;
                    cfg.total_bytes = total;
                    self.rcv = Some(Receiver::new(0, cfg));
                    self.peer = Some(from);
                    self.conn = conn;
                    self.mss = mss;
                    self.total = total;
                    self.state = SessionState::Open;
                    self.owe_hello_ack = true;
                    self.started_at = Some(now);
                    self.last_heard = now;
                    self.counters.accepted += 1;
                }
                _ => self.counters.unexpected += 1,
            }
            return;
        };
        if msg.conn() != self.conn {
            self.counters.unknown_conn += 1;
            return;
        }
        match msg {
            Message::Hello { mss, total, .. } if mss == self.mss && total == self.total => {
                // Our HELLO_ACK was lost: answer again.
                self.owe_hello_ack = true;
                self.counters.accepted += 1;
            }
            Message::Data { .. } if self.state == SessionState::Open => {
                if !self.handle_data(now, &msg) {
                    return;
                }
            }
            Message::Close { end, .. } => {
                self.counters.accepted += 1;
                self.owe_close_ack = true;
                let delivered = self.rcv.as_ref().map_or(0, Receiver::rcv_nxt);
                if self.state == SessionState::Open {
                    self.state = if delivered == end {
                        SessionState::Done
                    } else {
                        SessionState::Failed(format!(
                            "the sender closed at byte {end}, {delivered} delivered"
                        ))
                    };
                }
                self.linger_until = Some(now + LINGER);
            }
            Message::Reset { reason, .. } => {
                self.counters.accepted += 1;
                self.fail(format!("the sender reset the connection (reason {reason})"));
            }
            _ => {
                self.counters.unexpected += 1;
                return;
            }
        }
        self.last_heard = now;
    }

    /// Checks a DATA message and hands it to the receiver; false if rejected.
    fn handle_data(&mut self, now: Time, msg: &Message<'_>) -> bool {
        let Message::Data {
            seq,
            ts,
            payload: data,
            ..
        } = *msg
        else {
            return false;
        };
        let rcv = self.rcv.as_ref().expect("open connections have a receiver");
        let rcv_nxt = rcv.rcv_nxt();
        let len = data.len() as u64;
        // The sender cuts the stream at multiples of its MSS; only the last segment of a
        // finite transfer is shorter. Anything else did not come from a sane sender.
        let mss = self.mss as u64;
        let expected_len = self.total.map_or(mss, |t| t.saturating_sub(seq).min(mss));
        let window_end = rcv_nxt.saturating_add(self.cfg.rcv_buf);
        if seq % mss != 0 || len != expected_len || seq.saturating_add(len) > window_end {
            self.counters.out_of_window += 1;
            return false;
        }
        if let Some(t) = ts {
            if !self.paws.fresh(t.val) && seq + len <= rcv_nxt {
                // An old segment with an old timestamp: a replay or a stale duplicate.
                self.counters.replayed += 1;
                return false;
            }
        }
        if payload::verify(self.conn, seq, data).is_some() {
            self.counters.corrupt_payload += 1;
            return false;
        }
        if let Some(t) = ts {
            // RFC 7323: TS.Recent follows segments at the left edge of the window.
            if seq <= rcv_nxt {
                self.paws.update(t.val);
            }
        }
        let seg = msg.to_segment(0).expect("data is a segment");
        self.counters.accepted += 1;
        self.payload_bytes += len;
        let rcv = self.rcv.as_mut().expect("open connections have a receiver");
        if seg.ts.is_some() {
            // The sender uses RFC 7323 timestamps (option kind 3): echo them.
            rcv.use_timestamps();
        }
        if let Err(v) = rcv.handle_segment(now, &seg) {
            self.fail(format!("receiver invariant broken: {v}"));
            return false;
        }
        true
    }

    pub fn handle_timeout(&mut self, now: Time) {
        if self.peer.is_none() {
            if self.listen_until.is_some_and(|t| now >= t) {
                self.fail("no sender connected".into());
            }
            return;
        }
        if self.state == SessionState::Open
            && now.saturating_since(self.last_heard) >= self.idle_timeout
        {
            self.fail(format!(
                "the sender went silent for {:.0} s",
                self.idle_timeout.as_secs_f64()
            ));
            return;
        }
        if let Some(r) = self.rcv.as_mut() {
            if r.poll_timeout().is_some_and(|t| t <= now) {
                r.handle_timeout(now);
            }
        }
    }

    fn stamp(&mut self, now: Time) -> Timestamps {
        Timestamps {
            val: self.ts.stamp(now.0),
            ecr: self.paws.recent().unwrap_or(0),
        }
    }

    pub fn poll_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<usize> {
        if self.owe_hello_ack {
            self.owe_hello_ack = false;
            let m = Message::HelloAck {
                conn: self.conn,
                mss: self.mss,
                rcv_buf: self.cfg.rcv_buf,
            };
            return wire::encode(&m, buf).ok();
        }
        // ACKs before the CLOSE_ACK, so the sender never hears of a close before the data.
        if let Some(seg) = self.rcv.as_mut().and_then(|r| r.poll_transmit(now)) {
            let ts = self.stamp(now);
            return wire::encode(&Message::ack_of(self.conn, &seg, Some(ts)), buf).ok();
        }
        if self.owe_close_ack {
            self.owe_close_ack = false;
            let (delivered, st) = self
                .rcv
                .as_ref()
                .map_or((0, Default::default()), |r| (r.rcv_nxt(), *r.stats()));
            let m = Message::CloseAck {
                conn: self.conn,
                delivered,
                acks_sent: st.acks_sent,
                segments_received: st.segments_received,
                duplicate_segments: st.duplicate_segments,
            };
            return wire::encode(&m, buf).ok();
        }
        None
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        let mut t = None::<Time>;
        let mut consider = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |y| y.min(x)));
            }
        };
        if self.peer.is_none() {
            consider(self.listen_until);
        } else if self.state == SessionState::Open {
            consider(Some(self.last_heard + self.idle_timeout));
        }
        consider(self.rcv.as_ref().and_then(Receiver::poll_timeout));
        consider(self.linger_until);
        t
    }

    /// Done (or failed) and no longer lingering for the sender's repeated CLOSEs.
    pub fn is_finished(&self, now: Time) -> bool {
        match self.state {
            SessionState::Failed(_) => true,
            SessionState::Done => self.linger_until.is_none_or(|t| now >= t),
            _ => false,
        }
    }
}
