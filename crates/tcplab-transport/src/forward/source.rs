//! TCP-Forward's sending end (seed 004, Sec. IV-A and IV-C).
//!
//! - **TCP layer.** Vegas' congestion window (any `cc` may be named) lets segments into
//!   the *coding buffer*; the "TCP" view of the connection is a window of segments pushed
//!   and not yet acknowledged.
//! - **Coding window.** Up to N segments of the buffer from `w_lo` (fewer while TCP has
//!   not pushed N: the seed's "various length window", Fig. 4). Each symbol is an LT
//!   symbol over the window with Robust Soliton degrees. After N·R symbols the window
//!   slides ⌊N/2⌋ segments (Fig. 5); it also slides as soon as the ACKs show its first
//!   half decoded ("this acknowledgement is only used to move the coding window"). With
//!   `overlap = false` it slides N segments (after N·R symbols, or once all N are decoded):
//!   windows no longer overlap and each segment is coded in one window.
//! - **Credit.** "Every time a segment is pushed from TCP congestion window to the coding
//!   buffer, R credits are earned. Sending buffer only pushes data to IP layer when the
//!   credit is positive. Every time an encoded symbol is pushed ... 1 credit is cost."
//!   Symbols are generated when they can leave (the sending buffer holds their
//!   descriptions), and credit left over when nothing is worth sending is capped at N·R.
//! - **ACK translation** (Fig. 6). The receiver acknowledges each decoded segment; the
//!   sender removes it from the coding buffer and hands TCP an ACK of the *first segment
//!   in the congestion window*, so the window slides one segment and Vegas gets an RTT
//!   sample from that segment's push time. DupACKs do not exist, so nothing reduces the
//!   window but Vegas itself.
//! - **Loss recovery.** Diff_p (`diff.rs`): when the oldest overdue segment lies before
//!   the coding window, ⌈R·m⌉ repair symbols over those segments (m of them
//!   unacknowledged, at most N) go out at once, outside the credit; if it lies inside the
//!   window, the repair symbols cover the window. Every overdue segment counts one
//!   N_timeout (`redundancy.rs`) and restarts its clock.

use super::coding::ForwardParams;
use super::diff::DiffDetector;
use super::redundancy::Redundancy;
use super::summary::ForwardSourceSummary;
use crate::cc::{AckInfo, CongestionControl, Controller, Window};
use crate::coded::app_bytes::segment_bytes;
use crate::coded::cost::Cpu;
use crate::coded::packet::{Code, CodedAck, CodedPacket, Symbol};
use crate::coded::ready_queue::{earliest, ReadyQueue};
use crate::coded::symbol_bytes::SymbolBytes;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::rtt::RttEstimator;
use crate::series_columns::{CWND, IN_FLIGHT, RTT, SRTT, SYMBOLS_SENT};
use std::collections::VecDeque;
use tcplab_coding::lt::{DegreeSpec, LtStreamEncoder, WindowSampler};
use tcplab_core::{ColumnDef, Dur, Metrics, Time};

/// A segment's Diff_p clock: ElapsedTime_p runs from `since` (its push into the coding
/// buffer, or its last repair); `seed` is the first symbol sent since then, so only ACKs
/// of decodes caused by later symbols give samples (Karn's rule). `acked`: the receiver
/// has decoded the segment (beside the clock, so the deadline scan reads one array).
#[derive(Clone, Copy, Debug)]
struct Clock {
    since: Time,
    seed: u32,
    acked: bool,
}

/// Real bytes (`payload = true`): the segments of the coding buffer (and of a window
/// lagging behind it).
struct PayloadTx {
    port: SymbolBytes,
    enc: LtStreamEncoder,
    data: Vec<u8>,
}

/// The TCP-Forward source (see the module docs).
pub struct ForwardSource {
    flow: u32,
    mss: u32,
    total: u64,
    /// Segments the application has written.
    app_end: u32,
    p: ForwardParams,
    cc: Controller,
    w: Window,
    rtt: RttEstimator,
    started: bool,
    // TCP layer.
    pushed: u32,
    tcp_una: u32,
    /// Push times of segments `tcp_una..pushed` (TCP's send timestamps).
    push_time: VecDeque<Time>,
    // Coding buffer: segments `buf_lo..pushed`.
    buf_lo: u32,
    /// Per segment in the coding buffer: its Diff_p clock and whether it is decoded.
    clock: VecDeque<Clock>,
    n_acked: u32,
    // Coding window.
    w_lo: u32,
    win_symbols: u32,
    /// Segments of the current window position that have earned their credit.
    win_credited: u32,
    credit: f64,
    red: Redundancy,
    diff: DiffDetector,
    /// Earliest time a segment in the window becomes overdue.
    deadline: Option<Time>,
    /// The smallest `since` of an unacknowledged segment in the coding buffer, kept
    /// incrementally: pushes add later times, ACKs remove segments, and only removing
    /// the one holding the minimum (or a repair restarting clocks) needs a rescan.
    oldest: Option<Time>,
    /// Encoded symbols and when the CPU has finished each.
    queue: ReadyQueue<Symbol>,
    next_seed: u32,
    sampler: WindowSampler,
    cpu: Cpu,
    payload: Option<PayloadTx>,
    /// When the newest pushed segment (`pushed - 1`) entered the coding buffer.
    entered: Time,
    finished_at: Option<Time>,
    symbols: u64,
    repairs: u64,
    timeout_events: u64,
    translated_acks: u64,
    last_diff: Option<(f64, f64)>,
}

impl ForwardSource {
    /// The source of flow `flow` sending `total` bytes from window `w` (its MSS and
    /// initial congestion window) under controller `cc`; `seed` picks the symbol seeds;
    /// `port` takes the symbols' bytes (`payload = true`).
    pub fn new(
        flow: u32,
        total: u64,
        w: Window,
        cc: Controller,
        p: ForwardParams,
        seed: u32,
        port: Option<SymbolBytes>,
    ) -> Result<ForwardSource, String> {
        let mss = w.mss;
        let segments = total.div_ceil(u64::from(mss));
        let app_end = u32::try_from(segments)
            .map_err(|_| format!("{total} bytes need more than 2^32 segments"))?;
        let degrees = DegreeSpec::RobustSoliton {
            c: p.c,
            delta: p.delta,
        };
        // Validate the distribution once, so a bad (c, delta) is a configuration error.
        degrees.build(p.window).map_err(|e| e.to_string())?;
        let payload = match port {
            Some(port) => Some(PayloadTx {
                port,
                enc: LtStreamEncoder::new(mss as usize, degrees.clone())
                    .map_err(|e| e.to_string())?,
                data: vec![0; mss as usize],
            }),
            None => None,
        };
        Ok(ForwardSource {
            flow,
            mss,
            total,
            app_end,
            cc,
            w,
            rtt: RttEstimator::new(
                Dur::from_secs(1),
                Dur::from_millis(1),
                Dur::from_secs(60),
                Dur::from_micros(1),
            ),
            started: false,
            pushed: 0,
            tcp_una: 0,
            push_time: VecDeque::new(),
            buf_lo: 0,
            clock: VecDeque::new(),
            n_acked: 0,
            w_lo: 0,
            win_symbols: 0,
            win_credited: 0,
            credit: 0.0,
            red: Redundancy::new(p.redundancy, p.max_redundancy, p.adaptive, p.memory),
            diff: DiffDetector::new(
                p.timeout_factor,
                Dur::from_secs_f64(p.initial_timeout_ms / 1e3),
            ),
            deadline: None,
            oldest: None,
            queue: ReadyQueue::default(),
            next_seed: seed,
            sampler: WindowSampler::new(degrees),
            cpu: Cpu::new(p.cost),
            payload,
            entered: Time::ZERO,
            p,
            finished_at: None,
            symbols: 0,
            repairs: 0,
            timeout_events: 0,
            translated_acks: 0,
            last_diff: None,
        })
    }

    /// Segments TCP has pushed into the coding buffer.
    pub fn pushed(&self) -> u32 {
        self.pushed
    }

    /// TCP's first unacknowledged segment (after translation).
    pub fn tcp_una(&self) -> u32 {
        self.tcp_una
    }

    /// Segments in the coding buffer (pushed, not acknowledged by the receiver).
    pub fn coding_buffer(&self) -> Vec<u32> {
        (self.buf_lo..self.pushed)
            .filter(|&i| !self.clock[(i - self.buf_lo) as usize].acked)
            .collect()
    }

    /// The current redundancy R.
    pub fn redundancy(&self) -> f64 {
        self.red.r()
    }

    pub fn window(&self) -> &Window {
        &self.w
    }

    fn is_acked(&self, i: u32) -> bool {
        i < self.buf_lo || self.clock[(i - self.buf_lo) as usize].acked
    }

    /// TCP pushes what its congestion window allows into the coding buffer.
    fn push_more(&mut self, now: Time) {
        let mss = u64::from(self.mss);
        let limit = self.w.cwnd.min(u64::from(self.p.buffer) * mss);
        while self.pushed < self.app_end && u64::from(self.pushed - self.tcp_una + 1) * mss <= limit
        {
            self.entered = now;
            if let Some(tx) = self.payload.as_mut() {
                let start = u64::from(self.pushed) * mss;
                let len = (self.total - start).min(mss) as usize;
                segment_bytes(self.flow, self.pushed, &mut tx.data[..len]);
                // Pushed in order, at most one segment long: cannot fail.
                let _ = tx.enc.push(&tx.data[..len]);
            }
            self.pushed += 1;
            self.push_time.push_back(now);
            // Clocks start at `now`, never before an earlier one.
            self.oldest.get_or_insert(now);
            self.clock.push_back(Clock {
                since: now,
                seed: self.next_seed,
                acked: false,
            });
            self.red.on_segment();
            if !self.p.window_credit {
                self.credit += self.red.r();
            }
        }
    }

    /// Slides the coding window as the seed's rules allow; returns its size.
    fn settle_window(&mut self) -> u32 {
        let n = self.p.window;
        let stride = if self.p.overlap { (n / 2).max(1) } else { n };
        let quota = crate::coded::cost::ceil(f64::from(n) * self.red.r()) as u32;
        loop {
            let can_slide = self.w_lo + stride < self.pushed;
            if can_slide
                && (self.win_symbols >= quota
                    || (self.w_lo..self.w_lo + stride).all(|i| self.is_acked(i)))
            {
                self.w_lo += stride;
                self.win_symbols = 0;
                self.win_credited = 0;
                continue;
            }
            return n.min(self.pushed.saturating_sub(self.w_lo));
        }
    }

    /// The next credit-paid symbol, if one is worth sending.
    fn next_symbol(&mut self) -> Option<Symbol> {
        let k = self.settle_window();
        if self.p.window_credit && k > self.win_credited {
            self.credit += f64::from(k - self.win_credited) * self.red.r();
            self.win_credited = k;
        }
        if self.credit <= 0.0 {
            return None;
        }
        if k == 0 || (self.w_lo..self.w_lo + k).all(|i| self.is_acked(i)) {
            self.credit = self.credit.min(crate::coded::cost::ceil(
                f64::from(self.p.window) * self.red.r(),
            ));
            return None;
        }
        self.credit -= 1.0;
        self.win_symbols += 1;
        Some(self.symbol(self.w_lo, k, false))
    }

    fn symbol(&mut self, start: u32, span: u32, repair: bool) -> Symbol {
        let s = Symbol {
            flow: self.flow,
            code: Code::Lt,
            start,
            span,
            seed: self.next_seed,
            base: self.buf_lo,
            payload: self.mss,
            repair,
            newest: self.pushed.saturating_sub(1),
            entered: self.entered,
        };
        self.next_seed = self.next_seed.wrapping_add(1);
        s
    }

    /// Encodes `sym` on the CPU (and for real in payload mode) and queues it.
    fn encode(&mut self, now: Time, sym: Symbol) {
        let degree = self
            .sampler
            .degree(sym.start, sym.span, sym.seed)
            .map_or(1, u64::from);
        let ready = self.cpu.run(now, self.p.cost.lt(degree, self.mss));
        if let Some(tx) = self.payload.as_mut() {
            // No symbol combines segments below both the window and the coding buffer.
            tx.enc.drop_below(self.w_lo.min(self.buf_lo));
            let enc = &mut tx.enc;
            tx.port.put(sym.seed, |buf| {
                // The window was checked when the symbol was made.
                let _ = enc.encode_window_into(sym.start, sym.span, sym.seed, buf);
            });
        }
        self.queue.push(ready, sym);
    }

    /// The receiver decoded segment `index` (and everything below `cum`).
    fn on_ack(&mut self, now: Time, ack: &CodedAck) -> Result<(), Violation> {
        if ack.index >= self.pushed || ack.cum > self.pushed {
            return Err(Violation::Coding {
                flow: self.flow,
                why: format!(
                    "ACK of segment {} (all below {}) but only {} were sent",
                    ack.index, ack.cum, self.pushed
                ),
            });
        }
        let mut newly = 0;
        let mut rescan = false;
        for i in (self.buf_lo..ack.cum).chain(std::iter::once(ack.index)) {
            if self.is_acked(i) {
                continue;
            }
            let o = (i - self.buf_lo) as usize;
            self.clock[o].acked = true;
            // ElapsedTime_p runs from the segment's entry or its last repair; like Karn's
            // rule, only a decode caused by a symbol sent since then gives a sample.
            let c = self.clock[o];
            rescan |= Some(c.since) == self.oldest;
            if ack.echo.wrapping_sub(c.seed) < 1 << 31 {
                self.diff.on_acked(now.saturating_since(c.since));
            }
            newly += 1;
        }
        while self.clock.front().is_some_and(|c| c.acked) {
            self.clock.pop_front();
            self.buf_lo += 1;
        }
        if rescan {
            self.rescan_oldest();
        }
        self.n_acked += newly;
        for _ in 0..newly {
            self.translated_ack(now);
        }
        if self.n_acked == self.app_end && self.finished_at.is_none() {
            self.finished_at = Some(now);
        }
        self.push_more(now);
        self.refresh_deadline();
        Ok(())
    }

    /// Fig. 6: an ACK of the first segment in the congestion window, for TCP.
    fn translated_ack(&mut self, now: Time) {
        let Some(sent) = self.push_time.pop_front() else {
            return;
        };
        self.tcp_una += 1;
        self.translated_acks += 1;
        let rtt = now.saturating_since(sent);
        self.rtt.on_sample(rtt, 0, 0); // RFC 6298: no sequence numbers
        let mss = u64::from(self.mss);
        let info = AckInfo {
            now,
            bytes_acked: mss,
            rtt: Some(rtt),
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            in_flight: u64::from(self.pushed - self.tcp_una) * mss,
            in_recovery: false,
            rate: None,
            delivered: u64::from(self.tcp_una) * mss,
            ece: false,
        };
        self.cc.on_ack(&mut self.w, &info);
    }

    /// Recomputes `oldest` from the clocks (after the minimum's segment was acked or
    /// a repair restarted clocks).
    fn rescan_oldest(&mut self) {
        self.oldest = self.scan_oldest();
    }

    fn scan_oldest(&self) -> Option<Time> {
        let (a, b) = self.clock.as_slices();
        let oldest_in = |s: &[Clock]| s.iter().filter(|c| !c.acked).map(|c| c.since).min();
        match (oldest_in(a), oldest_in(b)) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    fn refresh_deadline(&mut self) {
        debug_assert_eq!(self.oldest, self.scan_oldest(), "incremental minimum");
        self.deadline = self.oldest.map(|e| e + self.diff.allowed());
    }

    /// Diff_p exceeded the Timeout: send repair symbols at once (see the module docs).
    fn on_timeout(&mut self, now: Time) {
        let overdue = (self.buf_lo..self.pushed).find(|&i| {
            let o = (i - self.buf_lo) as usize;
            !self.clock[o].acked && self.diff.overdue(now, self.clock[o].since)
        });
        let Some(p) = overdue else {
            self.refresh_deadline();
            return;
        };
        let n = self.p.window;
        let (start, end) = if p < self.w_lo {
            (p, self.w_lo.min(p + n))
        } else if p < self.w_lo + n {
            (self.w_lo, (self.w_lo + n).min(self.pushed))
        } else {
            (p, (p + n).min(self.pushed))
        };
        let o = (p - self.buf_lo) as usize;
        let window_bytes = u64::from(n) * u64::from(self.mss);
        self.last_diff = self
            .diff
            .diff(now, self.clock[o].since, self.mss, window_bytes);
        let mut unacked = 0;
        let known = self.diff.min_elapsed().is_some();
        for i in start.max(self.buf_lo)..end {
            let o = (i - self.buf_lo) as usize;
            if self.clock[o].acked {
                continue;
            }
            unacked += 1;
            let c = &mut self.clock[o];
            c.since = now;
            c.seed = self.next_seed;
        }
        self.timeout_events += 1;
        // Before minE is known a segment is overdue by the initial guess alone, which
        // says nothing about losses: that timeout is not counted.
        if known {
            self.red.on_timeout();
        }
        let count = crate::coded::cost::ceil(f64::from(unacked) * self.red.r()).max(1.0) as u64;
        for _ in 0..count {
            let sym = self.symbol(start, end - start, true);
            self.repairs += 1;
            self.encode(now, sym);
        }
        self.rescan_oldest();
        self.refresh_deadline();
    }
}

impl ForwardSource {
    pub const REDUNDANCY: ColumnDef =
        ColumnDef::new("redundancy", "", "tcp-forward: adaptive R").at_least(1.0);
    pub const CODING_BUFFER: ColumnDef = ColumnDef::new(
        "coding_buffer",
        "segments",
        "tcp-forward: segments coded, not yet acknowledged",
    )
    .at_least(0.0);

    /// The `flow_series` columns its `sample` writes, in its order.
    pub const SERIES: [ColumnDef; 7] = [
        CWND,
        SRTT,
        RTT,
        IN_FLIGHT,
        Self::REDUNDANCY,
        SYMBOLS_SENT,
        Self::CODING_BUFFER,
    ];
}

impl Endpoint for ForwardSource {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match pkt {
            Packet::Coded(CodedPacket::Ack(a)) => {
                if self.started {
                    self.on_ack(now, a)?;
                }
                Ok(())
            }
            _ => Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "TCP-Forward acknowledgement",
            }),
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.deadline.is_some_and(|d| d <= now) && self.finished_at.is_none() {
            self.on_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        loop {
            if !self.queue.is_empty() {
                let (_, sym) = self.queue.pop_ready(now)?;
                self.symbols += 1;
                return Some(Packet::Coded(CodedPacket::Symbol(sym)));
            }
            if !self.started || self.finished_at.is_some() {
                return None;
            }
            let sym = self.next_symbol()?;
            self.encode(now, sym);
            if self.deadline.is_none() {
                self.refresh_deadline();
            }
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let d = self.deadline.filter(|_| self.finished_at.is_none());
        earliest(d, self.queue.next_ready())
    }

    fn start(&mut self, now: Time) {
        if self.started {
            return;
        }
        self.started = true;
        self.cc.init(&mut self.w, now);
        self.push_more(now);
    }

    fn stop(&mut self, _now: Time) {
        self.app_end = self.pushed;
        if self.n_acked == self.app_end && self.finished_at.is_none() {
            self.finished_at = Some(_now);
        }
    }

    fn progress(&self) -> Progress {
        let bytes = |k: u32| (u64::from(k) * u64::from(self.mss)).min(self.total);
        Progress {
            app_bytes: bytes(self.app_end),
            sent_bytes: bytes(self.pushed),
            finished_at: self.finished_at,
        }
    }

    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&CWND, self.w.cwnd.into());
        out.put(&SRTT, self.rtt.srtt().map(Dur::as_secs_f64).into());
        out.put(&RTT, self.rtt.latest().map(Dur::as_secs_f64).into());
        out.put(
            &IN_FLIGHT,
            (u64::from(self.pushed - self.tcp_una) * u64::from(self.mss)).into(),
        );
        out.put(&Self::REDUNDANCY, self.red.r().into());
        out.put(&SYMBOLS_SENT, self.symbols.into());
        out.put(
            &Self::CODING_BUFFER,
            u64::from(self.pushed - self.n_acked).into(),
        );
        if let Some((d, t)) = self.last_diff {
            out.trace("diff_p_bps", d * 8.0);
            out.trace("timeout_bps", t * 8.0);
        }
        self.cc.trace(&mut |k, v| out.trace(k, v));
    }

    fn summary(&self, out: &mut dyn Metrics) {
        ForwardSourceSummary {
            payload_mode: self.p.payload,
            symbols_sent: self.symbols,
            repair_symbols: self.repairs,
            coded_segments: u64::from(self.pushed),
            redundancy_measured: (self.pushed > 0)
                .then(|| self.symbols as f64 / f64::from(self.pushed)),
            redundancy: self.red.r(),
            n_segments: self.red.total_segments,
            n_timeout: self.red.total_timeouts,
            timeout_events: self.timeout_events,
            coding_window: u64::from(self.p.window),
            min_elapsed_s: self.diff.min_elapsed().map(Dur::as_secs_f64),
            encode_busy_s: self.cpu.busy().as_secs_f64(),
            rtt_min_s: self.rtt.min_rtt().map(Dur::as_secs_f64),
        }
        .publish(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcParams;

    fn ack(index: u32, cum: u32) -> Packet {
        Packet::Coded(CodedPacket::Ack(CodedAck {
            flow: 0,
            index,
            cum,
            echo: 0,
        }))
    }

    /// Seed 004, Fig. 6 (sequence numbers there are 1-based: seq = index + 1). Segments 1
    /// and 5 are decoded first, so TCP's window starts at seq 3 while seq 2 is still in
    /// the coding buffer. The ACK of seq 4 removes seq 4 from the coding buffer and hands
    /// TCP an ACK of seq 3, the first segment in its window; seq 2 stays in the buffer.
    #[test]
    fn figure_6_ack_translation() {
        let cc = crate::cc::build("vegas", &CcParams::new()).unwrap();
        let w = Window {
            cwnd: 10 * 1000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let p = ForwardParams::default();
        let mut s = ForwardSource::new(0, 100_000, w, cc, p, 1, None).unwrap();
        s.start(Time::ZERO);
        assert_eq!((s.pushed(), s.tcp_una()), (10, 0));
        let t = |ms: u64| Time(ms * 1_000_000);
        s.handle_packet(t(30), &ack(0, 1)).unwrap();
        s.handle_packet(t(31), &ack(4, 1)).unwrap();
        assert_eq!(s.tcp_una(), 2, "TCP's window starts at seq 3");
        assert_eq!(s.coding_buffer()[..4], [1, 2, 3, 5]);
        let (cwnd, pushed) = (s.window().cwnd, s.pushed());
        s.handle_packet(t(32), &ack(3, 1)).unwrap();
        assert_eq!(s.tcp_una(), 3, "TCP got an ACK of seq 3, not of seq 4");
        let buf = s.coding_buffer();
        assert_eq!(
            buf[..3],
            [1, 2, 5],
            "seq 4 left the coding buffer, seq 2 stays"
        );
        assert!(s.window().cwnd >= cwnd, "an ACK never shrinks the window");
        assert!(s.pushed() > pushed, "the window slid: more segments pushed");
        // Non-cumulative ACKs out of order never produce a duplicate ACK for TCP.
        s.handle_packet(t(33), &ack(3, 1)).unwrap();
        assert_eq!(s.tcp_una(), 3, "a repeated ACK translates to nothing");
        assert!(s.handle_packet(t(34), &ack(500, 1)).is_err(), "never sent");
    }
}
