//! The sending endpoint: segmentation, RTO, loss recovery, pacing and send timers.

use crate::cc::{AckInfo, CongestionControl, CongestionEvent, Controller, HeadSegment, Window};
use crate::error::Violation;
use crate::rate::RateSampler;
use crate::records::{Records, SentRecord};
use crate::rtt::RttEstimator;
use crate::tcp::config::{LossDetection, PartialAckTimer, RecoveryMode, SenderConfig};
use crate::tcp::rack::{Rack, WC_DEL_ACK};
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::segment::Segment;
use crate::tcp::stats::SenderStats;
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
    /// RFC 8985 RACK-TLP state; used when `rack_on`.
    rack: Rack,
    /// `loss_detection = Rack` under SACK recovery.
    rack_on: bool,
    /// When the window was last cut for a loss (RACK: a lost retransmission sent after
    /// this is a new congestion signal).
    last_cut_at: Time,
    /// Bytes of outstanding segments the receiver SACKed.
    sacked_bytes: u64,
    /// Bytes of outstanding, unSACKed segments marked lost and not resent since.
    lost_bytes: u64,
    /// Go-back-N after a timeout (or Tahoe's fast retransmit): every segment the receiver
    /// had not SACKed then is presumed lost, so only what was sent since is in flight.
    /// Lasts until snd_una passes `recover` and the resend pass has caught up.
    go_back_n: bool,
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
        let rack_on =
            cfg.loss_detection == LossDetection::Rack && cfg.recovery == RecoveryMode::Sack;
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
            rack: Rack::default(),
            rack_on,
            last_cut_at: Time::ZERO,
            sacked_bytes: 0,
            lost_bytes: 0,
            go_back_n: false,
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
    /// Entries in RACK's transmission log (bounded by what is outstanding; for tests).
    #[doc(hidden)]
    pub fn rack_log_len(&self) -> usize {
        self.rack.log_len()
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
            in_flight: self.bytes_in_flight(),
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
        let prior_una = self.snd_una;
        let newly_sacked = if seg.n_sack > 0 {
            let (rack_on, mss, min_rtt) = (self.rack_on, self.cfg.mss, self.rtt.min_rtt());
            let rack = &mut self.rack;
            let lost_bytes = &mut self.lost_bytes;
            let n = self.sb.update(
                &mut self.recs,
                seg.sack_blocks(),
                mss,
                now,
                &mut self.rate,
                |idx, rec, was_lost| {
                    if was_lost {
                        *lost_bytes = lost_bytes.saturating_sub(rec.len as u64);
                    }
                    if rack_on {
                        rack.on_delivered(now, idx, rec, mss, min_rtt);
                    }
                },
            );
            self.sacked_bytes += n;
            n
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
        if self.rack_on {
            self.tlp_on_ack(now, seg.ack, prior_una, seg.n_sack == 0);
        }
        #[cfg(debug_assertions)]
        self.check_counters();
        Ok(())
    }

    /// The incremental SACKed and lost byte counts match the records (debug builds).
    #[cfg(debug_assertions)]
    fn check_counters(&mut self) {
        let (mut sacked, mut lost) = (0, 0);
        for (_, r) in self.recs.iter_mut() {
            if r.sacked {
                sacked += r.len as u64;
            } else if r.lost {
                lost += r.len as u64;
            }
        }
        debug_assert_eq!(sacked, self.sacked_bytes, "SACKed bytes");
        debug_assert_eq!(lost, self.lost_bytes, "lost bytes");
    }

    fn on_new_ack(&mut self, now: Time, ack: u64) {
        let acked = ack - self.snd_una;
        let mss = self.cfg.mss as u64;
        let mut rtt_sample = None;
        let mut covers_retransmission = false;
        let rate = &mut self.rate;
        let (rack_on, min_rtt) = (self.rack_on, self.rtt.min_rtt());
        let rack = &mut self.rack;
        let sacked_bytes = &mut self.sacked_bytes;
        let lost_bytes = &mut self.lost_bytes;
        self.recs.release_below(ack.div_ceil(mss), |idx, rec| {
            if !rec.counted {
                rate.on_delivered(now, rec);
            }
            if rec.sacked {
                *sacked_bytes = sacked_bytes.saturating_sub(rec.len as u64);
            } else if rack_on {
                rack.on_delivered(now, idx, rec, mss as u32, min_rtt);
            }
            if rec.lost {
                *lost_bytes = lost_bytes.saturating_sub(rec.len as u64);
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
        if self.go_back_n && self.recover.is_none_or(|r| ack >= r) && self.snd_nxt >= self.snd_max {
            self.go_back_n = false;
        }
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
            self.rack.clear_log();
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
        // that manage their recovery window, like BBR, need it), else what is in flight.
        let in_flight = if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
            self.bytes_in_network()
        } else {
            self.bytes_in_flight()
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
        if self.rack_on {
            return self.presumed_in_flight();
        }
        let (dupthresh, mss) = (self.cfg.dupthresh, self.cfg.mss);
        self.sb
            .mark_lost_and_pipe(&mut self.recs, dupthresh, mss, &mut self.lost_bytes)
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
        self.last_cut_at = now;
        if self.cc.fast_recovery() {
            self.in_recovery = true;
            // Recovery's own accounting takes over (Reno: a new loss in go-back-N).
            self.go_back_n = false;
        } else {
            // Tahoe (4.3BSD-Tahoe, ns-2 TcpAgent): no recovery; go back to the lost segment
            // and resend from there in slow start, so later holes of the window are
            // repaired too (Fall & Floyd 1996) instead of stalling until the RTO.
            self.go_back(self.snd_una);
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
        if self.rack_on {
            self.rack_detect(now, early);
            return;
        }
        let (dupthresh, mss) = (self.cfg.dupthresh, self.cfg.mss);
        if !self.in_recovery {
            // RFC 6675 section 5.1: after a timeout no new recovery starts before
            // RecoveryPoint is acknowledged (IsLost marks would then only disturb the
            // go-back-N accounting).
            if self.recover.is_some_and(|r| self.snd_una < r) {
                return;
            }
            // IsLost needs SACKed data above snd_una: without any, skip the O(window) walk
            // that every ACK in SACK mode would otherwise pay.
            let sacked_above = self.sb.high_sacked > self.snd_una;
            if !sacked_above && !early && self.dupacks < dupthresh {
                return;
            }
            let head_lost = {
                let _ = self.sb.mark_lost_and_pipe(
                    &mut self.recs,
                    dupthresh,
                    mss,
                    &mut self.lost_bytes,
                );
                self.recs
                    .get(self.snd_una / mss as u64)
                    .is_some_and(|r| r.lost)
            };
            if self.dupacks >= dupthresh || head_lost || early {
                self.sb.high_rxt = self.snd_una;
                if let Some(r) = self.recs.get_mut(self.snd_una / mss as u64) {
                    if !r.lost && !r.sacked {
                        r.lost = true;
                        self.lost_bytes += r.len as u64;
                    }
                }
                self.enter_fast_retransmit(now);
            } else {
                return;
            }
        } else if early {
            self.retx_head = true;
        }
        self.pipe =
            self.sb
                .mark_lost_and_pipe(&mut self.recs, dupthresh, mss, &mut self.lost_bytes);
    }

    // ---- RACK-TLP (RFC 8985) ----

    /// The pipe that paces SACK recovery: RFC 6675 SetPipe, or with RACK the bytes
    /// outstanding less those SACKed and those marked lost and not yet retransmitted.
    fn recovery_pipe(&self) -> u64 {
        if self.rack_on {
            self.presumed_in_flight()
        } else {
            self.pipe
        }
    }

    /// Bytes outstanding that are neither SACKed nor marked lost (Linux's
    /// packets_in_flight without its retransmission term).
    fn presumed_in_flight(&self) -> u64 {
        self.flight_size()
            .saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// What the window is compared against: the pipe in SACK recovery; in go-back-N
    /// after a timeout, what was sent since and is not SACKed (the rest is presumed
    /// lost, SACKed segments are skipped: RFC 6675 section 5.1); else FlightSize.
    fn bytes_in_flight(&self) -> u64 {
        if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
            self.recovery_pipe()
        } else if self.go_back_n {
            self.presumed_in_flight()
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// RACK.reo_wnd: min_RTT / 4, at most SRTT (zero before the first RTT sample).
    fn reo_wnd(&self) -> Dur {
        match (self.rtt.min_rtt(), self.rtt.srtt()) {
            (Some(m), Some(s)) => (m / 4).min(s),
            (Some(m), None) => m / 4,
            _ => Dur::ZERO,
        }
    }

    /// Runs RACK's loss detection (on an ACK or the reordering timer) and acts on what it
    /// marks: start fast recovery, or in RTO recovery go back to a lost retransmission.
    /// `early`: the controller declared the head segment lost.
    fn rack_detect(&mut self, now: Time, early: bool) {
        let before = self.lost_bytes;
        let reo_wnd = self.reo_wnd();
        let lowest = self.rack.detect_loss(
            now,
            &mut self.recs,
            self.cfg.mss,
            reo_wnd,
            &mut self.lost_bytes,
        );
        if lowest.is_some() {
            let mss = self.cfg.mss as u64;
            self.stats.rack_lost += (self.lost_bytes - before).div_ceil(mss);
        }
        if !self.in_recovery {
            let can_enter = self.recover.is_none_or(|r| self.snd_una >= r);
            if !can_enter {
                // RTO recovery: resend a retransmission RACK found lost (go-back-N then
                // skips segments that are not lost).
                if let Some(idx) = lowest {
                    self.snd_nxt = self.snd_nxt.min(idx * self.cfg.mss as u64);
                }
                return;
            }
            if self.lost_bytes == 0 && !early {
                return;
            }
            self.enter_fast_retransmit(now);
            self.rack.reset_tlp();
            // RFC 6675 (4.3): the first loss leaves regardless of cwnd.
            self.retx_head = early
                || self
                    .recs
                    .get(self.snd_una / self.cfg.mss as u64)
                    .is_some_and(|r| r.lost);
        } else {
            if early {
                self.retx_head = true;
            }
            // RFC 5681 section 4.3 (recalled by RFC 8985 section 3.4): the loss of a
            // retransmission is a second congestion signal, so the window is cut again,
            // once per retransmission sent after the last cut, and recovery extends to
            // what is outstanding now.
            if self
                .rack
                .lost_rtx_sent
                .is_some_and(|t| t >= self.last_cut_at)
            {
                let flight = self.presumed_in_flight();
                self.stats.fast_retransmits += 1;
                self.cc.on_congestion_event(
                    &mut self.w,
                    CongestionEvent::FastRetransmit,
                    now,
                    flight,
                );
                self.recover = Some(self.snd_max);
                self.last_cut_at = now;
            }
        }
        self.pipe = self.presumed_in_flight();
    }

    /// NextSeg rule 1 under RACK: the lowest segment marked lost and not yet resent. The
    /// cursor only moves back when RACK or a timeout marks a segment below it.
    fn rack_next_lost(&mut self) -> Option<u64> {
        let end = self.recs.end();
        let mut i = self.rack.rxt_from.max(self.recs.base());
        while i < end && !self.recs.get(i).is_some_and(|r| r.lost) {
            i += 1;
        }
        self.rack.rxt_from = i;
        (i < end).then_some(i)
    }

    /// RFC 8985 section 7.2: a PTO may be armed in the open state only (not in fast or
    /// RTO recovery, nothing SACKed above a hole), with data in flight and no probe
    /// outstanding.
    fn tlp_may_arm(&self) -> bool {
        self.rack_on
            && !self.in_recovery
            && self.recover.is_none_or(|r| self.snd_una >= r)
            && self.sacked_bytes == 0
            && self.snd_una < self.snd_max
            && self.rack.tlp_end.is_none()
            && !self.is_complete()
    }

    /// PTO = 2·SRTT (+ WCDelAckT with one segment in flight; 1 s before any sample), not
    /// beyond the RTO expiry (the probe then takes the RTO's place).
    fn arm_pto(&mut self, now: Time) {
        let pto = match self.rtt.srtt() {
            Some(srtt) if self.flight_size() <= self.cfg.mss as u64 => srtt * 2 + WC_DEL_ACK,
            Some(srtt) => srtt * 2,
            None => Dur::from_secs(1),
        };
        let at = now + pto;
        self.rack.pto_at = Some(self.rto_at.map_or(at, |r| r.min(at)));
    }

    /// The PTO fired: send a probe now (`poll_transmit`), then the RTO is the backstop.
    fn on_pto(&mut self, now: Time) {
        self.rack.pto_at = None;
        if self.tlp_may_arm() {
            self.rack.probe_due = true;
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// The probe: a new segment if the receive window allows one (cwnd is not checked),
    /// else the highest segment sent.
    fn probe_segment(&self) -> Option<u64> {
        let mss = self.cfg.mss as u64;
        if self.snd_nxt == self.snd_max && self.snd_nxt < self.app_end {
            let len = self.seg_len(self.snd_nxt / mss) as u64;
            if self.snd_max + len - self.snd_una <= self.rwnd {
                return Some(self.snd_nxt / mss);
            }
        }
        if self.snd_max <= self.snd_una {
            return None;
        }
        let last = (self.snd_max - 1) / mss;
        self.recs
            .get(last)
            .is_some_and(|r| !r.sacked)
            .then_some(last)
    }

    fn send_probe(&mut self, now: Time, idx: u64, idle: bool) -> Segment {
        let seg = self.send(now, idx, idle);
        self.stats.tlp_probes += 1;
        self.rack.tlp_end = Some(self.snd_max);
        self.rack.tlp_retrans = seg.retransmission;
        self.rack.pto_at = None;
        self.rto_at = Some(now + self.rtt.rto());
        seg
    }

    /// RFC 8985 section 7.4 (TLP_process_ack, without DSACK) and PTO re-arming on ACKs.
    fn tlp_on_ack(&mut self, now: Time, ack: u64, prior_una: u64, no_sack: bool) {
        if let Some(end) = self.rack.tlp_end.filter(|&e| ack >= e) {
            if !self.rack.tlp_retrans {
                self.rack.tlp_end = None; // a probe of new data: nothing was repaired
            } else if ack > end {
                // The retransmitted probe repaired a loss: respond as to fast recovery.
                self.rack.tlp_end = None;
                let flight = self.flight_size();
                self.cc.on_congestion_event(
                    &mut self.w,
                    CongestionEvent::FastRetransmit,
                    now,
                    flight,
                );
                self.cc.on_recovery_exit(&mut self.w, now);
            } else if ack == prior_una && no_sack {
                self.rack.tlp_end = None;
            }
        }
        if !self.tlp_may_arm() {
            self.rack.pto_at = None;
        } else if ack > prior_una || self.rack.pto_at.is_none() {
            self.arm_pto(now);
        }
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        if !self.started {
            return;
        }
        if self.rack_on {
            if self.rack.pto_at.is_some_and(|t| t <= now) {
                self.on_pto(now);
            }
            if self.rack.reo_timer.is_some_and(|t| t <= now) {
                self.rack.reo_timer = None;
                if self.snd_una < self.snd_max {
                    self.rack_detect(now, false);
                }
            }
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
        self.go_back(self.snd_una);
        self.sb.high_rxt = self.snd_una;
        if self.rack_on {
            self.rack.reset_tlp();
            self.rack.reo_timer = None;
            self.rack.rxt_from = self.recs.base();
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Starts go-back-N from `seq`: every segment the receiver has not SACKed is presumed
    /// lost (RFC 5681 section 3.1; RFC 6675 section 5.1 keeps the SACK information).
    fn go_back(&mut self, seq: u64) {
        self.snd_nxt = seq;
        self.go_back_n = true;
        let mut lost = 0;
        for (_, r) in self.recs.iter_mut() {
            if !r.sacked {
                r.lost = true;
                lost += r.len as u64;
            }
        }
        self.lost_bytes = lost;
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
        // Delivery-rate draft (section 3.2): a send with nothing in flight starts a new
        // sampling interval; after a timeout that is true although data is outstanding.
        let idle = self.bytes_in_flight() == 0;
        if self.retx_head {
            self.retx_head = false;
            let idx = self.snd_una / mss;
            if self.cfg.recovery == RecoveryMode::Sack {
                self.sb.high_rxt = self.sb.high_rxt.max(self.seg_end(idx));
                self.pipe += self.seg_len(idx) as u64;
            }
            return Some(self.send(now, idx, idle));
        }
        if self.rack.probe_due {
            self.rack.probe_due = false;
            if let Some(idx) = self.probe_segment() {
                return Some(self.send_probe(now, idx, idle));
            }
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
        let seg = self.send(now, idx, idle);
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
        if self.in_recovery && self.cfg.recovery == RecoveryMode::Sack {
            if self.recovery_pipe() + mss > self.w.cwnd.max(mss) {
                return None;
            }
            let new_ok = self.snd_nxt < self.app_end
                && self.snd_nxt == self.snd_max
                && self.snd_max + self.seg_len(self.snd_max / mss) as u64 - self.snd_una
                    <= self.rwnd;
            if self.rack_on {
                // RFC 8985 replaces IsLost; NextSeg's rule 3 is left to the TLP.
                if let Some(idx) = self.rack_next_lost() {
                    return Some(idx);
                }
                return new_ok.then_some(self.snd_nxt / mss);
            }
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
        // Go-back-N after a timeout skips segments the receiver SACKed (and, with RACK,
        // which may send it back to a lost retransmission, those not deemed lost).
        let skip_unlost = self.rack_on && self.cc.fast_recovery();
        while self.snd_nxt < self.snd_max {
            match self.recs.get(self.snd_nxt / mss) {
                Some(r) if r.sacked || (skip_unlost && !r.lost) => {
                    self.snd_nxt = (self.snd_nxt / mss + 1) * mss
                }
                _ => break,
            }
        }
        if self.snd_nxt >= self.app_end {
            if self.snd_nxt == self.snd_max && self.w.cwnd > self.snd_nxt - self.snd_una {
                self.rate.on_app_limited(self.snd_nxt - self.snd_una);
            }
            return None;
        }
        let idx = self.snd_nxt / mss;
        let len = self.seg_len(idx) as u64;
        if self.bytes_in_flight() + len > self.w.cwnd
            || self.snd_nxt - self.snd_una + len > self.rwnd
        {
            return None;
        }
        Some(idx)
    }

    /// Emits segment `idx` (new or retransmitted) and updates all bookkeeping. `idle`:
    /// nothing was in flight before it.
    fn send(&mut self, now: Time, idx: u64, idle: bool) -> Segment {
        let mss = self.cfg.mss as u64;
        let seq = idx * mss;
        let len = self.seg_len(idx);
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
        if rec.lost {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
        if self.rack_on {
            self.rack.on_sent(idx, now);
        }
        rec.len = len;
        rec.tx_count = rec.tx_count.saturating_add(1);
        rec.lost = false;
        rec.counted = false;
        self.rate.on_send(now, idle, rec);
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
        // RFC 8985 section 7.2: (re)arm the PTO after sending new data.
        if !retransmission && self.tlp_may_arm() {
            self.arm_pto(now);
        }
        seg
    }

    /// Pacing lets `send_quantum` full segments leave back to back: a send may come up to
    /// (quantum − 1) segment times before its paced slot.
    fn pacing_slack(&self, rate: u64) -> Dur {
        let q = self.cc.send_quantum() as u64;
        if q <= 1 {
            return Dur::ZERO;
        }
        let seg = (self.cfg.mss + crate::tcp::segment::DATA_HEADER_BYTES) as u64;
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
        if self.rack_on {
            consider(self.rack.pto_at);
            consider(self.rack.reo_timer);
        }
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
