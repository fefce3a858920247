//! Duplicate-ACK recovery without SACK: RFC 5681 fast retransmit and fast recovery
//! (Reno: leave recovery on the first new ACK) and RFC 6582 NewReno (stay until
//! everything outstanding at the loss is acknowledged, one retransmission per partial
//! ACK). Window inflation and deflation apply unless the controller sets its own window
//! in recovery ([`CongestionControl::recovery_inflation`]).

use crate::cc::CongestionControl;
use crate::tcp::config::{PartialAckTimer, RecoveryMode};
use crate::tcp::loss_recovery::LossRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::window_cut::Cut;
use tcplab_core::Time;

#[derive(Debug)]
pub(super) struct RenoRecovery {
    /// Reno or NewReno.
    newreno: bool,
    timer: PartialAckTimer,
    /// Partial ACKs in the current recovery (RFC 6582's timer variants count them).
    partial_acks: u32,
}

impl RenoRecovery {
    pub fn new(mode: RecoveryMode, timer: PartialAckTimer) -> RenoRecovery {
        RenoRecovery {
            newreno: mode == RecoveryMode::NewReno,
            timer,
            partial_acks: 0,
        }
    }
}

impl LossRecovery for RenoRecovery {
    fn on_ack(&mut self, s: &mut SendState, now: Time, ack: u64, acked: u64) -> bool {
        if !s.in_recovery {
            return false;
        }
        let mss = s.mss as u64;
        let inflate = s.recovery_inflation();
        let recover = s.recover.unwrap_or(0);
        if !self.newreno {
            let cwnd = if inflate { s.w.ssthresh } else { s.w.cwnd };
            s.exit_recovery(now, cwnd);
        } else if ack >= recover && !inflate {
            s.exit_recovery(now, s.w.cwnd);
        } else if ack >= recover {
            // RFC 6582 3.2 (3), option 1: min(ssthresh, FlightSize + SMSS).
            let full = s.w.ssthresh.min(s.flight_size().max(mss) + mss);
            s.exit_recovery(now, full);
        } else {
            // Partial ACK: retransmit the next hole, deflate, add back one SMSS.
            self.partial_acks += 1;
            s.retx_head = true;
            if inflate {
                let add = if acked >= mss { mss } else { 0 };
                s.w.cwnd = s.w.cwnd.saturating_sub(acked).saturating_add(add).max(mss);
            }
        }
        // RFC 6582 section 4: "Impatient" resets the timer on the first partial ACK only;
        // "Slow-but-Steady" on every partial ACK.
        s.in_recovery
            && self.newreno
            && self.timer == PartialAckTimer::Impatient
            && self.partial_acks > 1
    }

    /// RFC 5681 / 6582 duplicate-ACK handling. Inline (the sender's call was most of its
    /// cost) but for the start of a recovery, out of line.
    #[inline]
    fn on_dup_ack(&mut self, s: &mut SendState, now: Time, early: bool) {
        if s.in_recovery {
            // Each further duplicate ACK means a segment left the network: inflate.
            if s.recovery_inflation() {
                s.w.cwnd += s.mss as u64;
            }
            s.retx_head |= early;
            return;
        }
        if s.dupacks != s.sb.dupthresh() && !early {
            return;
        }
        self.fast_retransmit(s, now);
    }
}

impl RenoRecovery {
    /// The DupThresh-th duplicate ACK (or an early one) outside recovery.
    #[inline(never)]
    fn fast_retransmit(&mut self, s: &mut SendState, now: Time) {
        let mss = s.mss as u64;
        // RFC 6582 3.2 (2): no new fast retransmit for losses of an already-handled window.
        // Tahoe's go-back-N resends data up to `recover` on purpose, and those duplicates
        // are ACKed with exactly `recover`: there the literal rule applies (the ACK must
        // cover *more* than recover; ns-2's `bug_fix_`).
        let strict = !s.cc.fast_recovery();
        if self.newreno
            && s.recover
                .is_some_and(|r| s.snd_una < r || (strict && s.snd_una == r))
        {
            return;
        }
        s.cut_window(now, Cut::FastRetransmit);
        self.partial_acks = 0;
        if s.in_recovery && s.recovery_inflation() {
            // RFC 5681 step 3: inflate by the duplicate ACKs received (DupThresh unless early).
            s.w.cwnd = s.w.ssthresh + s.dupacks as u64 * mss;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};
    use crate::tcp::config::SenderConfig;

    fn state(mode: RecoveryMode) -> (SendState, RenoRecovery) {
        let cfg = SenderConfig {
            mss: 1000,
            recovery: mode,
            ssthresh_basis: crate::tcp::config::SsthreshBasis::FlightSize,
            ..SenderConfig::default()
        };
        let s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
        (s, RenoRecovery::new(mode, PartialAckTimer::Impatient))
    }

    /// 10 segments outstanding; the third duplicate ACK starts recovery with cwnd =
    /// ssthresh + 3 SMSS (RFC 5681), a partial ACK deflates by the acknowledged bytes and
    /// adds one SMSS back (RFC 6582), and from the second partial ACK on the Impatient
    /// timer is held.
    #[test]
    fn newreno_inflates_deflates_and_holds_the_timer() {
        let (mut s, mut r) = state(RecoveryMode::NewReno);
        s.snd_max = 10_000;
        s.snd_nxt = 10_000;
        for d in 1..=3 {
            s.dupacks = d;
            r.on_dup_ack(&mut s, Time(d as u64), false);
        }
        assert!(s.in_recovery && s.retx_head);
        assert_eq!(s.w.ssthresh, 5000);
        assert_eq!(s.w.cwnd, 8000);
        s.dupacks = 4;
        r.on_dup_ack(&mut s, Time(4), false);
        assert_eq!(s.w.cwnd, 9000, "one SMSS per further duplicate");
        s.snd_una = 2000;
        assert!(
            !r.on_ack(&mut s, Time(5), 2000, 2000),
            "first partial ACK restarts"
        );
        assert_eq!(s.w.cwnd, 8000, "9000 - 2000 + 1000");
        s.snd_una = 3000;
        assert!(r.on_ack(&mut s, Time(6), 3000, 1000), "second: held");
        s.snd_una = 10_000;
        assert!(!r.on_ack(&mut s, Time(7), 10_000, 7000));
        assert!(!s.in_recovery);
        assert_eq!(
            s.w.cwnd, 2000,
            "min(ssthresh, max(FlightSize, SMSS) + SMSS)"
        );
    }

    /// Reno leaves recovery on the first new ACK with cwnd = ssthresh.
    #[test]
    fn reno_exits_on_the_first_new_ack() {
        let (mut s, mut r) = state(RecoveryMode::Reno);
        s.snd_max = 10_000;
        s.dupacks = 3;
        r.on_dup_ack(&mut s, Time(1), false);
        assert!(s.in_recovery);
        s.snd_una = 1000;
        r.on_ack(&mut s, Time(2), 1000, 1000);
        assert!(!s.in_recovery);
        assert_eq!(s.w.cwnd, s.w.ssthresh);
    }
}
