//! The sending endpoint: the sans-IO API and the order in which its parts act.
//!
//! - `send_state.rs`: the shared state (sequence space, records, scoreboard, window);
//! - `ack_intake.rs`: SACK blocks and cumulative ACKs, RTT and delivery-rate sampling;
//! - `transmit.rs`: the in-order send pass and each segment's bookkeeping;
//! - `rto.rs`: the retransmission timer and go-back-N after it;
//! - `loss_recovery.rs`: loss recovery behind one interface, `recovery.rs` the one chosen
//!   (`reno.rs`, `sack.rs`, `rack.rs`);
//! - `window_cut.rs`: window reductions and their undo, `undo.rs` detecting spurious ones;
//! - `handshake.rs`: the SYN exchange before data;
//! - `timestamps.rs`: RFC 7323 clock and echo;
//! - [`crate::pacing`] and [`crate::timer_rounds`]: when segments may leave.

use crate::cc::{AckInfo, Capabilities, CongestionControl, Controller, Window};
use crate::error::Violation;
use crate::pacing::Pacer;
use crate::packet::Packet;
use crate::rtt::{RtoRule, RttEstimator};
use crate::tcp::config::{AckedBasis, SenderConfig};
use crate::tcp::handshake::Handshake;
use crate::tcp::loss_recovery::{AckSummary, LossRecovery};
use crate::tcp::recovery::Recovery;
use crate::tcp::segment::{Segment, DATA_HEADER_BYTES, TS_OPTION_BYTES};
use crate::tcp::send_state::SendState;
use crate::tcp::stats::SenderStats;
use crate::tcp::undo::dsack_block;
use crate::timer_rounds::TimerRounds;
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
///
/// `repr(C)`: the recovery, the pacer, the controller's pacing flag and the handshake
/// state's tag, read on every ACK and poll, share the first line; the shared state starts on a line of its own (see
/// its layout).
#[derive(Debug)]
#[repr(C)]
pub struct Sender {
    pub(super) recovery: Recovery,
    pub(super) pacer: Pacer,
    rounds: TimerRounds,
    /// The controller's opt-in hooks, asked once (its answer never changes): polls,
    /// sends and ACKs skip the hooks it does not override. One byte of the first line.
    pub(super) can: Capabilities,
    /// NewReno's recovery and a controller without pacing or send timers (both fixed at
    /// construction): the polls' [`window_full`](Self::window_full) may answer, and the
    /// retransmission timer is the only deadline.
    plain_polls: bool,
    hs: Handshake,
    pub(super) s: SendState,
}

impl Sender {
    pub fn new(flow: u32, cfg: SenderConfig, cc: Controller) -> Sender {
        let recovery = Recovery::new(&cfg);
        let ts = if cfg.timestamps { TS_OPTION_BYTES } else { 0 };
        let pacer = Pacer::new((cfg.mss + DATA_HEADER_BYTES + ts) as u64).with_bursts(cfg.bursts);
        let can = cc.capabilities();
        Sender {
            plain_polls: matches!(recovery, Recovery::Reno(_))
                && !can.has(Capabilities::PACES_OR_TIMES),
            can,
            s: SendState::new(flow, cfg, cc),
            recovery,
            pacer,
            rounds: TimerRounds::default(),
            hs: Handshake::Done,
        }
    }

    // ---- getters ----

    pub fn flow(&self) -> u32 {
        self.s.flow
    }
    pub fn config(&self) -> &SenderConfig {
        &self.s.cfg
    }
    /// The statistics (the segments and bytes sent are derived: [`sent`](Self::sent)).
    pub fn stats(&self) -> &SenderStats {
        &self.s.stats
    }
    /// Segments and bytes sent, retransmissions included (derived, not counted per send:
    /// see [`SenderStats`]).
    pub fn sent(&self) -> (u64, u64) {
        self.s.sent()
    }
    pub fn window(&self) -> &Window {
        &self.s.w
    }
    pub fn controller(&self) -> &Controller {
        &self.s.cc
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.s.rtt
    }
    pub fn snd_una(&self) -> u64 {
        self.s.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.s.snd_max
    }
    pub fn in_recovery(&self) -> bool {
        self.s.in_recovery
    }
    /// Entries in RACK's transmission log (bounded by what is outstanding; for tests).
    #[doc(hidden)]
    pub fn rack_log_len(&self) -> usize {
        self.recovery.rack_log_len()
    }
    /// Bytes the application has written; `None` while unlimited.
    pub fn app_bytes(&self) -> Option<u64> {
        (self.s.app_end != u64::MAX).then_some(self.s.app_end)
    }
    /// All written data is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.s.is_complete()
    }
    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.s.flight_size()
    }

    pub fn snapshot(&self) -> SenderSnapshot {
        let s = &self.s;
        let m = s.cc.metrics(&s.w);
        SenderSnapshot {
            cwnd: s.w.cwnd,
            ssthresh: s.w.ssthresh,
            srtt: s.rtt.srtt(),
            latest_rtt: s.rtt.latest(),
            rto: s.rtt.rto(),
            in_flight: self.bytes_in_flight(),
            acked: s.snd_una,
            pacing_rate: m.pacing_rate,
            state: if s.in_recovery { "recovery" } else { m.state },
        }
    }

    /// What the window is compared against: the pipe in SACK recovery, else what
    /// [`SendState::in_flight`] counts.
    fn bytes_in_flight(&self) -> u64 {
        self.recovery
            .pipe(&self.s)
            .unwrap_or_else(|| self.s.in_flight())
    }

    // ---- application ----

    /// Starts the flow at `now` (the first segments may leave at once).
    pub fn start(&mut self, now: Time) {
        if self.s.started {
            return;
        }
        self.s.started = true;
        self.hs = Handshake::open(&self.s.cfg);
        if self.hs.is_done() {
            self.begin_data(now);
        }
    }

    /// The application stops writing: only data already sent is still delivered.
    pub fn stop(&mut self) {
        self.s.app_end = self.s.app_end.min(self.s.snd_max);
        if self.s.is_complete() {
            self.s.rto_at = None;
        }
    }

    /// Data may flow: the pacer and the controller start now.
    fn begin_data(&mut self, now: Time) {
        self.pacer.start(now);
        let s = &mut self.s;
        s.cc.init(&mut s.w, now);
    }

    // ---- inputs ----

    /// Processes an acknowledgement from the receiver.
    pub fn handle_segment(&mut self, now: Time, seg: &Segment) -> Result<(), Violation> {
        self.s.check_ack(seg)?;
        if !self.s.started {
            return Ok(());
        }
        if seg.syn || !self.hs.is_done() {
            // The SYN-ACK (or a late duplicate of it, ignored), or an early segment.
            if let Some(opened) = self.hs.on_segment(&mut self.s, now, seg) {
                self.begin_data(now);
                opened.initial_window(&mut self.s);
            }
            return Ok(());
        }
        self.s.rwnd = seg.wnd;
        if let Some(ts) = seg.ts.filter(|_| seg.ack >= self.s.snd_una) {
            self.s.peer_ts = ts.val;
        }
        // Undo detection looks at the ACK as it arrived (D-SACK against the old snd_una).
        // The D-SACK block is found only where it is read: by undo (on only with undo
        // configured; without it no episode opens), by the duplicate-ACK test when nothing
        // new was SACKed, and by the recoveries that act after an ACK. (Most ACKs carry
        // no D-SACK: no call.)
        let dsack_spurious = self.s.undo_on
            && dsack_block(seg).is_some_and(|d| {
                let s = &mut self.s;
                s.undo.on_dsack(d, s.snd_una, s.mss, &s.recs)
            });
        // Without undo no episode opens: the flag, in the first line, spares a new ACK
        // the episode's line.
        let eifel_spurious =
            seg.ack > self.s.snd_una && self.s.undo_on && self.s.undo.eifel(seg, self.s.timestamps);
        let prior_una = self.s.snd_una;
        let prior_sacked = self.s.sb.sacked_bytes;
        let prior_lost = self.s.sb.lost_ns3;
        let min_rtt = self.s.rtt.min_rtt();
        let recovery = &mut self.recovery;
        // Send times of the oldest and newest segment sent once that this ACK newly
        // SACKs (Linux's first_sackt and last_sackt), kept under `rto_rule = "linux"`
        // only: no other rule reads them.
        let linux_rtt = self.s.rtt.rule() == RtoRule::Linux;
        let mut sacked_sent: Option<(Time, Time)> = None;
        let newly_sacked = self.s.take_sack(now, seg, |idx, rec| {
            if linux_rtt && rec.tx_count == 1 {
                let t = rec.sent_time();
                sacked_sent = Some(sacked_sent.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            }
            recovery.on_delivered(now, idx, rec, min_rtt)
        });
        let mut early = false;
        if seg.ack > self.s.snd_una {
            self.on_new_ack(now, seg, prior_sacked, sacked_sent);
        } else if self.s.is_dup_ack(seg) && (newly_sacked > 0 || dsack_block(seg).is_none()) {
            if let Some(sacked_sent) = sacked_sent {
                self.s.take_sack_rtt(now, sacked_sent);
            }
            // An ACK whose only SACK news is a D-SACK reports a duplicate, not a segment
            // that left the network: no duplicate ACK (RFC 6675's definition; Linux).
            let s = &mut self.s;
            s.dupacks += 1;
            if self.can.has(Capabilities::HEARS_DUP_ACKS) {
                let flight = s.flight_size();
                s.cc.on_dup_ack(&mut s.w, now, flight);
            }
            early = self.can.has(Capabilities::EXPIRES_HEAD) && s.head_expired(now, true);
            self.recovery.on_dup_ack(s, now, early);
            if newly_sacked > 0 {
                // A controller that ignores ACKs of no new data needs no description of
                // this one; building it has no effect when the recovery keeps no pipe.
                // The rate sample is closed either way (its interval ends here).
                let sack_pipe = self.recovery.pipe(&self.s).is_some();
                if sack_pipe || self.can.has(Capabilities::HEARS_ACKS_WITHOUT_PROGRESS) {
                    let rs = self.take_sample();
                    let info = self.ack_info_given(sack_pipe, now, 0, None, rs);
                    self.s.cc.on_ack(&mut self.s.w, &info);
                } else if self.s.rate_on {
                    self.s.rate.close_sample();
                }
            }
        }
        // (Reno and NewReno do nothing after an ACK: no description.)
        if self.recovery.acts_after_ack() {
            let dsack = dsack_block(seg);
            let summary = AckSummary {
                ack: seg.ack,
                prior_una,
                prior_sacked,
                no_sack: seg.n_sack == 0,
                newly_sacked,
                dsack_end: dsack.map(|d| d.end),
                early,
            };
            let lost_before = self.s.stats.rack_lost;
            self.recovery.after_ack(&mut self.s, now, &summary);
            let lost = self.s.stats.rack_lost - lost_before;
            if lost > 0 {
                let s = &mut self.s;
                let in_flight = s.presumed_in_flight();
                s.cc.on_lost(&mut s.w, lost * s.mss as u64, in_flight);
            }
        }
        let change = self.s.sb.lost_ns3.abs_diff(prior_lost);
        if change > 0 {
            let s = &mut self.s;
            let in_flight = s.presumed_in_flight();
            s.cc.on_lost_change(&mut s.w, change, in_flight, s.in_recovery);
        }
        // Linux's tcp_try_undo_partial: a partial ACK in fast recovery undoes only once no
        // retransmission is left in the network.
        let eifel_spurious =
            eifel_spurious && !(self.s.in_recovery && self.s.retransmission_in_flight());
        if eifel_spurious || dsack_spurious {
            self.s
                .undo_reduction(now, eifel_spurious, seg.ack.saturating_sub(prior_una));
        }
        #[cfg(debug_assertions)]
        self.s.sb.check(&mut self.s.recs);
        Ok(())
    }

    /// An ACK of new data: release what it covers, let recovery act on it, run the
    /// timer, then tell the controller.
    fn on_new_ack(
        &mut self,
        now: Time,
        seg: &Segment,
        prior_sacked: u64,
        sacked_sent: Option<(Time, Time)>,
    ) {
        let (ack, ts_ecr) = (seg.ack, seg.ts.map(|t| t.ecr));
        let prior_una = self.s.snd_una;
        let acked = ack - prior_una;
        let min_rtt = self.s.rtt.min_rtt();
        let recovery = &mut self.recovery;
        let rtt_sample = self
            .s
            .take_cumulative_ack(now, ack, ts_ecr, sacked_sent, |idx, rec| {
                recovery.on_delivered(now, idx, rec, min_rtt)
            });
        let was_in_recovery = self.s.in_recovery;
        let hold_rto = self.recovery.on_ack(&mut self.s, now, ack, acked);
        self.s.rto_on_ack(now, hold_rto);
        // ECN (`ecn.rs`): the CWR state holds the window as recovery does.
        let cwr = self.s.ecn_on() && self.s.ecn_on_ack(now, seg.ece, prior_una, prior_sacked);
        let rs = self.take_sample();
        // Under `acked_basis = "delivered"` (ns-3) the controller hears what the ACK
        // newly delivered: the bytes SACKed before it were delivered then.
        let told = if self.s.cfg.acked_basis == AckedBasis::Delivered && !was_in_recovery {
            self.s.delivered_since(prior_una, prior_sacked)
        } else {
            acked
        };
        let info = AckInfo {
            in_recovery: was_in_recovery || cwr,
            ece: seg.ece,
            ..self.ack_info(now, told, rtt_sample, rs)
        };
        let s = &mut self.s;
        s.cc.on_ack(&mut s.w, &info);
        // Vegas checks the first ACKs after a retransmission against its own timeout.
        if !s.retx_head && self.can.has(Capabilities::EXPIRES_HEAD) && s.head_expired(now, false) {
            s.retx_head = true;
        }
        if s.is_complete() && s.stats.acked_all_at.is_none() {
            s.stats.acked_all_at = Some(now);
            s.rto_at = None;
        }
    }

    /// The ACK's delivery-rate sample; none without a sampler (whose line is then not
    /// read).
    #[inline]
    fn take_sample(&mut self) -> Option<crate::rate::RateSample> {
        if !self.s.rate_on {
            return None;
        }
        self.s.rate.take_sample(self.s.rtt.min_rtt())
    }

    /// What the controller is told about an ACK. Its `in_flight` is what cwnd is compared
    /// against: in SACK recovery the bytes in the network (controllers that manage their
    /// recovery window, like BBR, need it), else what is in flight.
    fn ack_info(
        &mut self,
        now: Time,
        bytes_acked: u64,
        rtt: Option<Dur>,
        rate: Option<crate::rate::RateSample>,
    ) -> AckInfo {
        let sack_pipe = self.recovery.pipe(&self.s).is_some();
        self.ack_info_given(sack_pipe, now, bytes_acked, rtt, rate)
    }

    /// [`ack_info`](Self::ack_info) when the caller has asked the recovery for its pipe.
    #[inline]
    fn ack_info_given(
        &mut self,
        sack_pipe: bool,
        now: Time,
        bytes_acked: u64,
        rtt: Option<Dur>,
        rate: Option<crate::rate::RateSample>,
    ) -> AckInfo {
        let in_flight = if sack_pipe {
            self.recovery.in_network(&mut self.s)
        } else {
            self.s.in_flight()
        };
        self.s.ack_info(now, bytes_acked, rtt, rate, in_flight)
    }

    /// Call when `poll_timeout` has passed.
    pub fn handle_timeout(&mut self, now: Time) {
        if !self.s.started {
            return;
        }
        if !self.hs.is_done() {
            self.hs.on_timeout(now, self.s.cfg.max_rto);
            return;
        }
        self.recovery.on_timeout(&mut self.s, now);
        if self.s.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
        let s = &mut self.s;
        if self.can.has(Capabilities::PACES_OR_TIMES) && s.cc.send_timer().is_some_and(|t| t <= now)
        {
            let no_data = s.snd_nxt >= s.app_end && !s.retx_head;
            self.rounds.on_timer(&mut s.cc, &mut s.w, now, no_data);
        }
    }

    // ---- outputs ----

    /// The next segment to send at `now`, if the window, pacing and timers allow one
    /// (the segment of [`poll_packet`](Self::poll_packet), for a transport that carries
    /// TCP's segments in its own packets).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        match self.poll_packet_full(now) {
            Some(Packet::Tcp(seg)) => Some(seg),
            _ => None, // the polls build TCP segments only
        }
    }

    /// The next packet to send at `now`: the segment built in the packet's place (an
    /// `Option<Segment>` wrapped afterwards is copied, 96 bytes twice, on every poll's way
    /// out: +3.8 % B1 instructions).
    ///
    /// Inlined into the caller up to the question whether the window is full
    /// ([`window_full`](Self::window_full)), the answer of about half the polls (the one
    /// after the segments an ACK lets go): the call and its register saves only when a
    /// segment may go.
    #[inline]
    pub fn poll_packet(&mut self, now: Time) -> Option<Packet> {
        if self.window_full() {
            // All `next_send` does on this path.
            self.pacer.begin_attempt();
            // Debug builds (tests, the debug digests) check that the full poll agrees.
            debug_assert!(matches!(self.next_send(now), NextSend::Nothing));
            return None;
        }
        self.poll_packet_full(now)
    }

    /// Whether a poll surely sends nothing, for the plain case only: NewReno's recovery
    /// (no probe, its next segment the next in order), a controller without pacing or
    /// timers, established and started, no head retransmission due, no go-back-N pass
    /// (`snd_nxt` at `snd_max`), data left to send and the segment at `snd_nxt` beyond
    /// the congestion window. `next_send` then returns `Nothing` after changing no more
    /// than the pacer's refusal flag (`next_in_order` neither walks nor reports the
    /// application limit); every other case takes the full poll.
    #[inline(always)]
    fn window_full(&self) -> bool {
        let s = &self.s;
        // The window first: the polls that send stop there.
        s.snd_nxt < s.app_end
            && s.snd_nxt - s.snd_una + (s.app_end - s.snd_nxt).min(s.mss as u64) > s.w.cwnd
            && s.snd_nxt == s.snd_max
            && self.plain_polls
            && self.hs.is_done()
            && s.started
            && !s.retx_head
            && !s.go_back_n
    }

    /// [`poll_packet`](Self::poll_packet) past its window question.
    #[inline(never)]
    fn poll_packet_full(&mut self, now: Time) -> Option<Packet> {
        match self.next_send(now) {
            NextSend::Nothing => None,
            NextSend::Syn => self.hs.poll_syn(&mut self.s, now).map(Packet::Tcp),
            NextSend::Segment { idx, idle, rounds } => {
                let sent = self.send(now, idx, idle);
                if rounds {
                    self.after_timed_send(now);
                }
                Some(Packet::Tcp(self.s.segment(now, sent)))
            }
        }
    }

    /// What the polls send, if anything: every decision before the segment is built (each
    /// poll builds it in its own return slot).
    #[inline(always)]
    fn next_send(&mut self, now: Time) -> NextSend {
        self.pacer.begin_attempt();
        if !self.s.started || self.s.is_complete() {
            return NextSend::Nothing;
        }
        if !self.hs.is_done() {
            return NextSend::Syn;
        }
        // Delivery-rate draft (section 3.2): a send with nothing in flight starts a new
        // sampling interval; after a timeout that is true although data is outstanding.
        // (Read only by the rate sampler.)
        let idle = self.s.rate_on && self.bytes_in_flight() == 0;
        if self.s.retx_head {
            self.s.retx_head = false;
            let idx = self.s.snd_una / self.s.mss as u64;
            self.recovery.on_head_retransmit(&mut self.s, idx);
            return NextSend::Segment {
                idx,
                idle,
                rounds: false,
            };
        }
        if let Some(idx) = self.recovery.take_probe(&mut self.s) {
            return NextSend::Segment {
                idx,
                idle,
                rounds: false,
            };
        }
        let timer_driven =
            self.can.has(Capabilities::PACES_OR_TIMES) && self.s.cc.send_timer().is_some();
        if timer_driven && self.rounds.credit() == 0 {
            return NextSend::Nothing;
        }
        // Unpaced controllers (no rate) are never held: no quantum to ask for.
        if self.can.has(Capabilities::PACES_OR_TIMES) {
            let rate = self.s.cc.pacing_rate();
            if rate.is_some() && self.pacer.holds(now, rate, self.s.cc.send_quantum()) {
                return NextSend::Nothing;
            }
        }
        let Some(idx) = self.recovery.next_segment(&mut self.s) else {
            if timer_driven {
                self.close_round(now);
            }
            return NextSend::Nothing;
        };
        NextSend::Segment {
            idx,
            idle,
            rounds: timer_driven,
        }
    }

    /// The send-timer rounds hear of a segment sent in one.
    fn after_timed_send(&mut self, now: Time) {
        let s = &mut self.s;
        let no_data = s.snd_nxt >= s.app_end && !s.retx_head;
        self.rounds.on_sent(&mut s.cc, &mut s.w, now, no_data);
    }

    fn close_round(&mut self, now: Time) {
        let s = &mut self.s;
        let no_data = s.snd_nxt >= s.app_end && !s.retx_head;
        self.rounds.close(&mut s.cc, &mut s.w, now, no_data);
    }

    /// When the sender next needs `handle_timeout`.
    pub fn poll_timeout(&self) -> Option<Time> {
        let s = &self.s;
        if !s.started || s.is_complete() {
            return None;
        }
        if !self.hs.is_done() {
            return self.hs.timeout();
        }
        // Asked after every event of the flow: pairwise minima, not an iterator chain, and
        // the controller's timers only when it has any (out of line: their calls made
        // every poll save registers).
        if self.plain_polls {
            // NewReno's recovery has no timer, the controller neither paces nor times.
            return s.rto_at;
        }
        let t = earliest(s.rto_at, self.recovery.timeout());
        if !self.can.has(Capabilities::PACES_OR_TIMES) {
            return t;
        }
        self.controller_timeout(t)
    }

    /// [`poll_timeout`](Self::poll_timeout)'s deadline `t` against the send timer and,
    /// when the pacer refused a segment, its wake-up.
    #[inline(never)]
    fn controller_timeout(&self, t: Option<Time>) -> Option<Time> {
        let s = &self.s;
        let t = earliest(t, s.cc.send_timer());
        if !self.pacer.is_waiting() {
            return t;
        }
        let (rate, quantum) = (s.cc.pacing_rate(), s.cc.send_quantum());
        earliest(t, self.pacer.wakeup(rate, quantum))
    }
}

/// What a poll does (see `Sender::next_send`).
enum NextSend {
    Nothing,
    /// The SYN is due.
    Syn,
    /// Send segment `idx`; `idle`: nothing was in flight; `rounds`: the send-timer
    /// rounds hear of it.
    Segment {
        idx: u64,
        idle: bool,
        rounds: bool,
    },
}

/// The earlier of two optional deadlines.
#[inline]
fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recovery, the pacer, the controller's pacing flag and the handshake's tag share
    /// the first line; the shared state starts the second.
    #[test]
    fn the_per_ack_parts_share_the_first_line() {
        use std::mem::{offset_of, size_of};
        assert!(size_of::<Recovery>() <= 16);
        assert!(offset_of!(Sender, hs) < 64);
        assert!(offset_of!(Sender, can) < 64);
        assert_eq!(size_of::<Capabilities>(), 1);
        assert_eq!(offset_of!(Sender, s), 128);
    }
}
