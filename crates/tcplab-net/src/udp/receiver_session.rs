//! The receiving side of a UDP connection, sans-IO. It listens for a HELLO (from any
//! address), builds the flow's sink from it (a TCP `Receiver` from its own settings, any
//! other transport from the `[[flow]]` table the HELLO carries), then serves that peer
//! and connection only, checking every data datagram before the sink sees it.
//!
//! Built for an open network: a HELLO it cannot serve is counted, answered with a RESET
//! and forgotten (the session keeps listening); a HELLO that claims the session but is
//! followed by no data within [`CLAIM_TIMEOUT`] is released, so the next peer is served;
//! what a HELLO can make the session hold is capped ([`MAX_REACH`]; no sink sizes its state
//! by a declared transfer);
//! with a pre-shared key nothing without a valid MAC is read at all.

use super::counters::{InputCounters, Paws, SeenWindow, TsClock};
use super::flow_endpoints::{self, FlowShape};
use super::SessionState;
use crate::payload;
use crate::wire::{self, mac, Key, Message, Timestamps, TransportCode};
use std::net::SocketAddr;
use tcplab_core::{Dur, Rng, Time};
use tcplab_transport::coded::SymbolBytes;
use tcplab_transport::{
    AnyEndpoint, Endpoint, Packet, Receiver, ReceiverConfig, TransportSpec, WireClaim,
};

/// RESET reasons: the HELLO was refused (its reason is in the receiver's report)...
pub const RESET_REFUSED: u8 = 2;
/// ...or the receiver was interrupted (Ctrl-C).
pub const RESET_INTERRUPTED: u8 = 3;
/// A claimed session with no data accepted this long after its HELLO is released.
/// RFC 6298 (section 5.7) falls back to a 3 s RTO when the SYN or its answer was lost:
/// a handshake not completed within it is taken as one that will not be. It is below
/// the sender's 5 s `CONTROL_TIMEOUT`, so a sender kept out by a forged HELLO is still
/// served by its HELLO retries (every 200 ms) before it gives up.
pub const CLAIM_TIMEOUT: Dur = Dur::from_secs(3);
/// Stream data may run at most this far past the delivered point, whatever receive
/// buffer a HELLO's flow table declares: TCP's largest window (RFC 7323 section 2.3,
/// window scale 14: 2^30 bytes). Bounds the out-of-order ranges a peer can make the
/// sink track.
pub const MAX_REACH: u64 = 1 << 30;
/// Connections recently served: a HELLO for one of them again is a replay, refused.
const RECENT_CONNS: usize = 16;

/// Coded symbols may reach this many segments past the delivered point of an unlimited
/// flow (a bound on what a forged window can make the decoder track).
const SYMBOL_REACH: u64 = 1 << 16;
/// TACK packet numbers may run this far ahead of the highest seen.
const PN_REACH: u64 = 1 << 20;

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
    transport: TransportCode,
    /// Its scenario name (a registered transport's from the HELLO's flow table).
    transport_name: String,
    /// The HELLO's flow description (compared on repeated HELLOs).
    flow_desc: Vec<u8>,
    shape: FlowShape,
    rcv: Option<AnyEndpoint>,
    state: SessionState,
    /// Control answers owed (HELLO_ACK / CLOSE_ACK / RESET), one per request received.
    owe_hello_ack: bool,
    owe_close_ack: bool,
    owe_reset: bool,
    /// CLOCK_REALTIME (ns) at this session's `Time::ZERO` (see `SenderSession`).
    epoch_ns: u64,
    /// The pre-shared key, the nonce of the claimed session (0 while listening) and
    /// where the next session's nonce comes from.
    key: Option<Key>,
    nonce: u64,
    nonces: Rng,
    /// Where the owed RESET goes (a refused HELLO's source, or the peer).
    reset_to: Option<SocketAddr>,
    reset_conn: u64,
    reset_reason: u8,
    /// Connections that claimed this session lately (a ring).
    recent: [u64; RECENT_CONNS],
    recent_at: usize,
    /// Claims released for want of data, and why the last HELLO was refused.
    released: u64,
    last_refusal: Option<String>,
    /// The sender closed early (it was interrupted).
    sender_interrupted: bool,
    /// Interrupted here: nothing but the owed RESET goes out.
    stopped: bool,
    /// Datagram flows: which sequence numbers arrived lately (duplicates are replays).
    seen: SeenWindow,
    /// TACK: the highest packet number accepted.
    pn_max: Option<u64>,
    data_accepted: u64,
    acks_sent: u64,
    /// The IP ECN field of the datagram [`Self::poll_datagram`] wrote last.
    last_ecn: u8,
    linger_until: Option<Time>,
    last_heard: Time,
    started_at: Option<Time>,
    paws: Paws,
    ts: TsClock,
    counters: InputCounters,
    /// Data datagrams accepted (the Receiver's own stats count segments too).
    payload_bytes: u64,
    /// `payload = true` coded flows: the sink's store, given each symbol's coded bytes
    /// (which are not generated bytes to verify).
    symbol_bytes: Option<SymbolBytes>,
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
            transport: TransportCode::TCP,
            transport_name: String::new(),
            flow_desc: Vec::new(),
            shape: FlowShape::tcp(1, None),
            rcv: None,
            state: SessionState::Handshake,
            owe_hello_ack: false,
            owe_close_ack: false,
            owe_reset: false,
            epoch_ns: 0,
            key: None,
            nonce: 0,
            nonces: Rng::from_seed(0),
            reset_to: None,
            reset_conn: 0,
            reset_reason: RESET_REFUSED,
            recent: [0; RECENT_CONNS],
            recent_at: 0,
            released: 0,
            last_refusal: None,
            sender_interrupted: false,
            stopped: false,
            seen: SeenWindow::default(),
            pn_max: None,
            data_accepted: 0,
            acks_sent: 0,
            last_ecn: 0,
            linger_until: None,
            last_heard: Time::ZERO,
            started_at: None,
            paws: Paws::default(),
            ts: TsClock::default(),
            counters: InputCounters::default(),
            payload_bytes: 0,
            symbol_bytes: None,
        }
    }

    /// See `SenderSession::with_epoch`.
    pub fn with_epoch(mut self, epoch_ns: u64) -> Self {
        self.epoch_ns = epoch_ns;
        self
    }

    /// Authenticates every datagram with `key`; each session's nonce is drawn from a
    /// stream seeded with `nonce_seed` (random in the driver, fixed in tests).
    pub fn with_key(mut self, key: Key, nonce_seed: u64) -> Self {
        self.key = Some(key);
        self.nonces = Rng::named(nonce_seed, "udp.receiver.nonce");
        self
    }

    /// The TCP receiver, for TCP flows.
    pub fn receiver(&self) -> Option<&Receiver> {
        match self.rcv.as_ref()? {
            AnyEndpoint::TcpReceiver(r) => Some(r),
            _ => None,
        }
    }
    /// The flow's sink (once a HELLO opened the connection).
    pub fn sink(&self) -> Option<&AnyEndpoint> {
        self.rcv.as_ref()
    }
    pub fn transport(&self) -> TransportCode {
        self.transport
    }
    /// The flow's transport by its scenario name (`tcp`, `stopwait`, a registered
    /// name...), once a HELLO opened the connection.
    pub fn transport_name(&self) -> &str {
        &self.transport_name
    }
    /// Bytes delivered to the application so far.
    pub fn delivered(&self) -> u64 {
        self.rcv.as_ref().map_or(0, |r| r.progress().app_bytes)
    }
    /// Data datagrams accepted and ACK datagrams sent.
    pub fn data_accepted(&self) -> u64 {
        self.data_accepted
    }
    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
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
    /// Claims released because no data followed their HELLO.
    pub fn released(&self) -> u64 {
        self.released
    }
    /// Why the last refused HELLO was refused.
    pub fn last_refusal(&self) -> Option<&str> {
        self.last_refusal.as_deref()
    }
    /// The sender ended the transfer early (Ctrl-C) and said so in its CLOSE.
    pub fn sender_interrupted(&self) -> bool {
        self.sender_interrupted
    }
    /// Where the next datagram goes: an owed RESET's address, else the peer.
    pub fn dest(&self) -> Option<SocketAddr> {
        if self.owe_reset {
            self.reset_to.or(self.peer)
        } else {
            self.peer
        }
    }

    /// Stops at once (Ctrl-C): a peer is told with a RESET.
    pub fn interrupt(&mut self, _now: Time) {
        if let Some(p) = self.peer {
            self.owe_reset = true;
            self.reset_to = Some(p);
            self.reset_conn = self.conn;
            self.reset_reason = RESET_INTERRUPTED;
        }
        self.owe_hello_ack = false;
        self.owe_close_ack = false;
        self.linger_until = None;
        self.stopped = true;
        self.fail("interrupted".into());
    }

    /// Forgets a claim that brought no data: listening again, as before its HELLO.
    fn release(&mut self) {
        self.released += 1;
        self.peer = None;
        self.conn = 0;
        self.nonce = 0;
        self.rcv = None;
        self.symbol_bytes = None;
        self.flow_desc = Vec::new();
        self.state = SessionState::Handshake;
        self.owe_hello_ack = false;
        self.started_at = None;
        self.seen = SeenWindow::default();
        self.pn_max = None;
        self.paws = Paws::default();
        self.shape = FlowShape::tcp(1, None);
    }

    fn fail(&mut self, why: String) {
        if !matches!(self.state, SessionState::Failed(_)) {
            self.state = SessionState::Failed(why);
        }
    }

    /// Processes one received datagram. Never panics; every datagram is counted.
    pub fn handle_datagram(&mut self, now: Time, from: SocketAddr, bytes: &[u8]) {
        self.handle_datagram_ecn(now, from, bytes, 0)
    }

    /// [`Self::handle_datagram`] for a datagram whose IP header carried the ECN field
    /// `ecn` (its two low bits; RFC 3168 section 5): its packet reaches the sink with it,
    /// as a simulated link's CE mark does.
    pub fn handle_datagram_ecn(&mut self, now: Time, from: SocketAddr, bytes: &[u8], ecn: u8) {
        let key = self.key.as_ref();
        let Some(msg) = self
            .counters
            .screen(self.peer, from, bytes, key, self.nonce)
        else {
            return;
        };
        let Some(_) = self.peer else {
            // Listening: only a HELLO opens a connection.
            match msg {
                Message::Hello {
                    conn,
                    mss,
                    total,
                    transport,
                    flow,
                } if conn != 0 => self.hello(now, from, conn, mss, total, transport, flow),
                _ => self.counters.unexpected += 1,
            }
            return;
        };
        if msg.conn() != self.conn {
            self.counters.unknown_conn += 1;
            return;
        }
        match msg {
            Message::Hello {
                mss,
                total,
                transport,
                flow,
                ..
            } if mss == self.mss
                && total == self.total
                && transport == self.transport
                && flow == self.flow_desc.as_slice() =>
            {
                // Our HELLO_ACK was lost: answer again.
                self.owe_hello_ack = true;
                self.counters.accepted += 1;
            }
            Message::Packet {
                mut pkt,
                ts,
                payload,
                ..
            } if self.state == SessionState::Open && self.shape.source_sends(&pkt) => {
                pkt.set_ip_ecn(ecn);
                if !self.handle_data(now, pkt, ts, payload) {
                    return;
                }
            }
            Message::Close { .. } | Message::Reset { .. }
                if self.state == SessionState::Open && self.data_accepted == 0 =>
            {
                // A claim that ends before any data is not a transfer to report (nor a
                // way for two forged datagrams to end the receiver): listen again.
                self.counters.unexpected += 1;
                self.release();
                return;
            }
            Message::Close {
                end, interrupted, ..
            } => {
                self.counters.accepted += 1;
                self.owe_close_ack = true;
                let delivered = self.delivered();
                if self.state == SessionState::Open {
                    self.sender_interrupted = interrupted;
                    self.state = if delivered == end || !self.shape.reliable || interrupted {
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

    /// A HELLO while listening: claim the session for its sender, or refuse it (counted,
    /// answered with a RESET, forgotten).
    #[allow(clippy::too_many_arguments)]
    fn hello(
        &mut self,
        now: Time,
        from: SocketAddr,
        conn: u64,
        mss: u32,
        total: Option<u64>,
        transport: TransportCode,
        flow: &[u8],
    ) {
        let built = if self.recent.contains(&conn) {
            Err("its connection was served before (a replayed HELLO)".to_string())
        } else {
            self.open(conn, mss, total, transport, flow)
        };
        match built {
            Ok(Opened {
                shape,
                sink,
                symbol_bytes,
                name,
            }) => {
                self.peer = Some(from);
                self.conn = conn;
                self.mss = mss;
                self.total = total;
                self.transport = transport;
                self.transport_name = name;
                self.flow_desc = flow.to_vec();
                self.started_at = Some(now);
                self.last_heard = now;
                self.shape = shape;
                self.symbol_bytes = symbol_bytes;
                self.rcv = Some(sink);
                self.state = SessionState::Open;
                self.owe_hello_ack = true;
                self.counters.accepted += 1;
                self.recent[self.recent_at] = conn;
                self.recent_at = (self.recent_at + 1) % RECENT_CONNS;
                if self.key.is_some() {
                    // Never 0: that is the handshake's own nonce.
                    self.nonce = self.nonces.next_u64() | 1;
                }
            }
            Err(why) => {
                self.counters.refused_hello += 1;
                self.last_refusal = Some(why);
                self.owe_reset = true;
                self.reset_to = Some(from);
                self.reset_conn = conn;
                self.reset_reason = RESET_REFUSED;
            }
        }
    }

    /// Builds the sink for a HELLO: TCP from this receiver's settings (MSS and size from
    /// the HELLO), any other transport from the flow table the HELLO carries. A table
    /// (required but for TCP) must agree with the HELLO's transport, MSS and size.
    fn open(
        &self,
        conn: u64,
        mss: u32,
        total: Option<u64>,
        transport: TransportCode,
        flow: &[u8],
    ) -> Result<Opened, String> {
        if flow.len() > super::MAX_FLOW_DESC {
            return Err(format!(
                "its flow table has {} bytes, more than {}",
                flow.len(),
                super::MAX_FLOW_DESC
            ));
        }
        let table = if flow.is_empty() && transport == TransportCode::TCP {
            None
        } else {
            let text = std::str::from_utf8(flow).map_err(|_| "its flow table is not UTF-8")?;
            let table: toml::Table = text.parse().map_err(|e| format!("its flow table: {e}"))?;
            let mut spec =
                super::flow_spec::flow_spec(&table, "HELLO").map_err(|e| e.to_string())?;
            if self.key.is_some() {
                spec = super::flow_spec::with_mac(spec, "HELLO").map_err(|e| e.to_string())?;
            }
            Some(spec)
        };
        let declared = match &table {
            Some(spec) => flow_endpoints::shape(spec)?,
            None => FlowShape::tcp(mss, total),
        };
        if declared.transport != transport || declared.mss != mss || declared.total != total {
            return Err(format!(
                "the HELLO says {} (payload {mss}, {total:?} bytes), its flow table {} \
                 (payload {}, {:?} bytes)",
                transport.name(),
                declared.transport.name(),
                declared.mss,
                declared.total
            ));
        }
        let name = table
            .as_ref()
            .map_or(TransportCode::TCP.name(), |f| f.transport.name())
            .to_string();
        let (mut shape, sink, symbol_bytes) = match (transport, table) {
            (TransportCode::TCP, table) => {
                let mut cfg = self.cfg.clone();
                cfg.mss = mss;
                cfg.total_bytes = total;
                // ECN as the flow's table sets it (the HELLO stands for the SYN that
                // asks for it, RFC 3168 section 6.1.1): echoed the RFC 3168 way, or
                // DCTCP's (RFC 8257 section 3.2). Without a table, this receiver's own
                // setting (`RecvOptions::receiver.ecn`).
                if let Some(TransportSpec::Tcp(t)) = table.map(|f| f.transport) {
                    cfg.ecn = t.receiver.ecn;
                }
                let shape = FlowShape {
                    rcv_buf: cfg.rcv_buf,
                    ..FlowShape::tcp(mss, total)
                };
                let r = AnyEndpoint::TcpReceiver(Box::new(Receiver::new(0, cfg)));
                (shape, r, None)
            }
            (_, Some(spec)) => {
                // Random streams seeded from the connection id, as the sender's.
                let (shape, ends) = flow_endpoints::build(&spec, conn)?;
                (shape, ends.sink, ends.payload.sink)
            }
            (_, None) => unreachable!("non-TCP HELLOs parse their table above"),
        };
        shape.rcv_buf = shape.rcv_buf.min(MAX_REACH);
        Ok(Opened {
            shape,
            sink,
            symbol_bytes,
            name,
        })
    }

    /// Checks a data packet and its payload `data` and hands it to the sink; false if
    /// rejected. The checks follow what the packet claims (`WireClaim`), whatever its
    /// transport.
    fn handle_data(
        &mut self,
        now: Time,
        mut pkt: Packet,
        ts: Option<Timestamps>,
        data: &[u8],
    ) -> bool {
        let delivered = self.delivered();
        let mss = u64::from(self.shape.mss.max(1));
        let len = data.len() as u64;
        let claim = match pkt.wire_claim() {
            Some(c) if (self.shape.accepts)(&pkt) => c,
            _ => {
                self.counters.out_of_window += 1;
                return false;
            }
        };
        // The payload's key and offset, for bytes the driver generated.
        let generated = match claim {
            WireClaim::Stream { offset, pn } => {
                let pn_ok =
                    pn.is_none_or(|pn| pn <= self.pn_max.unwrap_or(0).saturating_add(PN_REACH));
                if !self.stream_in_window(offset, len, delivered) || !pn_ok {
                    self.counters.out_of_window += 1;
                    return false;
                }
                let old = offset.saturating_add(len) <= delivered;
                // An old segment with an old timestamp, or an old packet number: a replay
                // or a stale duplicate.
                let stale_ts = ts.is_some_and(|t| !self.paws.fresh(t.val));
                let stale_pn = pn.is_some_and(|pn| self.pn_max.is_some_and(|m| pn <= m));
                if old && (stale_ts || stale_pn) {
                    self.counters.replayed += 1;
                    return false;
                }
                Some((self.conn, offset))
            }
            WireClaim::Datagram { seq } => {
                if len > mss {
                    self.counters.out_of_window += 1;
                    return false;
                }
                if !self.seen.fresh(seq) {
                    self.counters.replayed += 1;
                    return false;
                }
                Some(payload::datagram_key(self.conn, seq))
            }
            WireClaim::Symbol { end, seed, framing } => {
                let reach = self
                    .shape
                    .segments()
                    .unwrap_or_else(|| delivered / mss + SYMBOL_REACH);
                if end > reach || len > mss + u64::from(framing) {
                    self.counters.out_of_window += 1;
                    return false;
                }
                Some(payload::symbol_key(self.conn, seed))
            }
            // A registered transport's header: its length on the wire set the padding
            // (checked as it was decoded), which is zeros; its words are the sink's to
            // judge.
            WireClaim::Opaque { .. } => {
                if data.iter().any(|&b| b != 0) {
                    self.counters.corrupt_payload += 1;
                    return false;
                }
                None
            }
            WireClaim::AckBytes { .. } | WireClaim::AckSegments { .. } => return false,
        };
        let coded_bytes = match (claim, &self.symbol_bytes) {
            (WireClaim::Symbol { seed, .. }, Some(store)) => Some((seed, store)),
            _ => None,
        };
        if let Some((key, offset)) = generated.filter(|_| coded_bytes.is_none()) {
            if payload::verify(key, offset, data).is_some() {
                self.counters.corrupt_payload += 1;
                return false;
            }
        }
        if let Some((seed, store)) = coded_bytes {
            // The sink's decoder checks these bytes itself.
            store.put(seed, |b| b.extend_from_slice(data));
        }
        match claim {
            WireClaim::Stream { offset, pn } => {
                if let Some(t) = ts.filter(|_| offset <= delivered) {
                    // RFC 7323: TS.Recent follows segments at the left edge of the window.
                    self.paws.update(t.val);
                }
                if let Some(pn) = pn {
                    self.pn_max = Some(self.pn_max.map_or(pn, |m| m.max(pn)));
                }
            }
            WireClaim::Datagram { seq } => self.seen.insert(seq),
            _ => {}
        }
        // Send times cross the wire in real time: map them onto this session's clock.
        let epoch = self.epoch_ns;
        pkt.map_wire_times(&mut |t| Time(t.0.saturating_sub(epoch)).min(now));
        let rcv = self.rcv.as_mut().expect("open connections have a sink");
        if let (AnyEndpoint::TcpReceiver(r), Packet::Tcp(seg)) = (&mut *rcv, &pkt) {
            if seg.ts.is_some() {
                // The sender uses RFC 7323 timestamps (option kind 3): echo them.
                r.use_timestamps();
            }
        }
        let handled = rcv.handle_packet(now, &pkt);
        if handled.is_err() && matches!(claim, WireClaim::Opaque { .. }) {
            // The driver could not check what an opaque header claims: one its sink
            // refuses is a datagram it did not expect, not a broken run.
            self.counters.unexpected += 1;
            return false;
        }
        self.counters.accepted += 1;
        self.data_accepted += 1;
        self.payload_bytes += len;
        if let Err(v) = handled {
            self.fail(format!("receiver invariant broken: {v}"));
            return false;
        }
        true
    }

    /// Byte-stream data (TCP, TACK): the sender cuts the stream at multiples of its MSS
    /// and only the last segment of a finite transfer is shorter; nothing may reach past
    /// the receive buffer. Anything else did not come from a sane sender.
    fn stream_in_window(&self, seq: u64, len: u64, delivered: u64) -> bool {
        let mss = u64::from(self.shape.mss.max(1));
        let expected_len = self.total.map_or(mss, |t| t.saturating_sub(seq).min(mss));
        let window_end = delivered.saturating_add(self.shape.rcv_buf);
        seq % mss == 0 && len == expected_len && seq.saturating_add(len) <= window_end
    }

    pub fn handle_timeout(&mut self, now: Time) {
        if self.peer.is_none() {
            if self.listen_until.is_some_and(|t| now >= t) {
                self.fail("no sender connected".into());
            }
            return;
        }
        if self.claim_expiry().is_some_and(|t| now >= t) {
            self.release();
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
        let room = buf
            .len()
            .saturating_sub(if self.key.is_some() { wire::TAG_LEN } else { 0 });
        let n = self.next_datagram(now, &mut buf[..room])?;
        match &self.key {
            Some(k) => {
                // A RESET refusing a HELLO answers the handshake: nonce 0.
                let session = if self.peer.is_some() { self.nonce } else { 0 };
                k.seal(mac::nonce_for(buf[3], session), buf, n)
            }
            None => Some(n),
        }
    }

    /// The IP ECN field the datagram [`Self::poll_datagram`] wrote last goes out with:
    /// its sink's (a TCP receiver's ACKs are Not-ECT, RFC 3168 section 6.1.4), Not-ECT
    /// on the driver's own messages.
    pub fn last_ecn(&self) -> u8 {
        self.last_ecn
    }

    fn next_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<usize> {
        self.last_ecn = 0;
        if self.owe_reset {
            self.owe_reset = false;
            let m = Message::Reset {
                conn: self.reset_conn,
                reason: self.reset_reason,
            };
            self.reset_to = None;
            return wire::encode(&m, buf).ok();
        }
        if self.stopped {
            return None;
        }
        if self.owe_hello_ack {
            self.owe_hello_ack = false;
            let m = Message::HelloAck {
                conn: self.conn,
                mss: self.mss,
                rcv_buf: self.cfg.rcv_buf,
                nonce: self.key.is_some().then_some(self.nonce),
            };
            return wire::encode(&m, buf).ok();
        }
        // ACKs before the CLOSE_ACK, so the sender never hears of a close before the data.
        while let Some(pkt) = self.rcv.as_mut().and_then(|r| r.poll_transmit(now)) {
            if self.shape.sink_sends(&pkt) {
                let ts = pkt.carries_timestamp().then(|| self.stamp(now));
                self.acks_sent += 1;
                self.last_ecn = pkt.ip_ecn();
                return wire::encode_packet_header(buf, self.conn, &pkt, ts).ok();
            }
        }
        if self.owe_close_ack {
            self.owe_close_ack = false;
            let duplicates = self.receiver().map_or(0, |r| r.stats().duplicate_segments);
            let m = Message::CloseAck {
                conn: self.conn,
                delivered: self.delivered(),
                acks_sent: self.acks_sent,
                segments_received: self.data_accepted,
                duplicate_segments: duplicates,
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
            consider(self.claim_expiry());
        }
        consider(self.rcv.as_ref().and_then(|r| r.poll_timeout()));
        consider(self.linger_until);
        t
    }

    /// When a claim with no data accepted yet is released.
    fn claim_expiry(&self) -> Option<Time> {
        if self.state != SessionState::Open || self.data_accepted > 0 {
            return None;
        }
        self.started_at.map(|t| t + CLAIM_TIMEOUT)
    }

    /// Done (or failed) and no longer lingering for the sender's repeated CLOSEs.
    pub fn is_finished(&self, now: Time) -> bool {
        match self.state {
            SessionState::Failed(_) => !self.owe_reset,
            SessionState::Done => self.linger_until.is_none_or(|t| now >= t),
            _ => false,
        }
    }
}

/// What a served HELLO opens: the flow's shape, its sink, and for a `payload = true`
/// coded flow the sink's store of symbol bytes.
struct Opened {
    shape: FlowShape,
    sink: AnyEndpoint,
    symbol_bytes: Option<SymbolBytes>,
    /// The transport's scenario name.
    name: String,
}
