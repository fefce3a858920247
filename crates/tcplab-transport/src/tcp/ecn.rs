//! ECN at the sender (RFC 3168 section 6.1): ECT(0) on new data once ECN is agreed, one
//! window reduction per round trip in answer to ECN-Echo, and CWR on the first new data
//! segment after it, as Linux does:
//!
//! - `tcp_ecn_send`: ECT on new data only (RFC 3168 section 6.1.5: not on
//!   retransmissions), CWR on the next new data segment after a reduction;
//! - `tcp_try_to_open` / `tcp_enter_cwr`: an ACK with ECE outside loss recovery enters the
//!   CWR state unless already in it: the controller's ssthresh (for the Reno family and
//!   Cubic the same hook as a loss, [`crate::cc::CongestionControl::on_ecn_echo`]), no
//!   undo (`undo_marker = 0`), `high_seq = snd_nxt`;
//! - in CWR, cwnd falls to ssthresh by PRR (`tcp_cwnd_reduction`, with
//!   `recovery_cwnd = "prr"`; else it is ssthresh at once) and does not grow;
//! - CWR ends once snd_una passes `high_seq` (`tcp_fastretrans_alert`: "CWR is to be held
//!   something *above* high_seq is ACKed for CWR bit to reach receiver"), with cwnd =
//!   ssthresh (`tcp_end_cwnd_reduction`); so two marks in one round trip cut once;
//! - a loss found while in CWR enters recovery without a second cut (`tcp_enter_recovery`
//!   reduces only when not already reducing); a timeout cuts as always.
//!
//! BBR sets its own window (`Capabilities::SETS_RECOVERY_WINDOW`): Linux BBR v1 takes
//! cwnd and pacing from its model alone (`tcp_bbr.c`: `cong_control = bbr_main`, so
//! `tcp_cwnd_reduction` never runs for it, and `bbr_ssthresh` leaves ssthresh as it is),
//! so the CWR state still sends CWR but changes nothing of BBR's window.

use crate::cc::CongestionControl;
use crate::tcp::prr::Ns3Ack;
use crate::tcp::segment::IpEcn;
use crate::tcp::send_state::{SendState, ECN_ON, IN_CWR};
use crate::tcp::window_cut::Cut;
use tcplab_core::Time;

impl SendState {
    /// ECN was agreed: data leaves ECT(0), ECN-Echo is answered.
    #[inline]
    pub fn ecn_on(&self) -> bool {
        self.fixed & ECN_ON != 0
    }

    /// A reduction answering ECN-Echo is under way.
    #[inline]
    pub fn in_cwr(&self) -> bool {
        self.fixed & IN_CWR != 0
    }

    /// Turns ECN on or off (the handshake's outcome, or the configuration without one).
    pub fn set_ecn(&mut self, on: bool) {
        if on {
            self.fixed |= ECN_ON;
        } else {
            self.fixed &= !(ECN_ON | IN_CWR);
        }
    }

    /// The IP ECN field and the CWR flag of a segment about to leave.
    #[inline]
    pub fn ecn_marks(&mut self, retransmission: bool) -> (IpEcn, bool) {
        if !self.ecn_on() || retransmission {
            return (IpEcn::NotEct, false);
        }
        (IpEcn::Ect0, std::mem::take(&mut self.ecn.cwr_due))
    }

    /// An ACK of new data with ECN on, after recovery heard of it: ends CWR, answers
    /// ECE (see the module docs), and in CWR lets PRR set cwnd from what the ACK
    /// delivered (`prior_una`, `prior_sacked`: before the ACK). True while the CWR
    /// state governs cwnd (the controller must not grow it).
    pub fn ecn_on_ack(&mut self, now: Time, ece: bool, prior_una: u64, prior_sacked: u64) -> bool {
        if self.in_cwr() && self.snd_una > self.ecn.cwr_end {
            self.fixed &= !IN_CWR;
            if self.recovery_inflation() {
                self.w.cwnd = self.w.ssthresh;
            }
        }
        if ece && !self.in_cwr() && !self.in_recovery && !self.go_back_n {
            self.cut_window(now, Cut::Ecn);
        }
        if !self.in_cwr() || !self.recovery_inflation() {
            return false;
        }
        if self.uses_prr() {
            let delivered = self.delivered_since(prior_una, prior_sacked);
            let pipe = self.presumed_in_flight();
            let mss = self.mss as u64;
            self.w.cwnd = if self.prr.is_ns3() {
                // ns-3's ProcessAck in CA_CWR: DoRecovery(.., isDupAck = false).
                let ack = Ns3Ack {
                    partial: self.snd_una > prior_una,
                    ..Ns3Ack::default()
                };
                let cwnd = self.w.cwnd;
                self.prr
                    .on_ack_ns3(cwnd, delivered, pipe, self.w.ssthresh, mss, ack)
            } else {
                self.prr.on_ack(delivered, pipe, self.w.ssthresh, mss)
            };
        }
        true
    }

    /// [`Cut::Ecn`]: the controller's reduction, and the CWR state until snd_una passes
    /// snd_nxt of now.
    pub(super) fn enter_cwr(&mut self, now: Time) {
        self.stats.ecn_cuts += 1;
        // tcp_enter_cwr: no undo of this reduction (nor of an earlier one).
        self.undo.episode = None;
        let prior = self.w.cwnd;
        let basis = self.loss_flight();
        self.cc.on_ecn_echo(&mut self.w, now, basis);
        self.prr.start(self.flight_size());
        if self.uses_prr() && self.recovery_inflation() {
            // PRR brings cwnd down to ssthresh as the ACKs come.
            self.w.cwnd = prior;
        }
        self.fixed |= IN_CWR;
        self.ecn.cwr_end = self.snd_nxt;
        self.ecn.cwr_due = true;
    }

    /// A loss or timeout while in CWR: the CWR state ends. True if the reduction
    /// already under way stands for the loss's (a loss found by ACKs).
    pub(super) fn cwr_covers(&mut self, cut: Cut) -> bool {
        if !self.in_cwr() {
            return false;
        }
        self.fixed &= !IN_CWR;
        matches!(cut, Cut::FastRetransmit)
    }
}
