//! RACK-TLP loss detection (RFC 8985) for SACK recovery: [`Rack`] is the detection state,
//! [`RackRecovery`] the RFC 6675 recovery that uses it instead of IsLost.
//!
//! RACK marks a segment lost once a segment *sent* sufficiently later was delivered:
//! sent more than `RACK.rtt + reo_wnd` before now, and before the most recently sent
//! delivered segment. Because it compares transmission times, not sequence numbers, it
//! detects lost retransmissions too, which RFC 6675's IsLost cannot.
//! TLP sends one probe after a probe timeout (about two SRTTs) of silence so that a
//! tail loss produces a SACK for RACK instead of waiting for the RTO.
//!
//! Transmissions are kept in a log in transmission order (the RFC's "xmit_ts
//! ordering"). The loss check walks it from the oldest entry, dropping entries that are
//! no longer outstanding, and stops at the first segment sent after RACK.xmit_ts: the
//! walk touches only segments that are already stale or waiting out the reordering
//! window, not the whole window. The log's ring buffer is reused (no allocation per ACK
//! in steady state).

use crate::cc::CongestionControl;
use crate::records::{Records, SentRecord};
use crate::rtt::RtoRule;
use crate::tcp::loss_recovery::{AckSummary, LossRecovery};
use crate::tcp::sack::{exit_at_recovery_point, room};
use crate::tcp::send_state::SendState;
use crate::tcp::window_cut::Cut;
use std::collections::VecDeque;
use tcplab_core::{Dur, Time};

/// RFC 8985 section 7.2 WCDelAckT: worst-case delayed-ACK timer, added to the PTO when
/// only one segment is in flight.
pub const WC_DEL_ACK: Dur = Dur::from_millis(200);

/// One transmission of segment `idx` at `at`.
#[derive(Clone, Copy, Debug)]
struct Sent {
    idx: u64,
    at: Time,
}

/// RACK and TLP state (RFC 8985 sections 6 and 7).
#[derive(Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered so far.
    xmit_ts: Time,
    end_seq: u64,
    /// RACK.rtt: RTT of that segment's delivery.
    rtt: Dur,
    have: bool,
    log: VecDeque<Sent>,
    /// The reordering timer (RFC 8985 section 6.2 step 5).
    pub reo_timer: Option<Time>,
    /// The probe timeout (section 7.2).
    pub pto_at: Option<Time>,
    /// TLP.end_seq: snd_max after the outstanding probe, if any.
    pub tlp_end: Option<u64>,
    /// TLP.is_retrans.
    pub tlp_retrans: bool,
    /// The PTO fired and the probe has not left yet.
    pub probe_due: bool,
    /// Latest transmission time of a retransmission found lost by the last
    /// `detect_loss` (RFC 5681: a lost retransmission is a second congestion signal).
    pub lost_rtx_sent: Option<Time>,
    /// No segment below this index is lost and awaiting retransmission (NextSeg cursor).
    pub rxt_from: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: Time::ZERO,
            end_seq: 0,
            rtt: Dur::ZERO,
            have: false,
            log: VecDeque::new(),
            reo_timer: None,
            pto_at: None,
            tlp_end: None,
            tlp_retrans: false,
            probe_due: false,
            lost_rtx_sent: None,
            rxt_from: 0,
        }
    }
}

/// RACK_sent_after: `a` was sent after `b` (ties broken by end sequence).
fn sent_after(a: (Time, u64), b: (Time, u64)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 > b.1)
}

impl Rack {
    /// Segment `idx` was (re)transmitted at `now`.
    pub fn on_sent(&mut self, idx: u64, now: Time) {
        self.log.push_back(Sent { idx, at: now });
    }

    /// RACK_update (section 6.2 step 2) for one segment newly delivered, cumulatively or
    /// by SACK. Without timestamps, a retransmitted segment delivered sooner than the
    /// minimum RTT after its retransmission was most likely the original's delivery and
    /// is ignored.
    pub fn on_delivered(
        &mut self,
        now: Time,
        idx: u64,
        rec: &SentRecord,
        mss: u32,
        min_rtt: Option<Dur>,
    ) {
        let rtt = now - rec.sent_time();
        if rec.tx_count > 1 && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        let end = idx * mss as u64 + rec.len as u64;
        if !self.have || sent_after((rec.sent_time(), end), (self.xmit_ts, self.end_seq)) {
            self.have = true;
            self.xmit_ts = rec.sent_time();
            self.end_seq = end;
            self.rtt = rtt;
        }
    }

    /// RACK_detect_loss_and_arm_timer (section 6.2 step 5): marks outstanding segments
    /// sent more than RACK.rtt + `reo_wnd` ago and before RACK.xmit_ts as lost, and arms
    /// the reordering timer for those still inside the window. Adds the bytes it marks to
    /// `lost_bytes` and returns the lowest index newly marked lost.
    pub fn detect_loss(
        &mut self,
        now: Time,
        recs: &mut Records,
        mss: u32,
        reo_wnd: Dur,
        lost_bytes: &mut u64,
    ) -> Option<u64> {
        self.reo_timer = None;
        self.lost_rtx_sent = None;
        if !self.have {
            return None;
        }
        let mss = mss as u64;
        let mut lowest: Option<u64> = None;
        let mut wait = Dur::ZERO;
        let mut i = 0;
        while i < self.log.len() {
            let e = self.log[i];
            let live = recs
                .get_mut(e.idx)
                .filter(|r| r.sent_time() == e.at && !r.sacked() && !r.lost());
            let Some(rec) = live else {
                // Delivered, released, resent since or already lost: no longer a
                // candidate. Entries are only dropped from the front (the log stays in
                // transmission order); stale ones behind a waiting entry go later.
                if i == 0 {
                    self.log.pop_front();
                } else {
                    i += 1;
                }
                continue;
            };
            let end = e.idx * mss + rec.len as u64;
            if !sent_after((self.xmit_ts, self.end_seq), (e.at, end)) {
                break; // every later entry was sent later still
            }
            let deadline = e.at + self.rtt + reo_wnd;
            if deadline <= now {
                rec.set_lost(true);
                *lost_bytes += rec.len as u64;
                if rec.tx_count > 1 {
                    self.lost_rtx_sent = Some(self.lost_rtx_sent.map_or(e.at, |t| t.max(e.at)));
                }
                self.rxt_from = self.rxt_from.min(e.idx);
                lowest = Some(lowest.map_or(e.idx, |l| l.min(e.idx)));
                if i == 0 {
                    self.log.pop_front();
                } else {
                    i += 1;
                }
            } else {
                // RFC 8985: wait for the longest remaining time among them.
                wait = wait.max(deadline - now);
                i += 1;
            }
        }
        if wait > Dur::ZERO {
            self.reo_timer = Some(now + wait);
        }
        lowest
    }

    /// Forgets the timers and the probe (on a timeout or on entering recovery).
    pub fn reset_tlp(&mut self) {
        self.pto_at = None;
        self.tlp_end = None;
        self.probe_due = false;
    }

    /// Everything is acknowledged: no entry is a candidate any more.
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    /// Entries in the transmission log (for tests of its bound).
    pub fn log_len(&self) -> usize {
        self.log.len()
    }
}

/// RFC 6675 recovery with RACK-TLP in place of IsLost: RACK marks losses (also of
/// retransmissions), NextSeg sends the lowest lost segment first, the pipe is what is
/// outstanding less SACKed and lost bytes, and a tail loss probe precedes the RTO.
#[derive(Debug)]
pub(super) struct RackRecovery {
    rack: Rack,
    mss: u32,
    /// When the window was last cut for a loss (a lost retransmission sent after this is
    /// a new congestion signal).
    last_cut_at: Time,
    /// The next segment sent is the tail loss probe.
    probing: bool,
}

impl RackRecovery {
    pub fn new(mss: u32) -> RackRecovery {
        RackRecovery {
            rack: Rack::default(),
            mss,
            last_cut_at: Time::ZERO,
            probing: false,
        }
    }

    pub fn log_len(&self) -> usize {
        self.rack.log_len()
    }

    /// RACK.reo_wnd: min_RTT / 4, at most SRTT (zero before the first RTT sample).
    fn reo_wnd(s: &SendState) -> Dur {
        match (s.rtt.min_rtt(), s.rtt.srtt()) {
            (Some(m), Some(srtt)) => (m / 4).min(srtt),
            (Some(m), None) => m / 4,
            _ => Dur::ZERO,
        }
    }

    /// Runs RACK's loss detection (on an ACK or the reordering timer) and acts on what it
    /// marks: start fast recovery, or in RTO recovery go back to a lost retransmission.
    /// `early`: the controller declared the head segment lost.
    fn detect(&mut self, s: &mut SendState, now: Time, early: bool) {
        let before = s.sb.lost_bytes;
        let reo_wnd = Self::reo_wnd(s);
        let lowest = self
            .rack
            .detect_loss(now, &mut s.recs, s.mss, reo_wnd, &mut s.sb.lost_bytes);
        if let Some(t) = self.rack.reo_timer {
            self.rack.reo_timer = Some(s.timer_expiry(now, t - now + s.timer_slack()));
        }
        if lowest.is_some() {
            let mss = s.mss as u64;
            s.stats.rack_lost += (s.sb.lost_bytes - before).div_ceil(mss);
        }
        if !s.in_recovery {
            let can_enter = s.recover.is_none_or(|r| s.snd_una >= r);
            if !can_enter {
                // RTO recovery: resend a retransmission RACK found lost (go-back-N then
                // skips segments that are not lost).
                if let Some(idx) = lowest {
                    s.snd_nxt = s.snd_nxt.min(idx * s.mss as u64);
                }
                return;
            }
            if s.sb.lost_bytes == 0 && !early {
                return;
            }
            s.cut_window(now, Cut::FastRetransmit);
            self.last_cut_at = now;
            self.rack.reset_tlp();
            // RFC 6675 (4.3): the first loss leaves regardless of cwnd.
            s.retx_head = early
                || s.recs
                    .get(s.snd_una / s.mss as u64)
                    .is_some_and(|r| r.lost());
        } else {
            if early {
                s.retx_head = true;
            }
            // RFC 5681 section 4.3 (recalled by RFC 8985 sections 3.4 and 9.3): the loss
            // of a retransmission is a second congestion signal, so the window is cut
            // again (PRR starting over, the undo episode kept), once per retransmission
            // sent after the last cut, and recovery extends to what is outstanding now.
            if self
                .rack
                .lost_rtx_sent
                .is_some_and(|t| t >= self.last_cut_at)
            {
                s.cut_window(now, Cut::LostRetransmission);
                self.last_cut_at = now;
            }
        }
    }

    /// NextSeg rule 1 under RACK: the lowest segment marked lost and not yet resent. The
    /// cursor only moves back when RACK or a timeout marks a segment below it.
    fn next_lost(&mut self, s: &SendState) -> Option<u64> {
        let end = s.recs.end();
        let mut i = self.rack.rxt_from.max(s.recs.base());
        while i < end && !s.recs.get(i).is_some_and(|r| r.lost()) {
            i += 1;
        }
        self.rack.rxt_from = i;
        (i < end).then_some(i)
    }

    /// RFC 8985 section 7.2: a PTO may be armed in the open state only (not in fast or
    /// RTO recovery, nothing SACKed above a hole), with data in flight and no probe
    /// outstanding.
    fn tlp_may_arm(&self, s: &SendState) -> bool {
        !s.in_recovery
            && s.recover.is_none_or(|r| s.snd_una >= r)
            && s.sb.sacked_bytes == 0
            && s.snd_una < s.snd_max
            && self.rack.tlp_end.is_none()
            && !s.is_complete()
    }

    /// PTO = 2·SRTT (+ WCDelAckT with one segment in flight, else Linux's 2 ms slack
    /// under `timer_hz`; 1 s before any sample), not beyond the RTO expiry (the probe
    /// then takes the RTO's place).
    fn arm_pto(&mut self, s: &SendState, now: Time) {
        let pto = match s.rtt.srtt() {
            Some(srtt) if s.flight_size() <= s.mss as u64 => srtt * 2 + WC_DEL_ACK,
            Some(srtt) => srtt * 2 + s.timer_slack(),
            None => Dur::from_secs(1),
        };
        let at = s.timer_expiry(now, pto);
        self.rack.pto_at = Some(s.rto_at.map_or(at, |r| r.min(at)));
    }

    /// The PTO fired: send a probe now (`poll_transmit`), then the RTO is the backstop.
    fn on_pto(&mut self, s: &mut SendState, now: Time) {
        self.rack.pto_at = None;
        if self.tlp_may_arm(s) {
            self.rack.probe_due = true;
            s.restart_rto(now);
        }
    }

    /// The probe: a new segment if the receive window allows one (cwnd is not checked),
    /// else the highest segment sent.
    fn probe_segment(s: &SendState) -> Option<u64> {
        let mss = s.mss as u64;
        if s.snd_nxt == s.snd_max && s.snd_nxt < s.app_end {
            let len = s.seg_len(s.snd_nxt / mss) as u64;
            if s.snd_max + len - s.snd_una <= s.rwnd {
                return Some(s.snd_nxt / mss);
            }
        }
        if s.snd_max <= s.snd_una {
            return None;
        }
        let last = (s.snd_max - 1) / mss;
        s.recs
            .get(last)
            .is_some_and(|r| !r.sacked())
            .then_some(last)
    }

    /// RFC 8985 section 7.4 (TLP_process_ack, with D-SACK when the receiver sends it) and
    /// PTO re-arming on ACKs.
    fn tlp_on_ack(&mut self, s: &mut SendState, now: Time, a: &AckSummary) {
        if let Some(end) = self.rack.tlp_end.filter(|&e| a.ack >= e) {
            if !self.rack.tlp_retrans {
                self.rack.tlp_end = None; // a probe of new data: nothing was repaired
            } else if a.dsack_end == Some(end) {
                // RFC 8985 7.4: a D-SACK for the probe: the original arrived, nothing lost.
                self.rack.tlp_end = None;
            } else if a.ack > end {
                // The retransmitted probe repaired a loss (RFC 8985 7.4.2): the response
                // of a fast recovery.
                self.rack.tlp_end = None;
                s.cut_window(now, Cut::TlpRepair);
            } else if a.ack == a.prior_una && a.no_sack {
                self.rack.tlp_end = None;
            }
        }
        if !self.tlp_may_arm(s) {
            self.rack.pto_at = None;
        } else if a.ack > a.prior_una || self.rack.pto_at.is_none() {
            self.arm_pto(s, now);
        }
    }
}

impl LossRecovery for RackRecovery {
    fn on_delivered(&mut self, now: Time, idx: u64, rec: &SentRecord, min_rtt: Option<Dur>) {
        self.rack.on_delivered(now, idx, rec, self.mss, min_rtt);
    }

    fn on_ack(&mut self, s: &mut SendState, now: Time, ack: u64, _acked: u64) -> bool {
        exit_at_recovery_point(s, now, ack);
        if s.snd_una >= s.snd_max {
            self.rack.clear_log();
        }
        false
    }

    fn after_ack(&mut self, s: &mut SendState, now: Time, a: &AckSummary) {
        if s.snd_una < s.snd_max {
            self.detect(s, now, a.early);
        }
        let pipe = s.presumed_in_flight();
        s.prr_on_ack(a.prior_una, a.prior_sacked, pipe, a.newly_sacked > 0);
        self.tlp_on_ack(s, now, a);
    }

    /// In recovery: lost segments first (RFC 8985 replaces IsLost; NextSeg's rule 3 is
    /// left to the TLP), then new data. Outside it, the in-order pass, which in RTO
    /// recovery also skips segments not deemed lost (RACK may send it back to a lost
    /// retransmission).
    fn next_segment(&mut self, s: &mut SendState) -> Option<u64> {
        if !s.in_recovery {
            let skip_unlost = s.cc.fast_recovery();
            return s.next_in_order(skip_unlost);
        }
        let new_ok = room(s, s.presumed_in_flight())?;
        if let Some(idx) = self.next_lost(s) {
            return Some(idx);
        }
        new_ok.then_some(s.snd_nxt / s.mss as u64)
    }

    fn take_probe(&mut self, s: &mut SendState) -> Option<u64> {
        if !self.rack.probe_due {
            return None;
        }
        self.rack.probe_due = false;
        let idx = Self::probe_segment(s);
        self.probing = idx.is_some();
        idx
    }

    fn on_sent(&mut self, s: &mut SendState, now: Time, idx: u64, retransmission: bool) {
        self.rack.on_sent(idx, now);
        // Linux's tcp_xmit_retransmit_queue restarts the retransmission timer when it
        // resends the head (`skb == rtx_head`), so a head retransmission RACK found lost
        // again gets a whole RTO to be ACKed. (While Linux's reordering timer holds the
        // one timer slot it skips this, but tcp_rack_reo_timeout then re-arms the RTO
        // from the head's transmission time, tcp_rearm_rto/tcp_rto_delta_us: the same
        // deadline; tcplab keeps the two timers apart.) Part of Linux's timer rules
        // (`rto_rule = "linux"`); RFC 6298 restarts the timer only on ACKs.
        if retransmission
            && !self.probing
            && s.rtt.rule() == RtoRule::Linux
            && idx == s.snd_una / s.mss as u64
        {
            s.restart_rto(now);
        }
        // RFC 8985 section 7.2: (re)arm the PTO after sending new data.
        if !retransmission && self.tlp_may_arm(s) {
            self.arm_pto(s, now);
        }
        if std::mem::take(&mut self.probing) {
            s.stats.tlp_probes += 1;
            self.rack.tlp_end = Some(s.snd_max);
            self.rack.tlp_retrans = retransmission;
            self.rack.pto_at = None;
            s.restart_rto(now);
        }
    }

    fn on_head_retransmit(&mut self, s: &mut SendState, idx: u64) {
        let seq = s.sb.high_rxt().max(s.seg_end(idx));
        s.sb.set_high_rxt(&s.recs, seq, s.mss);
    }

    fn on_rto(&mut self, s: &mut SendState) {
        self.rack.reset_tlp();
        self.rack.reo_timer = None;
        self.rack.rxt_from = s.recs.base();
    }

    fn pipe(&self, s: &SendState) -> Option<u64> {
        s.in_recovery.then(|| s.presumed_in_flight())
    }

    fn in_network(&mut self, s: &mut SendState) -> u64 {
        s.presumed_in_flight()
    }

    fn timeout(&self) -> Option<Time> {
        match (self.rack.pto_at, self.rack.reo_timer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timeout(&mut self, s: &mut SendState, now: Time) {
        if self.rack.pto_at.is_some_and(|t| t <= now) {
            self.on_pto(s, now);
        }
        if self.rack.reo_timer.is_some_and(|t| t <= now) {
            self.rack.reo_timer = None;
            if s.snd_una < s.snd_max {
                self.detect(s, now, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8985 section 7.4: a D-SACK for a retransmitted probe means the original arrived:
    /// no congestion response when a later ACK covers more than the probe. Without it the
    /// probe counts as a repaired loss and the window is cut.
    #[test]
    fn dsack_for_a_probe_is_no_loss() {
        use crate::cc::{Controller, NewReno};
        use crate::tcp::config::{RecoveryMode, SenderConfig};
        for dsack in [true, false] {
            let cfg = SenderConfig {
                mss: 1000,
                recovery: RecoveryMode::Sack,
                undo: true,
                ..SenderConfig::default()
            };
            let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
            s.w.ssthresh = 8000;
            s.w.cwnd = 8000;
            s.snd_una = 10_000;
            s.snd_max = 10_000;
            let mut r = RackRecovery::new(1000);
            r.rack.tlp_end = Some(10_000);
            r.rack.tlp_retrans = true;
            let a = AckSummary {
                ack: 10_000,
                prior_una: 10_000,
                prior_sacked: 0,
                no_sack: false,
                newly_sacked: 0,
                early: false,
                dsack_end: dsack.then_some(10_000),
            };
            r.tlp_on_ack(&mut s, Time(1), &a);
            let later = AckSummary {
                ack: 12_000,
                dsack_end: None,
                ..a
            };
            r.tlp_on_ack(&mut s, Time(2), &later);
            let cut = s.w.ssthresh < 8000;
            assert_eq!(cut, !dsack, "D-SACK seen: {dsack}");
            // The cut is the window cut of every loss (RFC 8985 7.4.2: "equivalent to a
            // fast recovery"): counted, with an undo episode holding the window before.
            assert_eq!(s.stats.fast_retransmits, u64::from(cut));
            assert_eq!(
                s.undo.episode.map(|e| (e.prior_cwnd, e.prior_ssthresh)),
                cut.then_some((8000, 8000))
            );
        }
    }

    /// Ten segments sent at 0 under RACK with PRR and undo: SACKs of segments 1-9 at
    /// 100 ms make segment 0 lost (fast recovery starts), its retransmission and segment
    /// 10 leave at once, and the SACK of segment 10 at 200 ms shows the retransmission
    /// lost too. The sender and its RACK recovery after that ACK.
    fn lost_retransmission() -> (SendState, RackRecovery) {
        use crate::cc::{Controller, NewReno};
        use crate::tcp::config::{RecoveryCwnd, RecoveryMode, SenderConfig};
        use crate::tcp::segment::{SackBlock, Segment};
        let cfg = SenderConfig {
            mss: 1000,
            recovery: RecoveryMode::Sack,
            recovery_cwnd: RecoveryCwnd::Prr,
            undo: true,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
        let mut r = RackRecovery::new(1000);
        let ms = |t: u64| Time(t * 1_000_000);
        let send = |s: &mut SendState, r: &mut RackRecovery, t: u64, idx: u64| {
            let seg = s.record_send(ms(t), idx, false);
            r.on_sent(s, ms(t), idx, seg.retransmission);
        };
        let sack = |s: &mut SendState, r: &mut RackRecovery, t: u64, end: u64| {
            let mut seg = Segment {
                n_sack: 1,
                ..Segment::default()
            };
            seg.sack[0] = SackBlock { start: 1000, end };
            let a = AckSummary {
                ack: 0,
                prior_una: 0,
                prior_sacked: s.sb.sacked_bytes,
                no_sack: false,
                newly_sacked: 0,
                dsack_end: None,
                early: false,
            };
            s.take_sack(ms(t), &seg, |idx, rec| {
                r.on_delivered(ms(t), idx, rec, None)
            });
            r.after_ack(s, ms(t), &a);
        };
        for i in 0..10 {
            send(&mut s, &mut r, 0, i);
        }
        sack(&mut s, &mut r, 100, 10_000);
        assert!(s.in_recovery && s.retx_head, "RACK found segment 0 lost");
        assert_eq!((s.w.ssthresh, s.stats.fast_retransmits), (5000, 1));
        s.retx_head = false;
        send(&mut s, &mut r, 100, 0);
        send(&mut s, &mut r, 100, 10);
        sack(&mut s, &mut r, 200, 11_000);
        (s, r)
    }

    /// RFC 8985 section 9.3 (RFC 5681 section 4.3): the retransmission RACK finds lost in
    /// recovery cuts the window again through the same entry as every cut: counted, the
    /// undo episode kept (undoing restores the window from before the first cut), PRR
    /// started over from the new ssthresh (RFC 6937 section 3: RecoverFS = FlightSize).
    #[test]
    fn a_lost_retransmission_is_cut_with_prr_and_undo() {
        let (mut s, _) = lost_retransmission();
        assert_eq!(s.stats.fast_retransmits, 2, "cut again");
        assert!(s.recs.get(0).unwrap().lost());
        assert_eq!(s.w.ssthresh, 2000, "nothing else in the network: 2 SMSS");
        let mut fresh = crate::tcp::prr::Prr::default();
        fresh.start(11_000);
        // This ACK's delivery (segment 10) already went through the new PRR.
        fresh.on_ack(1000, s.presumed_in_flight(), s.w.ssthresh, 1000);
        assert_eq!(s.prr, fresh, "PRR starts over at the second cut");
        assert_eq!(s.recover, Some(11_000));
        s.undo_reduction(Time(1), false, 0);
        assert_eq!((s.w.cwnd, s.w.ssthresh), (10_000, u64::MAX));
    }

    fn rec(sent_ms: u64, tx_count: u8) -> SentRecord {
        let mut r = SentRecord::new(1000, Time(sent_ms * 1_000_000));
        r.tx_count = tx_count;
        r
    }

    /// RFC 8985 section 6.2: a segment is lost once a segment sent later was delivered and
    /// it was sent more than RACK.rtt + reo_wnd ago; one still inside the window arms the
    /// reordering timer for the time it lacks.
    #[test]
    fn detect_loss_marks_by_send_time() {
        let mut recs = Records::default();
        let mut rack = Rack::default();
        for (i, t) in [0u64, 1, 2].into_iter().enumerate() {
            recs.push(i as u64, rec(t, 1));
            rack.on_sent(i as u64, Time(t * 1_000_000));
        }
        // Segment 2 (sent at 2 ms) delivered at 102 ms: RACK.rtt = 100 ms.
        let now = Time(102_000_000);
        let r2 = *recs.get(2).unwrap();
        rack.on_delivered(now, 2, &r2, 1000, None);
        recs.get_mut(2).unwrap().set_sacked(true);
        let mut lost = 0;
        let reo = Dur::from_millis(1);
        // Segment 0: 0 + 100 + 1 <= 102: lost. Segment 1: 1 + 100 + 1 = 102: lost too.
        assert_eq!(
            rack.detect_loss(now, &mut recs, 1000, reo, &mut lost),
            Some(0)
        );
        assert_eq!(lost, 2000);
        assert!(recs.get(0).unwrap().lost() && recs.get(1).unwrap().lost());
        assert_eq!(rack.reo_timer, None);
        // With a 5 ms window neither is lost yet; the timer waits for the longest
        // remaining time among them (RFC 8985 section 6.2 step 5): segment 1's.
        let mut recs2 = Records::default();
        let mut rack2 = Rack::default();
        for (i, t) in [0u64, 1, 2].into_iter().enumerate() {
            recs2.push(i as u64, rec(t, 1));
            rack2.on_sent(i as u64, Time(t * 1_000_000));
        }
        rack2.on_delivered(now, 2, &r2, 1000, None);
        recs2.get_mut(2).unwrap().set_sacked(true);
        let mut lost2 = 0;
        let reo = Dur::from_millis(5);
        assert_eq!(
            rack2.detect_loss(now, &mut recs2, 1000, reo, &mut lost2),
            None
        );
        assert_eq!(rack2.reo_timer, Some(Time(106_000_000)), "1 + 100 + 5 ms");
    }

    /// Without timestamps, a retransmission delivered sooner than min_RTT after it was
    /// sent was most likely the original's delivery and does not update RACK.
    #[test]
    fn early_delivery_of_a_retransmission_is_ignored() {
        let mut rack = Rack::default();
        let r = rec(100, 2);
        rack.on_delivered(Time(110_000_000), 5, &r, 1000, Some(Dur::from_millis(50)));
        let mut recs = Records::default();
        recs.push(0, rec(0, 1));
        rack.on_sent(0, Time(0));
        let mut lost = 0;
        assert_eq!(
            rack.detect_loss(Time(500_000_000), &mut recs, 1000, Dur::ZERO, &mut lost),
            None,
            "no RACK state yet"
        );
    }
}
