//! Undo of spurious window reductions (`undo = true`).
//!
//! A reduction (fast retransmit or timeout) opens an episode that remembers the window
//! before it. The episode is found spurious by
//! - **Eifel detection** (RFC 3522), with timestamps: the first ACK that acknowledges the
//!   first retransmission echoes a TSval older than that retransmission's, so the
//!   original transmission was delivered;
//! - **DSACK detection** (RFC 3708, as Linux counts `undo_retrans`): every retransmission
//!   of the episode is reported as a duplicate by a D-SACK block (RFC 2883).
//!
//! The response: after a spurious fast retransmit, Linux's `tcp_undo_cwnd_reduction`
//! (cwnd = max(cwnd, prior cwnd), ssthresh = max(ssthresh, prior ssthresh), leave
//! recovery). After a spurious timeout found by Eifel, RFC 4015 steps (2)-(3): resume
//! with new data (SND.NXT = SND.MAX, go-back-N ends), cwnd = FlightSize +
//! min(bytes_acked, IW), ssthresh = pipe_prev = max(FlightSize, ssthresh) taken before
//! the timeout; found by DSACK (late, when go-back-N has already resent), the Linux
//! restore. RFC 4015 step (5) (raising SRTT/RTTVAR to the spike) is not applied: the RTT
//! sample of the detecting ACK enters the estimator as any other.

use crate::tcp::segment::{SackBlock, Segment};
use crate::tcp::send_state::SendState;
use crate::tcp::timestamps::{before, tsval};
use tcplab_core::Time;

/// What the episode reduced the window for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reduction {
    FastRetransmit,
    Rto,
}

/// One reduction that may still be undone (Linux: `undo_marker` and friends).
#[derive(Clone, Copy, Debug)]
pub(super) struct Episode {
    pub kind: Reduction,
    /// snd_una when the reduction started (Linux's `undo_marker`).
    marker: u64,
    prior_cwnd: u64,
    prior_ssthresh: u64,
    /// RFC 4015 pipe_prev = max(FlightSize, ssthresh) before the timeout.
    pipe_prev: u64,
    /// RFC 3522 RetransmitTS: TSval of the episode's first retransmission.
    retransmit_ts: Option<u32>,
    /// Retransmissions of the episode not (yet) reported by D-SACK.
    undo_retrans: u32,
    /// Eifel has judged the episode (on the first ACK of the first retransmission).
    eifel_judged: bool,
}

/// The open episode, if any.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Undo {
    pub episode: Option<Episode>,
}

/// RFC 2883 section 4: the first SACK block is a D-SACK if it lies at or below the
/// cumulative ACK, or inside the second block.
pub(super) fn dsack_block(seg: &Segment) -> Option<SackBlock> {
    let b = seg.sack_blocks();
    let first = *b.first()?;
    let inside_second = b
        .get(1)
        .is_some_and(|s| s.start <= first.start && first.end <= s.end);
    (first.end <= seg.ack || inside_second).then_some(first)
}

impl SendState {
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
        self.undo.episode = Some(Episode {
            kind,
            marker: self.snd_una,
            prior_cwnd: self.w.cwnd,
            prior_ssthresh: self.w.ssthresh,
            pipe_prev: self.flight_size().max(self.w.ssthresh),
            retransmit_ts: None,
            undo_retrans: 0,
            eifel_judged: false,
        });
    }

    /// A segment of the episode was retransmitted at `now`.
    pub fn undo_on_retransmit(&mut self, now: Time) {
        if let Some(e) = self.undo.episode.as_mut() {
            e.retransmit_ts.get_or_insert(tsval(now));
            e.undo_retrans += 1;
        }
    }

    /// RFC 3708: counts the segments a D-SACK block reports that the episode
    /// retransmitted (below snd_una, or recorded as retransmitted). Returns true when
    /// every retransmission has been reported: the reduction was spurious.
    pub fn undo_on_dsack(&mut self, dsack: Option<SackBlock>) -> bool {
        let (Some(e), Some(d)) = (self.undo.episode.as_mut(), dsack) else {
            return false;
        };
        if e.undo_retrans == 0 || d.end <= e.marker {
            return false;
        }
        let mss = self.mss as u64;
        let (first, stop) = (d.start.max(e.marker) / mss, d.end.div_ceil(mss));
        let mut dup = 0;
        for idx in first..stop {
            let retransmitted =
                idx * mss < self.snd_una || self.recs.get(idx).is_some_and(|r| r.tx_count > 1);
            dup += u32::from(retransmitted);
        }
        e.undo_retrans = e.undo_retrans.saturating_sub(dup);
        dup > 0 && e.undo_retrans == 0
    }

    /// RFC 3522 on an ACK of new data up to `ack`: judged once, on the first ACK that
    /// acknowledges the first retransmitted segment. Returns true if the ACK echoes a
    /// TSval older than that retransmission (the original was delivered).
    pub fn undo_eifel(&mut self, seg: &Segment) -> bool {
        // Without undo no episode opens (`undo_begin`): the flag, in the first line,
        // spares a new ACK the episode's line.
        if !self.undo_on {
            return false;
        }
        let (Some(e), Some(ts)) = (self.undo.episode.as_mut(), seg.ts) else {
            return false;
        };
        let Some(rts) = e.retransmit_ts else {
            return false;
        };
        if e.eifel_judged || seg.ack <= e.marker || !self.timestamps {
            return false;
        }
        e.eifel_judged = true;
        before(ts.ecr, rts)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 2883 section 4: below the cumulative ACK, or inside the second block.
    #[test]
    fn dsack_block_recognised() {
        let mut s = Segment {
            ack: 5000,
            n_sack: 1,
            ..Segment::default()
        };
        s.sack[0] = SackBlock {
            start: 1000,
            end: 2000,
        };
        assert!(dsack_block(&s).is_some());
        s.sack[0] = SackBlock {
            start: 7000,
            end: 8000,
        };
        assert!(dsack_block(&s).is_none(), "an ordinary SACK block");
        s.sack[1] = SackBlock {
            start: 6000,
            end: 9000,
        };
        s.n_sack = 2;
        assert!(dsack_block(&s).is_some(), "inside the second block");
    }
}
