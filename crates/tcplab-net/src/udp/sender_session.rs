//! The sending side of a UDP connection, sans-IO: datagrams in, datagrams out, time
//! passed in. It wraps the source endpoint of any built-in transport (`AnyEndpoint`:
//! TCP, datagram, TACK, TCP/NC, TCP-Forward) with the handshake, the wire format, the
//! checks that keep hostile datagrams away from the endpoint, and the close.

use super::counters::{InputCounters, Paws, TsClock};
use super::flow_endpoints::FlowShape;
use super::SessionState;
use crate::payload;
use crate::wire::{self, mac, Key, Message, Timestamps};
use std::net::SocketAddr;
use tcplab_core::{Dur, Time};
use tcplab_transport::cc::Controller;
use tcplab_transport::coded::{CodedPacket, Symbol};
use tcplab_transport::tack::TackPacket;
use tcplab_transport::{AnyEndpoint, Endpoint, Packet, Sender, SenderConfig};

/// HELLO and CLOSE are repeated this often until answered...
const CONTROL_RETRY: Dur = Dur::from_millis(200);
/// ...for this long at most (by default).
pub const CONTROL_TIMEOUT: Dur = Dur::from_secs(5);
/// An open connection whose peer sends nothing valid for this long is abandoned.
pub const IDLE_TIMEOUT: Dur = Dur::from_secs(10);
/// An interrupted sender sends its CLOSE twice (at the `CONTROL_RETRY` spacing) and
/// stops waiting for the answer after this long, within Ctrl-C's one second.
const INTERRUPT_GRACE: Dur = Dur::from_millis(2 * 200);

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
    ep: AnyEndpoint,
    shape: FlowShape,
    /// The `[[flow]]` table as TOML, sent in HELLO (the receiver builds its end from it).
    flow_desc: Vec<u8>,
    /// CLOCK_REALTIME (ns) at this session's `Time::ZERO`: send times cross the wire in
    /// real time so the peer can map them onto its own clock.
    epoch_ns: u64,
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
    /// The highest in-order point an accepted ACK reported (bytes).
    acked_bytes: u64,
    /// The pre-shared key and the session nonce from the HELLO_ACK (0 before it).
    key: Option<Key>,
    nonce: u64,
    /// Stopped by [`SenderSession::interrupt`].
    interrupted: bool,
}

impl SenderSession {
    /// A TCP connection `conn` (non-zero, random) to `peer` that starts at `now`.
    pub fn new(now: Time, peer: SocketAddr, conn: u64, cfg: SenderConfig, cc: Controller) -> Self {
        // The session's own handshake (below) opens the connection; the endpoint's SYN
        // exchange (`handshake = true`, the scenario default) has no wire format here.
        let cfg = SenderConfig {
            handshake: false,
            ..cfg
        };
        let shape = FlowShape::tcp(cfg.mss, cfg.total_bytes);
        let ep = AnyEndpoint::TcpSender(Box::new(Sender::new(0, cfg, cc)));
        Self::with_endpoint(now, peer, conn, ep, shape, Vec::new())
    }

    /// A connection running `ep` (a flow's source) whose receiver builds its end from
    /// `flow_desc` (the flow's `[[flow]]` table as TOML).
    pub fn with_endpoint(
        now: Time,
        peer: SocketAddr,
        conn: u64,
        ep: AnyEndpoint,
        shape: FlowShape,
        flow_desc: Vec<u8>,
    ) -> Self {
        SenderSession {
            conn,
            peer,
            total: shape.total,
            ep,
            shape,
            flow_desc,
            epoch_ns: 0,
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
            acked_bytes: 0,
            key: None,
            nonce: 0,
            interrupted: false,
        }
    }

    /// Authenticates every datagram with `key` (the receiver must hold the same key).
    pub fn with_key(mut self, key: Key) -> Self {
        self.key = Some(key);
        self
    }

    /// How long HELLO and CLOSE wait for an answer before the session fails.
    pub fn with_control_timeout(mut self, now: Time, d: Dur) -> Self {
        self.control_timeout = d;
        self.control_deadline = now + d;
        self
    }

    /// The send times on the wire are this (CLOCK_REALTIME ns at `Time::ZERO`) plus the
    /// session's time.
    pub fn with_epoch(mut self, epoch_ns: u64) -> Self {
        self.epoch_ns = epoch_ns;
        self
    }

    /// The TCP sender, for TCP flows.
    pub fn tcp_sender(&self) -> Option<&Sender> {
        match &self.ep {
            AnyEndpoint::TcpSender(s) => Some(s),
            _ => None,
        }
    }
    /// The flow's source endpoint.
    pub fn endpoint(&self) -> &AnyEndpoint {
        &self.ep
    }
    pub fn shape(&self) -> &FlowShape {
        &self.shape
    }
    /// Every byte written is acknowledged (reliable) or sent (unreliable), and the
    /// writer has stopped or reached its byte count.
    pub fn source_complete(&self) -> bool {
        match &self.ep {
            AnyEndpoint::TcpSender(s) => s.is_complete(),
            e => e.progress().finished_at.is_some(),
        }
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
    /// The highest in-order point (bytes) the receiver's accepted ACKs reported: TCP's
    /// cumulative ACK, TACK's rcv_nxt, TCP-Forward's decoded prefix.
    pub fn acked_bytes(&self) -> u64 {
        self.acked_bytes
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

    /// Stopped by [`SenderSession::interrupt`].
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Stops at once (Ctrl-C). Before the receiver answered, the session just ends;
    /// after, the source stops, the receiver is told with a CLOSE marked interrupted, and
    /// the session ends on its CLOSE_ACK or `INTERRUPT_GRACE` later.
    pub fn interrupt(&mut self, now: Time) {
        self.interrupted = true;
        match self.state {
            SessionState::Open | SessionState::Closing => {
                self.ep.stop(now);
                self.state = SessionState::Closing;
                self.control_at = Some(now);
                self.control_deadline = now + INTERRUPT_GRACE;
            }
            _ => self.fail("interrupted".into()),
        }
    }

    /// The application stops writing at `now` (time-limited transfers).
    pub fn stop(&mut self, now: Time) {
        self.ep.stop(now);
        self.maybe_close(now);
    }

    fn fail(&mut self, why: String) {
        if !matches!(self.state, SessionState::Failed(_)) {
            self.state = SessionState::Failed(why);
        }
    }

    /// Processes one received datagram. Never panics; every datagram is counted.
    pub fn handle_datagram(&mut self, now: Time, from: SocketAddr, bytes: &[u8]) {
        let key = self.key.as_ref();
        let Some(msg) = self
            .counters
            .screen(Some(self.peer), from, bytes, key, self.nonce)
        else {
            return;
        };
        if msg.conn() != self.conn {
            self.counters.unknown_conn += 1;
            return;
        }
        match (&self.state, msg) {
            (SessionState::Handshake, Message::HelloAck { nonce, .. }) => {
                if self.key.is_some() {
                    match nonce {
                        Some(n) if n != 0 => self.nonce = n,
                        _ => {
                            self.counters.unexpected += 1;
                            return;
                        }
                    }
                }
                self.counters.accepted += 1;
                self.state = SessionState::Open;
                self.control_at = None;
                self.started_at = Some(now);
                self.ep.start(now);
            }
            (
                SessionState::Open | SessionState::Closing,
                Message::Ack { ts, .. }
                | Message::TackAck { ts, .. }
                | Message::CodedAck { ts, .. },
            ) if self.shape.acks_with(msg.kind()) => {
                if let Some(t) = ts {
                    if !self.paws.fresh(t.val) {
                        self.counters.replayed += 1;
                        return;
                    }
                }
                let pkt = msg.to_packet(0).expect("an ACK is a packet");
                if !self.ack_in_window(&pkt) {
                    self.counters.out_of_window += 1;
                    return;
                }
                if let Some(t) = ts {
                    self.paws.update(t.val);
                }
                self.counters.accepted += 1;
                let point = match msg {
                    Message::Ack { ack, .. } => ack,
                    Message::TackAck { ack, .. } => ack.rcv_nxt,
                    Message::CodedAck { cum, .. } => {
                        let b = u64::from(cum) * u64::from(self.shape.mss);
                        self.shape.total.map_or(b, |t| b.min(t))
                    }
                    _ => 0,
                };
                self.acked_bytes = self.acked_bytes.max(point);
                if let Err(v) = self.ep.handle_packet(now, &pkt) {
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
                let sent = self.ep.progress().app_bytes;
                self.state = if delivered == sent || !self.shape.reliable || self.interrupted {
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
                self.fail(match reason {
                    super::RESET_REFUSED => "the receiver refused the flow (its report says \
                                             why)"
                        .to_string(),
                    super::RESET_INTERRUPTED => "the receiver was interrupted".to_string(),
                    r => format!("the receiver reset the connection (reason {r})"),
                });
            }
            // Duplicates of the handshake answer, and anything out of place.
            _ => {
                self.counters.unexpected += 1;
                return;
            }
        }
        self.last_heard = now;
    }

    /// An ACK may only acknowledge (and SACK) bytes or segments that were sent.
    fn ack_in_window(&self, pkt: &Packet) -> bool {
        let max = self.ep.progress().sent_bytes;
        match pkt {
            Packet::Tcp(seg) => seg.ack <= max && seg.sack_blocks().iter().all(|b| b.end <= max),
            Packet::Tack(TackPacket::Ack(a)) => a.rcv_nxt <= max,
            Packet::Coded(CodedPacket::Ack(a)) => {
                let segs = self.shape.segments().unwrap_or(u64::from(u32::MAX));
                u64::from(a.index) < segs && u64::from(a.cum) <= segs
            }
            _ => false,
        }
    }

    fn maybe_close(&mut self, now: Time) {
        if self.state == SessionState::Open && self.source_complete() {
            self.state = SessionState::Closing;
            self.control_at = Some(now);
            self.control_deadline = now + self.control_timeout;
        }
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        match self.state {
            SessionState::Closing if self.interrupted && now >= self.control_deadline => {
                self.fail("interrupted (the receiver did not confirm the close)".into());
            }
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
            SessionState::Open
                if self.shape.reliable && now.saturating_since(self.last_heard) >= IDLE_TIMEOUT =>
            {
                self.fail(format!(
                    "the receiver at {} went silent for {:.0} s",
                    self.peer,
                    IDLE_TIMEOUT.as_secs_f64()
                ));
            }
            SessionState::Open => {
                if self.ep.poll_timeout().is_some_and(|t| t <= now) {
                    self.ep.handle_timeout(now);
                }
                self.maybe_close(now);
            }
            _ => {}
        }
    }

    /// The next datagram to send to the peer, written into `buf`; its length.
    pub fn poll_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<usize> {
        let tag = if self.key.is_some() { wire::TAG_LEN } else { 0 };
        let room = buf.len().saturating_sub(tag);
        let n = self.next_datagram(now, &mut buf[..room])?;
        match &self.key {
            Some(k) => k.seal(mac::nonce_for(buf[3], self.nonce), buf, n),
            None => Some(n),
        }
    }

    fn next_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<usize> {
        // A source may finish while sending (an unreliable one has no ACK to wait for).
        self.maybe_close(now);
        if let Some(t) = self.control_at {
            if t <= now {
                self.control_at = Some(now + CONTROL_RETRY);
                let msg = match self.state {
                    SessionState::Handshake => Message::Hello {
                        conn: self.conn,
                        mss: self.shape.mss,
                        total: self.total,
                        transport: self.shape.transport,
                        flow: &self.flow_desc,
                    },
                    _ => Message::Close {
                        conn: self.conn,
                        end: self.ep.progress().app_bytes,
                        interrupted: self.interrupted,
                    },
                };
                self.datagrams_sent += 1;
                return wire::encode(&msg, buf).ok();
            }
        }
        if self.state != SessionState::Open {
            return None;
        }
        loop {
            let pkt = self.ep.poll_transmit(now)?;
            match self.encode(now, &pkt, buf) {
                Ok(Some(n)) => {
                    self.datagrams_sent += 1;
                    return Some(n);
                }
                Ok(None) => continue,
                Err(why) => {
                    self.fail(why);
                    return None;
                }
            }
        }
    }

    /// Writes `pkt` as a datagram with its payload bytes; `None` for a packet a source
    /// has no business sending (skipped).
    fn encode(&mut self, now: Time, pkt: &Packet, buf: &mut [u8]) -> Result<Option<usize>, String> {
        let conn = self.conn;
        let (header, offset, key, len) = match *pkt {
            Packet::Tcp(seg) if seg.len > 0 => {
                let ts = Timestamps {
                    val: self.ts.stamp(now.0),
                    ecr: self.paws.recent().unwrap_or(0),
                };
                let h = wire::encode_data_header(
                    buf,
                    conn,
                    seg.seq,
                    seg.fin,
                    seg.retransmission,
                    Some(ts),
                    seg.ts,
                );
                (h, seg.seq, conn, seg.len)
            }
            Packet::Datagram(d) => {
                let m = Message::Datagram {
                    conn,
                    seq: d.seq,
                    sent_at_ns: self.epoch_ns.saturating_add(d.sent_at.0),
                    payload: &[],
                };
                let (key, off) = payload::datagram_key(conn, d.seq);
                (wire::encode(&m, buf), off, key, d.len)
            }
            Packet::Tack(TackPacket::Data(d)) => {
                let m = Message::TackData {
                    conn,
                    seq: d.seq,
                    pn: d.pn,
                    pn_floor: d.pn_floor,
                    sent_at_ns: self.epoch_ns.saturating_add(d.sent_at.0),
                    rtt_min_ns: d.rtt_min_ns,
                    fin: d.fin,
                    retransmission: d.retransmission,
                    payload: &[],
                };
                (wire::encode(&m, buf), d.seq, conn, d.len)
            }
            Packet::Coded(CodedPacket::Symbol(Symbol {
                code,
                start,
                span,
                seed,
                base,
                payload: len,
                repair,
                ..
            })) => {
                let m = Message::Symbol {
                    conn,
                    code,
                    repair,
                    start,
                    span,
                    seed,
                    base,
                    payload: &[],
                };
                let (key, off) = payload::symbol_key(conn, seed);
                (wire::encode(&m, buf), off, key, len)
            }
            Packet::Opaque(_) => {
                return Err("a registered transport's packets have no wire format".into())
            }
            _ => return Ok(None),
        };
        let h = header.map_err(|e| format!("encoding a datagram: {e}"))?;
        let end = h + len as usize;
        if end > buf.len() {
            return Err(format!(
                "a {len}-byte payload does not fit a {}-byte datagram buffer",
                buf.len()
            ));
        }
        payload::fill(key, offset, &mut buf[h..end]);
        Ok(Some(end))
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
                // Only a reliable flow's sink answers: silence means something else.
                let idle = self
                    .shape
                    .reliable
                    .then_some(self.last_heard + IDLE_TIMEOUT);
                match (self.ep.poll_timeout(), idle) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
            _ => None,
        }
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.state, SessionState::Done | SessionState::Failed(_))
    }
}
