//! Detection of spurious window reductions (`undo = true`).
//!
//! A reduction (fast retransmit or timeout) opens an episode that remembers the window
//! before it (`window_cut.rs` opens it and restores the window). The episode is found
//! spurious by
//! - **Eifel detection** (RFC 3522), with timestamps: an ACK of new data echoes a TSval
//!   older than the episode's first retransmission, so an original transmission filled
//!   the hole. Judged on every such ACK, as Linux's `tcp_packet_delayed` is (by
//!   `tcp_try_undo_partial`, `tcp_try_undo_recovery` and `tcp_try_undo_loss`); on a
//!   partial ACK in fast recovery the sender undoes only when no retransmission is left
//!   in the network (`tcp_try_undo_partial`: `if (tp->retrans_out) return true;`), since
//!   with RACK the first retransmission need not be of the head, and the head's original
//!   arriving says nothing of the segment that was resent;
//! - **DSACK detection** (RFC 3708, as Linux counts `undo_retrans`): every retransmission
//!   of the episode is reported as a duplicate by a D-SACK block (RFC 2883).

use crate::cc::Window;
use crate::records::Records;
use crate::tcp::segment::{SackBlock, Segment};
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
    pub prior_cwnd: u64,
    pub prior_ssthresh: u64,
    /// RFC 4015 pipe_prev = max(FlightSize, ssthresh) before the timeout.
    pub pipe_prev: u64,
    /// RFC 3522 RetransmitTS: TSval of the episode's first retransmission.
    retransmit_ts: Option<u32>,
    /// Retransmissions of the episode not (yet) reported by D-SACK.
    undo_retrans: u32,
}

impl Episode {
    /// A reduction of `kind` starts with snd_una at `marker`, the window `prior` and
    /// FlightSize `flight` (before the controller cuts it).
    pub fn new(kind: Reduction, marker: u64, prior: &Window, flight: u64) -> Episode {
        Episode {
            kind,
            marker,
            prior_cwnd: prior.cwnd,
            prior_ssthresh: prior.ssthresh,
            pipe_prev: flight.max(prior.ssthresh),
            retransmit_ts: None,
            undo_retrans: 0,
        }
    }
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

impl Undo {
    /// A segment of the episode was retransmitted at `now`.
    pub fn on_retransmit(&mut self, now: Time) {
        if let Some(e) = self.episode.as_mut() {
            e.retransmit_ts.get_or_insert(tsval(now));
            e.undo_retrans += 1;
        }
    }

    /// RFC 3708: counts the segments the D-SACK block `d` reports that the episode
    /// retransmitted (below `snd_una`, or recorded in `recs` as retransmitted). Returns
    /// true when every retransmission has been reported: the reduction was spurious.
    pub fn on_dsack(&mut self, d: SackBlock, snd_una: u64, mss: u32, recs: &Records) -> bool {
        let Some(e) = self.episode.as_mut() else {
            return false;
        };
        if e.undo_retrans == 0 || d.end <= e.marker {
            return false;
        }
        let mss = mss as u64;
        let (first, stop) = (d.start.max(e.marker) / mss, d.end.div_ceil(mss));
        let mut dup = 0;
        for idx in first..stop {
            let retransmitted =
                idx * mss < snd_una || recs.get(idx).is_some_and(|r| r.tx_count > 1);
            dup += u32::from(retransmitted);
        }
        e.undo_retrans = e.undo_retrans.saturating_sub(dup);
        dup > 0 && e.undo_retrans == 0
    }

    /// RFC 3522 on an ACK of new data (`timestamps`: the flow uses them), Linux's
    /// `tcp_packet_delayed`: true if the ACK acknowledges data above the episode's start
    /// and echoes a TSval older than its first retransmission (an original was
    /// delivered). Whether that undoes the reduction is the caller's (see the module
    /// docs).
    pub fn eifel(&self, seg: &Segment, timestamps: bool) -> bool {
        let (Some(e), Some(ts)) = (self.episode.as_ref(), seg.ts) else {
            return false;
        };
        let Some(rts) = e.retransmit_ts else {
            return false;
        };
        timestamps && seg.ack > e.marker && before(ts.ecr, rts)
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
