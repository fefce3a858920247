//! RFC 6675 SACK-based loss recovery: enter when DupThresh duplicate ACKs arrive or the
//! head segment IsLost, keep the pipe from the scoreboard (SetPipe), send by NextSeg while
//! cwnd − pipe ≥ 1 SMSS, and end when RecoveryPoint is acknowledged. The scoreboard
//! itself is `scoreboard.rs`; RACK-TLP replaces IsLost in `rack.rs` and shares the rest.

use crate::tcp::loss_recovery::{AckSummary, LossRecovery};
use crate::tcp::send_state::SendState;
use crate::tcp::window_cut::Cut;
use tcplab_core::Time;

/// RFC 6675 recovery with IsLost (DupThresh) loss detection. Its state is the shared
/// scoreboard's (HighRxt, pipe).
#[derive(Debug)]
pub(super) struct SackRecovery;

/// RFC 6675 (5): recovery ends when RecoveryPoint is cumulatively acknowledged.
pub(super) fn exit_at_recovery_point(s: &mut SendState, now: Time, ack: u64) {
    if s.in_recovery && ack >= s.recover.unwrap_or(0) {
        // RFC 6937: recovery ends with cwnd = ssthresh.
        let cwnd = if s.prr_active() {
            s.w.ssthresh
        } else {
            s.w.cwnd
        };
        s.exit_recovery(now, cwnd);
    }
}

/// NextSeg's precondition: `None` when cwnd − pipe < 1 SMSS, else whether rule 2 (new
/// data) may apply: unsent data exists and the receive window has room for it.
pub(super) fn room(s: &SendState, pipe: u64) -> Option<bool> {
    let mss = s.mss as u64;
    if pipe + mss > s.w.cwnd.max(mss) {
        return None;
    }
    Some(
        s.snd_nxt < s.app_end
            && s.snd_nxt == s.snd_max
            && s.snd_max + s.seg_len(s.snd_max / mss) as u64 - s.snd_una <= s.rwnd,
    )
}

impl LossRecovery for SackRecovery {
    fn on_ack(&mut self, s: &mut SendState, now: Time, ack: u64, _acked: u64) -> bool {
        exit_at_recovery_point(s, now, ack);
        false
    }

    /// RFC 6675: enter recovery, mark losses, recompute pipe.
    fn after_ack(&mut self, s: &mut SendState, now: Time, a: &AckSummary) {
        if s.snd_una >= s.snd_max {
            return;
        }
        let (dupthresh, mss, flight) = (s.sb.dupthresh(), s.mss, s.flight_size());
        let entered = !s.in_recovery;
        if entered {
            // RFC 6675 section 5.1: after a timeout no new recovery starts before
            // RecoveryPoint is acknowledged (IsLost marks would then only disturb the
            // go-back-N accounting).
            if s.recover.is_some_and(|r| s.snd_una < r) {
                return;
            }
            // IsLost needs SACKed data above snd_una: without any, skip the O(window) walk
            // that every ACK in SACK mode would otherwise pay.
            let sacked_above = s.sb.high_sacked > s.snd_una;
            if !sacked_above && !a.early && s.dupacks < dupthresh {
                return;
            }
            let head_lost = {
                let _ = s.sb.mark_lost_and_pipe(&mut s.recs, mss, flight);
                s.recs.get(s.snd_una / mss as u64).is_some_and(|r| r.lost())
            };
            if !(s.dupacks >= dupthresh || head_lost || a.early) {
                return;
            }
            s.sb.set_high_rxt(&s.recs, s.snd_una, mss);
            let head = s.snd_una / mss as u64;
            if let Some(r) = s.recs.get_mut(head) {
                s.sb.mark_lost(head, r);
            }
            s.cut_window(now, Cut::FastRetransmit);
        } else if a.early {
            s.retx_head = true;
        }
        let flight = s.flight_size();
        s.sb.pipe = s.sb.mark_lost_and_pipe(&mut s.recs, mss, flight);
        s.prr_on_ack(
            a.prior_una,
            a.prior_sacked,
            s.sb.pipe,
            entered || a.newly_sacked > 0,
        );
    }

    /// NextSeg (RFC 6675 section 4) in recovery: lost segments above HighRxt first (rule
    /// 1), then new data (rule 2), then other unSACKed segments (rule 3); outside
    /// recovery the in-order pass.
    fn next_segment(&mut self, s: &mut SendState) -> Option<u64> {
        if !s.in_recovery {
            return s.next_in_order(false);
        }
        let new_ok = room(s, s.sb.pipe)?;
        if let Some(idx) = s.sb.next_retransmission(&s.recs, s.mss, new_ok) {
            let end = s.seg_end(idx);
            s.sb.set_high_rxt(&s.recs, end, s.mss);
            s.sb.pipe += s.seg_len(idx) as u64;
            return Some(idx);
        }
        if new_ok {
            let idx = s.snd_nxt / s.mss as u64;
            s.sb.pipe += s.seg_len(idx) as u64;
            return Some(idx);
        }
        None
    }

    fn on_head_retransmit(&mut self, s: &mut SendState, idx: u64) {
        let seq = s.sb.high_rxt().max(s.seg_end(idx));
        s.sb.set_high_rxt(&s.recs, seq, s.mss);
        s.sb.pipe += s.seg_len(idx) as u64;
    }

    fn pipe(&self, s: &SendState) -> Option<u64> {
        s.in_recovery.then_some(s.sb.pipe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};
    use crate::records::SentRecord;
    use crate::tcp::config::{RecoveryMode, SenderConfig};
    use crate::tcp::segment::SackBlock;

    /// 10 segments of 1000 bytes outstanding, cwnd 10 segments.
    fn state() -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            recovery: RecoveryMode::Sack,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
        for i in 0..10 {
            s.recs.push(i, SentRecord::new(1000, Time::ZERO));
        }
        s.snd_nxt = 10_000;
        s.snd_max = 10_000;
        s
    }

    fn sack(s: &mut SendState, blocks: &[(u64, u64)]) {
        let b: Vec<SackBlock> = blocks
            .iter()
            .map(|&(start, end)| SackBlock { start, end })
            .collect();
        let mut rate = std::mem::take(&mut s.rate);
        s.sb.update(
            &mut s.recs,
            &s.far,
            &b,
            1000,
            Time(1),
            Some(&mut rate),
            |_, _| {},
        );
        s.rate = rate;
    }

    /// Three SACKed segments above segment 0 make it lost: recovery starts on the first
    /// duplicate ACK, with cwnd = ssthresh = FlightSize / 2 (RFC 6675's basis), and pipe counts the six
    /// segments neither SACKed nor lost. NextSeg then offers nothing while pipe ≥ cwnd.
    #[test]
    fn islost_starts_recovery_and_pipe_gates_nextseg() {
        let mut s = state();
        s.cfg.ssthresh_basis = crate::tcp::config::SsthreshBasis::FlightSize;
        sack(&mut s, &[(1000, 4000)]);
        s.dupacks = 1;
        let a = AckSummary {
            ack: 0,
            prior_una: 0,
            prior_sacked: 0,
            no_sack: false,
            newly_sacked: 0,
            dsack_end: None,
            early: false,
        };
        let mut r = SackRecovery;
        r.after_ack(&mut s, Time(2), &a);
        assert!(s.in_recovery && s.retx_head);
        assert_eq!(s.w.cwnd, 5000);
        assert_eq!(r.pipe(&s), Some(6000), "segments 4..9");
        assert_eq!(r.next_segment(&mut s), None, "pipe 6000 > cwnd 5000");
        // The head leaves outside the window (HighRxt 1000). Three more segments SACKed:
        // pipe = 7..9 plus the retransmitted head, 4000, so one segment may leave, and it
        // is new data (rule 2) since nothing above HighRxt is lost.
        r.on_head_retransmit(&mut s, 0);
        assert_eq!(s.sb.pipe, 7000);
        sack(&mut s, &[(1000, 7000)]);
        r.after_ack(&mut s, Time(3), &a);
        assert_eq!(r.pipe(&s), Some(4000));
        assert_eq!(r.next_segment(&mut s), Some(10));
        assert_eq!(s.sb.pipe, 5000);
        assert_eq!(r.next_segment(&mut s), None, "cwnd reached");
        exit_at_recovery_point(&mut s, Time(4), 10_000);
        assert!(!s.in_recovery);
        assert_eq!(r.pipe(&s), None);
    }
}
