//! The sending endpoint: segmentation, RTO, loss recovery, pacing and send timers.

use crate::cc::{AckInfo, CongestionControl, CongestionEvent, Controller, HeadSegment, Window};
use crate::config::{PartialAckTimer, RecoveryMode, SenderConfig};
use crate::error::Violation;
use crate::rate::RateSampler;
use crate::records::{Records, SentRecord};
use crate::rtt::RttEstimator;
use crate::scoreboard::Scoreboard;
use crate::segment::Segment;
use crate::stats::SenderStats;
use tcplab_core::{Dur, Time};

/// Values for time-series traces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderSnapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Dur>,
    /// The most recent RTT sample.
    pub latest_rtt: Option<Dur>,
    pub rto: Dur,
    pub in_flight: u64,
    /// Bytes cumulatively acknowledged.
    pub acked: u64,
    pub pacing_rate: Option<u64>,
    pub state: &'static str,
}

/// A sans-IO TCP sender (see the crate docs for the calling protocol).
#[derive(Debug)]
pub struct Sender {
    flow: u32,
    cfg: SenderConfig,
    cc: Controller,
    w: Window,
    rtt: RttEstimator,
    rate: RateSampler,
    recs: Records,
    sb: Scoreboard,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// End of the data the application has written (`u64::MAX`: unlimited).
    app_end: u64,
    rwnd: u64,
    started: bool,
    in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint.
    recover: Option<u64>,
    dupacks: u32,
    /// The segment at snd_una must be retransmitted now, outside the window.
    retx_head: bool,
    partial_acks: u32,
    /// RFC 6675 pipe, maintained during SACK recovery.
    pipe: u64,
    rto_at: Option<Time>,
    next_send_at: Time,
    /// The last `poll_transmit` was held back by pacing alone: only then is
    /// `next_send_at` a wake-up (a window-limited sender waits for ACKs, and a pacing slot
    /// in the past would make the driver spin).
    pacing_wait: bool,
    burst_credit: u32,
    burst_sent: u32,
    round_open: bool,
    stats: SenderStats,
}

impl Sender {
    pub fn new(flow: u32, cfg: SenderConfig, cc: Controller) -> Sender {
        let rtt = RttEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        );
        let app_end = cfg.total_bytes.unwrap_or(u64::MAX);
        Sender {
            flow,
            w: Window {
                cwnd: cfg.initial_cwnd as u64 * cfg.mss as u64,
                ssthresh: u64::MAX,
                mss: cfg.mss,
            },
            cfg,
            cc,
            rtt,
            rate: RateSampler::default(),
            recs: Records::with_capacity(1024),
            sb: Scoreboard::default(),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end,
            rwnd: u64::MAX,
            started: false,
            in_recovery: false,
            recover: None,
            dupacks: 0,
            retx_head: false,
            partial_acks: 0,
            pipe: 0,
            rto_at: None,
            next_send_at: Time::ZERO,
            pacing_wait: false,
            burst_credit: 0,
            burst_sent: 0,
            round_open: false,
            stats: SenderStats::default(),
        }
    }

    // ---- getters ----

    pub fn flow(&self) -> u32 {
        self.flow
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    pub fn window(&self) -> &Window {
        &self.w
    }
    pub fn controller(&self) -> &Controller {
        &self.cc
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// Bytes the application has written; `None` while unlimited.
    pub fn app_bytes(&self) -> Option<u64> {
        (self.app_end != u64::MAX).then_some(self.app_end)
    }
    /// All written data is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.app_end != u64::MAX && self.snd_una >= self.app_end
    }
    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    pub fn snapshot(&self) -> SenderSnapshot {
        let m = self.cc.metrics(&self.w);
        SenderSnapshot {
            cwnd: self.w.cwnd,
            ssthresh: self.w.ssthresh,
            srtt: self.rtt.srtt(),
            latest_rtt: self.rtt.latest(),
            rto: self.rtt.rto(),
            in_flight: if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
                self.pipe
            } else {
                self.snd_nxt - self.snd_una
            },
            acked: self.snd_una,
            pacing_rate: m.pacing_rate,
            state: if self.in_recovery {
                "recovery"
            } else {
                m.state
            },
        }
    }

    // ---- application ----

    /// Starts the flow at `now` (the first segments may leave at once).
    pub fn start(&mut self, now: Time) {
        if self.started {
            return;
        }
        self.started = true;
        self.next_send_at = now;
        self.cc.init(&mut self.w, now);
    }

    /// The application stops writing: only data already sent is still delivered.
    pub fn stop(&mut self) {
        self.app_end = self.app_end.min(self.snd_max);
        if self.is_complete() {
            self.rto_at = None;
        }
    }

    // ---- inputs ----

    /// Processes an acknowledgement from the receiver.
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) -> Result<(), Violation> {
        if seg.ack > self.snd_max {
            return Err(Violation::AckBeyondSent {
                flow: self.flow,
                ack: seg.ack,
                snd_max: self.snd_max,
            });
        }
        if let Some(b) = seg.sack_blocks().iter().find(|b| b.end > self.snd_max) {
            return Err(Violation::SackBeyondSent {
                flow: self.flow,
                end: b.end,
                snd_max: self.snd_max,
            });
        }
        if !self.started {
            return Ok(());
        }
        self.rwnd = seg.wnd;
        let sack_mode = self.cfg.recovery == RecoveryMode::Sack;
        let newly_sacked = if seg.n_sack > 0 {
            self.sb.update(
                &mut self.recs,
                seg.sack_blocks(),
                self.cfg.mss,
                now,
                &mut self.rate,
            )
        } else {
            0
        };

        let mut early = false;
        if seg.ack > self.snd_una {
            self.on_new_ack(now, seg.ack);
        } else if seg.ack == self.snd_una && self.snd_una < self.snd_max && seg.is_ack() {
            self.dupacks += 1;
            let flight = self.flight_size();
            self.cc.on_dup_ack(&mut self.w, now, flight);
            early = self.head_expired(now, true);
            if !sack_mode {
                self.on_dup_ack_reno(now, early);
            }
            if newly_sacked > 0 {
                let rs = self.rate.take_sample(self.rtt.min_rtt());
                let info = self.ack_info(now, 0, None, rs);
                self.cc.on_ack(&mut self.w, &info);
            }
        }
        if sack_mode && self.started {
            self.sack_after_ack(now, early);
        }
        Ok(())
    }

    fn on_new_ack(&mut self, now: Time, ack: u64) {
        let acked = ack - self.snd_una;
        let mss = self.cfg.mss as u64;
        let mut rtt_sample = None;
        let mut covers_retransmission = false;
        let rate = &mut self.rate;
        self.recs.release_below(ack.div_ceil(mss), |_, rec| {
            if !rec.counted {
                rate.on_delivered(now, rec);
            }
            if rec.tx_count > 1 {
                covers_retransmission = true;
            } else if !rec.sacked {
                // Karn: only segments sent once give samples; the newest wins.
                rtt_sample = Some(now - rec.sent_time);
            }
        });
        // Karn (RFC 6298 section 3): an ACK that covers retransmitted data was triggered by
        // the retransmission, so no segment it covers gives a valid sample.
        if covers_retransmission {
            rtt_sample = None;
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(now, r);
            let s = &mut self.stats;
            s.rtt_samples += 1;
            s.rtt_sum += r;
            s.rtt_min = Some(s.rtt_min.map_or(r, |m| m.min(r)));
            s.rtt_max = Some(s.rtt_max.map_or(r, |m| m.max(r)));
        }
        let was_in_recovery = self.in_recovery;
        if self.in_recovery {
            self.on_ack_in_recovery(now, ack, acked);
        }
        // RFC 6298 (5.2, 5.3): stop the timer when all is acknowledged, else restart it.
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if !(was_in_recovery
            && self.in_recovery
            && self.cfg.recovery == RecoveryMode::NewReno
            && self.cfg.partial_ack_timer == PartialAckTimer::Impatient
            && self.partial_acks > 1)
        {
            // RFC 6582 sec. 4: "Impatient" resets the timer on the first partial ACK only;
            // "Slow-but-Steady" on every partial ACK.
            self.rto_at = Some(now + self.rtt.rto());
        }
        let rs = self.rate.take_sample(self.rtt.min_rtt());
        let info = self.ack_info(now, acked, rtt_sample, rs);
        let info = AckInfo {
            in_recovery: was_in_recovery,
            ..info
        };
        self.cc.on_ack(&mut self.w, &info);
        // Vegas checks the first ACKs after a retransmission against its own timeout.
        if !self.retx_head && self.head_expired(now, false) {
            self.retx_head = true;
        }
        if self.is_complete() && self.stats.acked_all_at.is_none() {
            self.stats.acked_all_at = Some(now);
            self.rto_at = None;
        }
    }

    fn ack_info(
        &mut self,
        now: Time,
        bytes_acked: u64,
        rtt: Option<Dur>,
        rate: Option<crate::rate::RateSample>,
    ) -> AckInfo {
        // What cwnd is compared against: the RFC 6675 pipe in SACK recovery (controllers
        // that manage their recovery window, like BBR, need it), else FlightSize.
        let in_flight = if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
            self.bytes_in_network()
        } else {
            self.snd_nxt - self.snd_una
        };
        AckInfo {
            now,
            bytes_acked,
            rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            in_flight,
            in_recovery: self.in_recovery,
            rate,
            delivered: self.rate.delivered,
        }
    }

    fn on_ack_in_recovery(&mut self, now: Time, ack: u64, acked: u64) {
        let mss = self.cfg.mss as u64;
        let inflate = self.cc.recovery_inflation();
        let recover = self.recover.unwrap_or(0);
        match self.cfg.recovery {
            RecoveryMode::Reno if !inflate => self.exit_recovery(now, self.w.cwnd),
            RecoveryMode::Reno => self.exit_recovery(now, self.w.ssthresh),
            RecoveryMode::NewReno => {
                if ack >= recover && !inflate {
                    self.exit_recovery(now, self.w.cwnd);
                } else if ack >= recover {
                    // RFC 6582 3.2 (3), option 1: min(ssthresh, FlightSize + SMSS).
                    let full = self.w.ssthresh.min(self.flight_size().max(mss) + mss);
                    self.exit_recovery(now, full);
                } else {
                    // Partial ACK: retransmit the next hole, deflate, add back one SMSS.
                    self.partial_acks += 1;
                    self.retx_head = true;
                    if !inflate {
                        return;
                    }
                    let add = if acked >= mss { mss } else { 0 };
                    self.w.cwnd = self
                        .w
                        .cwnd
                        .saturating_sub(acked)
                        .saturating_add(add)
                        .max(mss);
                }
            }
            RecoveryMode::Sack => {
                if ack >= recover {
                    self.exit_recovery(now, self.w.cwnd);
                }
            }
        }
    }

    fn exit_recovery(&mut self, now: Time, cwnd: u64) {
        self.in_recovery = false;
        self.w.cwnd = cwnd;
        self.cc.on_recovery_exit(&mut self.w, now);
    }

    /// Bytes still in the network: FlightSize less what the receiver SACKed or the
    /// scoreboard deems lost (ns-3's BytesInFlight). Without SACK it equals FlightSize.
    /// Used for ssthresh when a timeout strikes during fast recovery: the sequence-space
    /// FlightSize then includes data sent under cwnd inflation that the receiver already
    /// holds, and halving it would set ssthresh far above what the path carried.
    fn bytes_in_network(&mut self) -> u64 {
        self.sb
            .mark_lost_and_pipe(&mut self.recs, self.cfg.dupthresh, self.cfg.mss)
            .min(self.flight_size())
    }

    fn enter_fast_retransmit(&mut self, now: Time) {
        let flight = self.flight_size();
        self.stats.fast_retransmits += 1;
        self.cc
            .on_congestion_event(&mut self.w, CongestionEvent::FastRetransmit, now, flight);
        self.recover = Some(self.snd_max);
        self.retx_head = true;
        self.partial_acks = 0;
        if self.cc.fast_recovery() {
            self.in_recovery = true;
        } else {
            // Tahoe (4.3BSD-Tahoe, ns-2 TcpAgent): no recovery; go back to the lost segment
            // and resend from there in slow start, so later holes of the window are
            // repaired too (Fall & Floyd 1996) instead of stalling until the RTO.
            self.snd_nxt = self.snd_una;
        }
    }

    /// Asks the controller whether to resend the segment at snd_una now (early loss
    /// detection, e.g. Vegas' fine-grained timeout).
    fn head_expired(&mut self, now: Time, dup_ack: bool) -> bool {
        if self.snd_una >= self.snd_max {
            return false;
        }
        let Some(r) = self.recs.get(self.snd_una / self.cfg.mss as u64) else {
            return false;
        };
        let head = HeadSegment {
            now,
            sent: r.sent_time,
            first_sent: r.orig_sent_time,
            transmissions: r.tx_count,
            dup_ack,
        };
        self.cc.retransmit_head(&head)
    }

    /// RFC 5681 / 6582 duplicate-ACK handling; `early`: the controller detected the loss
    /// before DupThresh (see [`CongestionControl::retransmit_head`]).
    fn on_dup_ack_reno(&mut self, now: Time, early: bool) {
        let mss = self.cfg.mss as u64;
        if self.in_recovery {
            // Each further duplicate ACK means a segment left the network: inflate.
            if self.cc.recovery_inflation() {
                self.w.cwnd += mss;
            }
            self.retx_head |= early;
            return;
        }
        if self.dupacks != self.cfg.dupthresh && !early {
            return;
        }
        // RFC 6582 3.2 (2): no new fast retransmit for losses of an already-handled window.
        // Tahoe's go-back-N resends data up to `recover` on purpose, and those duplicates
        // are ACKed with exactly `recover`: there the literal rule applies (the ACK must
        // cover *more* than recover; ns-2's `bug_fix_`).
        let strict = !self.cc.fast_recovery();
        if self.cfg.recovery == RecoveryMode::NewReno
            && self
                .recover
                .is_some_and(|r| self.snd_una < r || (strict && self.snd_una == r))
        {
            return;
        }
        self.enter_fast_retransmit(now);
        if self.in_recovery && self.cc.recovery_inflation() {
            // RFC 5681 step 3: inflate by the duplicate ACKs received (DupThresh unless early).
            self.w.cwnd = self.w.ssthresh + self.dupacks as u64 * mss;
        }
    }

    /// RFC 6675: enter recovery, mark losses, recompute pipe. `early`: the controller
    /// declared the head segment lost on this duplicate ACK.
    fn sack_after_ack(&mut self, now: Time, early: bool) {
        if self.snd_una >= self.snd_max {
            return;
        }
        if !self.in_recovery {
            let head_lost = {
                let _ =
                    self.sb
                        .mark_lost_and_pipe(&mut self.recs, self.cfg.dupthresh, self.cfg.mss);
                self.recs
                    .get(self.snd_una / self.cfg.mss as u64)
                    .is_some_and(|r| r.lost)
            };
            let can_enter = self.recover.is_none_or(|r| self.snd_una >= r);
            if (self.dupacks >= self.cfg.dupthresh || head_lost || early) && can_enter {
                self.sb.high_rxt = self.snd_una;
                if let Some(r) = self.recs.get_mut(self.snd_una / self.cfg.mss as u64) {
                    r.lost = true;
                }
                self.enter_fast_retransmit(now);
            } else {
                return;
            }
        } else if early {
            self.retx_head = true;
        }
        self.pipe = self
            .sb
            .mark_lost_and_pipe(&mut self.recs, self.cfg.dupthresh, self.cfg.mss);
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        if !self.started {
            return;
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
        if self.cc.send_timer().is_some_and(|t| t <= now) {
            self.close_round(now);
            self.burst_credit = self.cc.on_send_timer(&mut self.w, now);
            self.burst_sent = 0;
            self.round_open = true;
        }
    }

    fn on_rto(&mut self, now: Time) {
        self.stats.rtos += 1;
        let repeated = self.rtt.backoff_count() > 0;
        let flight = if self.in_recovery {
            self.bytes_in_network()
        } else {
            self.flight_size()
        };
        self.cc
            .on_congestion_event(&mut self.w, CongestionEvent::Rto { repeated }, now, flight);
        self.rtt.back_off();
        // RFC 6582: after a timeout, `recover` guards against false fast retransmits.
        self.recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        self.retx_head = false;
        // Go back N: resend from the first unacknowledged segment in slow start.
        self.snd_nxt = self.snd_una;
        self.sb.high_rxt = self.snd_una;
        for (_, r) in self.recs.iter_mut() {
            if !r.sacked {
                r.lost = true;
            }
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Closes a timer-driven round: report what left, and whether data ran out.
    fn close_round(&mut self, now: Time) {
        if !self.round_open {
            return;
        }
        self.round_open = false;
        self.cc.on_segments_sent(&mut self.w, now, self.burst_sent);
        if self.snd_nxt >= self.app_end && !self.retx_head {
            self.cc.on_no_data(&mut self.w, now);
        }
        self.burst_credit = 0;
    }

    // ---- outputs ----

    /// The next segment to send at `now`, if the window, pacing and timers allow one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        self.pacing_wait = false;
        if !self.started || self.is_complete() {
            return None;
        }
        let mss = self.cfg.mss as u64;
        if self.retx_head {
            self.retx_head = false;
            let idx = self.snd_una / mss;
            if self.cfg.recovery == RecoveryMode::Sack {
                self.sb.high_rxt = self.sb.high_rxt.max(self.seg_end(idx));
                self.pipe += self.seg_len(idx) as u64;
            }
            return Some(self.send(now, idx));
        }
        let timer_driven = self.cc.send_timer().is_some();
        if timer_driven && self.burst_credit == 0 {
            return None;
        }
        if let Some(rate) = self.cc.pacing_rate() {
            if now + self.pacing_slack(rate) < self.next_send_at {
                self.pacing_wait = true;
                return None;
            }
        }
        let idx = match self.choose(now) {
            Some(i) => i,
            None => {
                if timer_driven {
                    self.close_round(now);
                }
                return None;
            }
        };
        let seg = self.send(now, idx);
        if timer_driven {
            self.burst_credit -= 1;
            self.burst_sent += 1;
            if self.burst_credit == 0 {
                self.close_round(now);
            }
        }
        Some(seg)
    }

    fn seg_len(&self, idx: u64) -> u32 {
        let seq = idx * self.cfg.mss as u64;
        (self.app_end.saturating_sub(seq)).min(self.cfg.mss as u64) as u32
    }

    fn seg_end(&self, idx: u64) -> u64 {
        idx * self.cfg.mss as u64 + self.seg_len(idx) as u64
    }

    /// Picks the segment to send next, honouring the window, or `None`.
    fn choose(&mut self, _now: Time) -> Option<u64> {
        let mss = self.cfg.mss as u64;
        let wnd = self.w.cwnd.min(self.rwnd);
        if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
            if self.pipe + mss > self.w.cwnd.max(mss) {
                return None;
            }
            let new_ok = self.snd_nxt < self.app_end
                && self.snd_nxt == self.snd_max
                && self.snd_max + self.seg_len(self.snd_max / mss) as u64 - self.snd_una
                    <= self.rwnd;
            if let Some(idx) = self
                .sb
                .next_retransmission(&self.recs, self.cfg.mss, new_ok)
            {
                self.sb.high_rxt = self.seg_end(idx);
                self.pipe += self.seg_len(idx) as u64;
                return Some(idx);
            }
            if new_ok {
                self.pipe += self.seg_len(self.snd_nxt / mss) as u64;
                return Some(self.snd_nxt / mss);
            }
            return None;
        }
        // Go-back-N after a timeout skips segments the receiver SACKed.
        while self.snd_nxt < self.snd_max {
            match self.recs.get(self.snd_nxt / mss) {
                Some(r) if r.sacked => self.snd_nxt = (self.snd_nxt / mss + 1) * mss,
                _ => break,
            }
        }
        self.snd_nxt = self.snd_nxt.min(self.snd_max.max(self.snd_nxt));
        if self.snd_nxt >= self.app_end {
            if self.snd_nxt == self.snd_max && self.w.cwnd > self.snd_nxt - self.snd_una {
                self.rate.on_app_limited(self.snd_nxt - self.snd_una);
            }
            return None;
        }
        let idx = self.snd_nxt / mss;
        let len = self.seg_len(idx) as u64;
        if self.snd_nxt - self.snd_una + len > wnd {
            return None;
        }
        Some(idx)
    }

    /// Emits segment `idx` (new or retransmitted) and updates all bookkeeping.
    fn send(&mut self, now: Time, idx: u64) -> Segment {
        let mss = self.cfg.mss as u64;
        let seq = idx * mss;
        let len = self.seg_len(idx);
        let nothing_in_flight = self.snd_una == self.snd_max;
        let retransmission = idx < self.recs.end();
        if !retransmission {
            self.recs.push(
                idx,
                SentRecord {
                    orig_sent_time: now,
                    ..SentRecord::default()
                },
            );
        }
        let rec = self.recs.get_mut(idx).expect("record exists");
        rec.len = len;
        rec.tx_count = rec.tx_count.saturating_add(1);
        rec.lost = false;
        rec.counted = false;
        self.rate.on_send(now, nothing_in_flight, rec);
        rec.sent_time = now;
        if seq == self.snd_nxt {
            self.snd_nxt += len as u64;
        }
        self.snd_max = self.snd_max.max(seq + len as u64);
        let s = &mut self.stats;
        s.segments_sent += 1;
        s.bytes_sent += len as u64;
        if retransmission {
            s.retransmitted_segments += 1;
            s.retransmitted_bytes += len as u64;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        let seg = Segment {
            flow: self.flow,
            seq,
            len,
            fin: seq + len as u64 == self.app_end,
            retransmission,
            ..Segment::default()
        };
        if let Some(rate) = self.cc.pacing_rate() {
            let gap = Dur::transmission(seg.wire_len() as u64, rate.saturating_mul(8));
            self.next_send_at = self.next_send_at.max(now) + gap;
        }
        self.cc.on_sent(now, len, self.snd_nxt - self.snd_una);
        seg
    }

    /// Pacing lets `send_quantum` full segments leave back to back: a send may come up to
    /// (quantum − 1) segment times before its paced slot.
    fn pacing_slack(&self, rate: u64) -> Dur {
        let q = self.cc.send_quantum() as u64;
        if q <= 1 {
            return Dur::ZERO;
        }
        let seg = (self.cfg.mss + crate::segment::DATA_HEADER_BYTES) as u64;
        Dur::transmission((q - 1) * seg, rate.saturating_mul(8))
    }

    /// When the sender next needs `handle_timeout`.
    pub fn poll_timeout(&self) -> Option<Time> {
        if !self.started || self.is_complete() {
            return None;
        }
        let mut t = self.rto_at;
        let mut consider = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |y| y.min(x)));
            }
        };
        consider(self.cc.send_timer());
        if self.pacing_wait {
            let slack = self
                .cc
                .pacing_rate()
                .map_or(Dur::ZERO, |r| self.pacing_slack(r));
            consider(Some(Time(
                self.next_send_at
                    .as_nanos()
                    .saturating_sub(slack.as_nanos()),
            )));
        }
        t
    }
}
