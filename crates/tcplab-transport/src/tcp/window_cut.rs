//! Window reductions: every loss response of the sender goes through
//! [`SendState::cut_window`], so that the statistics, the undo episode and PRR apply the
//! same way to fast retransmit, RACK, TLP and the retransmission timeout; and the
//! restoring of the window when the reduction is found spurious (`undo.rs` detects it).
//!
//! Each cut: counts itself (`fast_retransmits` for losses found by ACKs, `rtos` for the
//! timer); opens the undo episode, or extends the open one when the cut falls inside it;
//! lets the controller set ssthresh and cwnd (`on_congestion_event`); and starts PRR's
//! accounting (RFC 6937 section 3: RecoverFS = snd.nxt − snd.una, prr_delivered =
//! prr_out = 0), which governs cwnd while in recovery with `recovery_cwnd = "prr"`.
//!
//! RACK (RFC 8985) only detects losses and leaves the response to congestion control
//! (section 9.3), so its loss responses are these same cuts. Its first loss starts fast
//! recovery as DupThresh does (section 6.2), with the response of RFC 5681/6675, and "The
//! Proportional Rate Reduction (PRR) algorithm [RFC6937] is RECOMMENDED for the specific
//! congestion control actions taken upon the losses detected by RACK-TLP" (9.3). A lost
//! retransmission in recovery is a second congestion signal (RFC 5681 section 4.3,
//! recalled in 8985 sections 3.4 and 9.3: "In the absence of PRR [RFC6937], when RACK-TLP
//! detects a lost retransmission, the congestion control MUST trigger an additional
//! congestion response"); it is cut again whether PRR runs or not, PRR then starting over
//! from the new ssthresh. For a loss the tail loss probe repaired, "The sender then
//! SHOULD invoke a congestion control response equivalent to a fast recovery" (7.4.2):
//! the cut, with the recovery ended at once since the ACK already covers it.
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

/// Why the window is cut (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// ACKs showed a loss outside recovery: DupThresh duplicate ACKs (RFC 5681), the
    /// head IsLost (RFC 6675), RACK (RFC 8985 section 6.2) or the controller's early
    /// expiry. Fast retransmit and fast recovery begin (Tahoe goes back N instead).
    FastRetransmit,
    /// RACK found a retransmission lost during fast recovery (RFC 8985 section 9.3):
    /// cut again, and recovery extends to what is outstanding now.
    LostRetransmission,
    /// TLP's retransmitted probe repaired a loss (RFC 8985 section 7.4.2): the response
    /// of a fast recovery that has already ended.
    TlpRepair,
    /// The retransmission timer expired (RFC 6298 section 5; RFC 5681 section 3.1): go
    /// back N in slow start. `flight`: what ssthresh is taken from, the bytes still in
    /// the network when the timer strikes during fast recovery, else
    /// [`SendState::loss_flight`].
    Rto { flight: u64 },
    /// An ACK echoed a CE mark outside loss recovery and CWR (RFC 3168 section 6.1.2):
    /// the controller's reduction, no retransmission, the CWR state (`ecn.rs`).
    Ecn,
}

impl SendState {
    /// Cuts the window for `cut`: the one entry of every loss response (see the module
    /// docs).
    pub fn cut_window(&mut self, now: Time, cut: Cut) {
        if cut == Cut::Ecn {
            return self.enter_cwr(now);
        }
        if self.cwr_covers(cut) {
            // Linux's tcp_enter_recovery: already reducing for ECN, no second cut.
            self.stats.fast_retransmits += 1;
            return self.enter_fast_retransmit();
        }
        let (event, basis, kind) = match cut {
            Cut::FastRetransmit | Cut::TlpRepair => (
                CongestionEvent::FastRetransmit,
                self.loss_flight(),
                Reduction::FastRetransmit,
            ),
            // What is still in the network: RACK's pipe, the lost and SACKed bytes out.
            Cut::LostRetransmission => (
                CongestionEvent::FastRetransmit,
                self.presumed_in_flight(),
                Reduction::FastRetransmit,
            ),
            Cut::Rto { flight } => (
                // RFC 5681: ssthresh is held when the segment was already resent by a
                // timeout.
                CongestionEvent::Rto {
                    repeated: self.rtt.backoff_count() > 0,
                },
                flight,
                Reduction::Rto,
            ),
            Cut::Ecn => unreachable!("answered above"),
        };
        match cut {
            Cut::Rto { .. } => self.stats.rtos += 1,
            _ => self.stats.fast_retransmits += 1,
        }
        self.undo_begin(kind);
        self.cc.on_congestion_event(&mut self.w, event, now, basis);
        self.prr.start(self.flight_size());
        match cut {
            Cut::FastRetransmit => self.enter_fast_retransmit(),
            Cut::LostRetransmission => self.recover = Some(self.snd_max),
            // Recovery ends at once: the controller hears so.
            Cut::TlpRepair => self.cc.on_recovery_exit(&mut self.w, now),
            Cut::Rto { .. } => self.enter_rto_recovery(),
            Cut::Ecn => {}
        }
    }

    /// After the cut for a loss found by ACKs: remember the recovery point and
    /// retransmit the head. Tahoe has no fast recovery and goes back N instead.
    fn enter_fast_retransmit(&mut self) {
        self.recover = Some(self.snd_max);
        self.retx_head = true;
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

    /// After the cut for a timeout (RFC 6298 (5.5)-(5.6)): back off the timer, leave fast
    /// recovery and go back N from the first unacknowledged segment in slow start.
    fn enter_rto_recovery(&mut self) {
        self.rtt.back_off();
        // RFC 6582: after a timeout, `recover` guards against false fast retransmits.
        self.recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        self.retx_head = false;
        self.go_back(self.snd_una);
        self.sb.set_high_rxt(&self.recs, self.snd_una, self.mss);
    }

    /// A reduction of `kind` starts (before the controller cuts the window). A cut
    /// inside the open episode keeps its prior window, so that undoing it restores the
    /// window from before the first cut: a lost retransmission during its fast recovery,
    /// or a timeout during its fast recovery or go-back-N (as Linux's `tcp_enter_loss`
    /// does, only noting that a timeout happened).
    fn undo_begin(&mut self, kind: Reduction) {
        if !self.undo_on {
            return;
        }
        if let Some(e) = self.undo.episode.as_mut() {
            match kind {
                Reduction::FastRetransmit if self.in_recovery => return,
                Reduction::Rto if self.in_recovery || self.go_back_n => {
                    e.kind = Reduction::Rto;
                    return;
                }
                _ => {}
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
        // The sender is open again (Linux's undo paths end in TCP_CA_Open through
        // tcp_try_keep_open or tcp_set_ca_state): the next loss starts a new recovery.
        // A recovery point left behind would keep RACK's losses from starting one, and
        // only the RTO would repair them.
        self.recover = None;
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
    use crate::cc::{Controller, NewReno, Tahoe};
    use crate::records::SentRecord;
    use crate::tcp::config::{SenderConfig, SsthreshBasis};
    use crate::tcp::prr::Prr;

    /// 10 segments of 1000 bytes outstanding, cwnd 10 segments, undo on.
    fn state(cc: Controller) -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            undo: true,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, cc);
        for i in 0..10 {
            s.recs.push(i, SentRecord::new(1000, Time::ZERO));
        }
        s.snd_nxt = 10_000;
        s.snd_max = 10_000;
        s
    }

    fn newreno() -> SendState {
        state(Controller::NewReno(NewReno::default()))
    }

    /// PRR's state as a cut with `flight` outstanding starts it.
    fn prr_started(flight: u64) -> Prr {
        let mut p = Prr::default();
        p.start(flight);
        p
    }

    /// A detected loss halves the window (the controller's response), sets the recovery
    /// point to snd_max and asks for the head; with fast recovery the sender enters it,
    /// Tahoe instead goes back N with every segment presumed lost.
    #[test]
    fn fast_retransmit_enters_recovery_or_goes_back() {
        let mut s = state(Controller::NewReno(NewReno::default()));
        s.cut_window(Time(1), Cut::FastRetransmit);
        assert!(s.in_recovery && s.retx_head && !s.go_back_n);
        assert_eq!(
            (s.recover, s.w.ssthresh, s.stats.fast_retransmits),
            (Some(10_000), 5000, 1)
        );
        s.exit_recovery(Time(2), 5000);
        assert!(!s.in_recovery);

        let mut t = state(Controller::Tahoe(Tahoe::default()));
        t.cut_window(Time(1), Cut::FastRetransmit);
        assert!(!t.in_recovery && t.go_back_n);
        assert_eq!((t.snd_nxt, t.w.cwnd), (0, 1000));
        assert_eq!(t.in_flight(), 0, "everything presumed lost");
    }

    /// ssthresh on a loss: half of what is still in the network (FlightSize less the
    /// SACKed bytes, or one SMSS per duplicate ACK without SACK blocks), or half of
    /// FlightSize under `ssthresh_basis = "flight-size"` (RFC 5681 eq. 4, the default).
    #[test]
    fn ssthresh_comes_from_what_is_in_flight() {
        let mut s = state(Controller::NewReno(NewReno::default()));
        s.cfg.ssthresh_basis = SsthreshBasis::InFlight;
        s.dupacks = 3;
        s.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!(s.w.ssthresh, 3500, "(10 - 3 dupACKed) / 2 segments");

        let mut t = state(Controller::NewReno(NewReno::default()));
        t.cfg.ssthresh_basis = SsthreshBasis::InFlight;
        t.dupacks = 3;
        t.sb.sacked_bytes = 6000;
        t.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!(t.w.ssthresh, 2000, "(10 - 6 SACKed) / 2 segments");

        let mut u = state(Controller::NewReno(NewReno::default()));
        assert_eq!(
            u.cfg.ssthresh_basis,
            SsthreshBasis::FlightSize,
            "the default"
        );
        u.dupacks = 3;
        u.sb.sacked_bytes = 6000;
        u.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!(u.w.ssthresh, 5000, "FlightSize / 2");

        // ns-3 (`ssthresh_basis = "pipe"`): the head marked lost is out too.
        let mut v = state(Controller::NewReno(NewReno::default()));
        v.cfg.ssthresh_basis = SsthreshBasis::Pipe;
        v.dupacks = 3;
        v.sb.sacked_bytes = 3000;
        v.sb.lost_bytes = 1000;
        v.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!(v.w.ssthresh, 3000, "(10 - 3 SACKed - 1 lost) / 2 segments");
        // Without SACK blocks it counts duplicate ACKs, as "in-flight".
        let mut w = state(Controller::NewReno(NewReno::default()));
        w.cfg.ssthresh_basis = SsthreshBasis::Pipe;
        w.dupacks = 3;
        w.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!(w.w.ssthresh, 3500);
    }

    /// RFC 8985 section 9.3 with RFC 5681 section 4.3: a retransmission RACK finds lost
    /// in recovery cuts the window again from what is still in the network, counts as a
    /// window cut, extends recovery to snd_max and starts PRR over (RecoverFS = FlightSize
    /// now, nothing delivered or sent yet), while the undo episode keeps the window from
    /// before the first cut.
    #[test]
    fn a_lost_retransmission_cuts_again_and_starts_prr_over() {
        let mut s = newreno();
        s.cut_window(Time(1), Cut::FastRetransmit);
        assert_eq!((s.w.cwnd, s.w.ssthresh), (5000, 5000));
        // Recovery goes on: PRR counts deliveries and sends, more data leaves.
        s.prr.on_sent(3000);
        s.prr.on_ack(2000, 6000, s.w.ssthresh, 1000);
        for i in 10..12 {
            s.recs.push(i, SentRecord::new(1000, Time(2)));
        }
        s.snd_nxt = 12_000;
        s.snd_max = 12_000;
        assert_ne!(s.prr, prr_started(12_000));
        // RACK: 4 segments SACKed, 2 lost (one of them the retransmission): 6 in flight.
        s.sb.sacked_bytes = 4000;
        s.sb.lost_bytes = 2000;
        s.cut_window(Time(3), Cut::LostRetransmission);
        assert!(s.in_recovery);
        assert_eq!(s.w.ssthresh, 3000, "half of the 6 segments in the network");
        assert_eq!(s.recover, Some(12_000));
        assert_eq!(s.stats.fast_retransmits, 2);
        assert_eq!(s.prr, prr_started(12_000), "PRR starts over");
        s.undo_reduction(Time(4), false, 0);
        assert_eq!(
            (s.w.cwnd, s.w.ssthresh),
            (10_000, u64::MAX),
            "undone to the window before the first cut"
        );
        assert!(!s.in_recovery);
    }

    /// RFC 8985 section 7.4.2: a loss the tail loss probe repaired is answered as a fast
    /// recovery that the ACK has already ended: the window is cut, the cut counts and
    /// opens an undo episode (undoing it restores the window), and the sender stays out
    /// of recovery with nothing to retransmit.
    #[test]
    fn a_tlp_repair_is_cut_as_a_fast_recovery() {
        let mut s = newreno();
        s.cut_window(Time(1), Cut::TlpRepair);
        assert_eq!((s.w.cwnd, s.w.ssthresh), (5000, 5000));
        assert!(!s.in_recovery && !s.retx_head && !s.go_back_n);
        assert_eq!((s.stats.fast_retransmits, s.recover), (1, None));
        assert_eq!(s.prr, prr_started(10_000));
        s.undo_reduction(Time(2), false, 0);
        assert_eq!(
            (s.w.cwnd, s.w.ssthresh, s.stats.undos),
            (10_000, u64::MAX, 1)
        );
    }

    /// The timeout's cut: counted as an RTO, ssthresh from the flight it is given (held
    /// when repeated), one segment, the timer backed off and go-back-N from snd_una;
    /// undo restores the window from before it.
    #[test]
    fn a_timeout_cuts_and_goes_back() {
        let mut s = newreno();
        s.cut_window(Time(1), Cut::Rto { flight: 8000 });
        assert_eq!((s.w.cwnd, s.w.ssthresh), (1000, 4000));
        assert_eq!((s.stats.rtos, s.stats.fast_retransmits), (1, 0));
        assert!(s.go_back_n && !s.in_recovery && s.snd_nxt == 0);
        assert_eq!(s.rtt.backoff_count(), 1);
        s.cut_window(Time(2), Cut::Rto { flight: 2000 });
        assert_eq!((s.w.cwnd, s.w.ssthresh), (1000, 4000), "repeated: held");
        s.undo_reduction(Time(3), false, 0);
        assert_eq!((s.w.cwnd, s.w.ssthresh), (10_000, u64::MAX));
    }
}
