//! Window reductions: entering fast retransmit, opening the undo episode of a reduction,
//! and restoring the window when the episode is found spurious (`undo.rs` detects it).
//!
//! The response to a spurious reduction: after a fast retransmit, Linux's
//! `tcp_undo_cwnd_reduction` (cwnd = max(cwnd, prior cwnd), ssthresh = max(ssthresh,
//! prior ssthresh), leave recovery). After a spurious timeout found by Eifel, RFC 4015
//! steps (2)-(3): resume with new data (SND.NXT = SND.MAX, go-back-N ends), cwnd =
//! FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev = max(FlightSize, ssthresh)
//! taken before the timeout; found by DSACK (late, when go-back-N has already resent),
//! the Linux restore. RFC 4015 step (5) (raising SRTT/RTTVAR to the spike) is not
//! applied: the RTT sample of the detecting ACK enters the estimator as any other.

use crate::cc::{CongestionControl, CongestionEvent};
use crate::tcp::send_state::SendState;
use crate::tcp::undo::{Episode, Reduction};
use tcplab_core::Time;

impl SendState {
    /// A loss was detected: cut the window (the controller's response), remember the
    /// recovery point and retransmit the head. Tahoe has no fast recovery and goes back N
    /// instead.
    pub fn enter_fast_retransmit(&mut self, now: Time) {
        let flight = self.flight_size();
        let basis = self.loss_flight();
        self.stats.fast_retransmits += 1;
        self.undo_begin(Reduction::FastRetransmit);
        self.cc
            .on_congestion_event(&mut self.w, CongestionEvent::FastRetransmit, now, basis);
        self.recover = Some(self.snd_max);
        self.retx_head = true;
        self.prr.start(flight);
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

    /// A reduction of `kind` starts (before the controller cuts the window). A timeout
    /// during a fast-recovery or go-back-N episode keeps that episode's prior window (as
    /// Linux's `tcp_enter_loss` does), only noting that a timeout happened.
    pub fn undo_begin(&mut self, kind: Reduction) {
        if !self.undo_on {
            return;
        }
        if let (Reduction::Rto, Some(e)) = (kind, self.undo.episode.as_mut()) {
            if self.in_recovery || self.go_back_n {
                e.kind = Reduction::Rto;
                return;
            }
        }
        let flight = self.flight_size();
        self.undo.episode = Some(Episode::new(kind, self.snd_una, &self.w, flight));
    }

    /// Restores the window the episode reduced and ends its recovery state. `by_eifel`:
    /// detected on the ACK that acknowledged `acked` bytes (RFC 4015 applies to a
    /// timeout then).
    pub fn undo_reduction(&mut self, now: Time, by_eifel: bool, acked: u64) {
        let Some(e) = self.undo.episode.take() else {
            return;
        };
        self.stats.undos += 1;
        if self.in_recovery {
            let cwnd = self.w.cwnd;
            self.exit_recovery(now, cwnd);
        }
        let mss = self.mss as u64;
        if e.kind == Reduction::Rto && by_eifel {
            // RFC 4015 (2): resume with unsent data; (3) reverse the congestion state.
            let iw = self.cfg.initial_cwnd as u64 * mss;
            self.w.cwnd = (self.flight_size() + acked.min(iw)).max(mss);
            self.w.ssthresh = e.pipe_prev;
        } else {
            self.w.cwnd = self.w.cwnd.max(e.prior_cwnd);
            self.w.ssthresh = self.w.ssthresh.max(e.prior_ssthresh);
        }
        // Nothing was lost: no pending retransmission of the head (NewReno's partial ACK
        // may just have asked for one).
        self.retx_head = false;
        if self.go_back_n {
            // The presumed losses were not: stop resending what the receiver holds.
            self.go_back_n = false;
            self.snd_nxt = self.snd_max;
            self.sb.unmark_presumed_lost(&mut self.recs);
        }
    }
}
