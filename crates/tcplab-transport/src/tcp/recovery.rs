//! The recovery a sender runs, chosen by its configuration: one of the implementations
//! of the [`LossRecovery`] interface (`loss_recovery.rs`), each keeping its own state and
//! working on the shared [`SendState`]:
//!
//! - RFC 5681 Reno and RFC 6582 NewReno (`reno.rs`),
//! - RFC 6675 SACK recovery with IsLost (`sack.rs`),
//! - RFC 6675 recovery with RFC 8985 RACK-TLP loss detection (`rack.rs`).

use crate::records::SentRecord;
use crate::tcp::config::{LossDetection, RecoveryMode, SenderConfig};
use crate::tcp::loss_recovery::{AckSummary, LossRecovery};
use crate::tcp::rack::RackRecovery;
use crate::tcp::reno::RenoRecovery;
use crate::tcp::sack::SackRecovery;
use crate::tcp::send_state::SendState;
use tcplab_core::{Dur, Time};

/// The recovery a sender runs, chosen by its configuration (static dispatch).
///
/// RACK's state (152 bytes with its transmission log) is boxed: inline, every sender
/// carried it, and the Reno and SACK recoveries need 8 bytes. 16 bytes, so it shares
/// the sender's first cache line with the pacer and the handshake state.
#[derive(Debug)]
pub(super) enum Recovery {
    Reno(RenoRecovery),
    Sack(SackRecovery),
    Rack(Box<RackRecovery>),
}

impl Recovery {
    pub fn new(cfg: &SenderConfig) -> Recovery {
        match (cfg.recovery, cfg.loss_detection) {
            (RecoveryMode::Sack, LossDetection::Rack) => {
                Recovery::Rack(Box::new(RackRecovery::new(cfg.mss)))
            }
            (RecoveryMode::Sack, LossDetection::DupAck) => Recovery::Sack(SackRecovery),
            (mode, _) => Recovery::Reno(RenoRecovery::new(mode, cfg.partial_ack_timer)),
        }
    }

    /// Whether [`LossRecovery::after_ack`] can act: Reno and NewReno keep the trait's
    /// empty default (they act on the ACK and duplicate-ACK calls), so the sender skips
    /// describing each ACK to them (test `reno_does_nothing_after_an_ack`).
    #[inline]
    pub fn acts_after_ack(&self) -> bool {
        !matches!(self, Recovery::Reno(_))
    }

    /// Entries in RACK's transmission log (0 without RACK).
    pub fn rack_log_len(&self) -> usize {
        match self {
            Recovery::Rack(r) => r.log_len(),
            _ => 0,
        }
    }
}

impl LossRecovery for Recovery {
    /// Inline: called for every segment an ACK delivers, and only RACK's is not empty
    /// (the others' arms vanish; out of line it was a call per segment).
    #[inline]
    fn on_delivered(&mut self, now: Time, idx: u64, rec: &SentRecord, min_rtt: Option<Dur>) {
        match self {
            Recovery::Reno(r) => r.on_delivered(now, idx, rec, min_rtt),
            Recovery::Sack(r) => r.on_delivered(now, idx, rec, min_rtt),
            Recovery::Rack(r) => r.on_delivered(now, idx, rec, min_rtt),
        }
    }
    fn on_ack(&mut self, s: &mut SendState, now: Time, ack: u64, acked: u64) -> bool {
        match self {
            Recovery::Reno(r) => r.on_ack(s, now, ack, acked),
            Recovery::Sack(r) => r.on_ack(s, now, ack, acked),
            Recovery::Rack(r) => r.on_ack(s, now, ack, acked),
        }
    }
    fn on_dup_ack(&mut self, s: &mut SendState, now: Time, early: bool) {
        match self {
            Recovery::Reno(r) => r.on_dup_ack(s, now, early),
            Recovery::Sack(r) => r.on_dup_ack(s, now, early),
            Recovery::Rack(r) => r.on_dup_ack(s, now, early),
        }
    }
    fn after_ack(&mut self, s: &mut SendState, now: Time, a: &AckSummary) {
        match self {
            Recovery::Reno(r) => r.after_ack(s, now, a),
            Recovery::Sack(r) => r.after_ack(s, now, a),
            Recovery::Rack(r) => r.after_ack(s, now, a),
        }
    }
    #[inline]
    fn next_segment(&mut self, s: &mut SendState) -> Option<u64> {
        match self {
            Recovery::Reno(r) => r.next_segment(s),
            Recovery::Sack(r) => r.next_segment(s),
            Recovery::Rack(r) => r.next_segment(s),
        }
    }
    fn take_probe(&mut self, s: &mut SendState) -> Option<u64> {
        match self {
            Recovery::Reno(r) => r.take_probe(s),
            Recovery::Sack(r) => r.take_probe(s),
            Recovery::Rack(r) => r.take_probe(s),
        }
    }
    fn on_sent(&mut self, s: &mut SendState, now: Time, idx: u64, retransmission: bool) {
        match self {
            Recovery::Reno(r) => r.on_sent(s, now, idx, retransmission),
            Recovery::Sack(r) => r.on_sent(s, now, idx, retransmission),
            Recovery::Rack(r) => r.on_sent(s, now, idx, retransmission),
        }
    }
    fn on_head_retransmit(&mut self, s: &mut SendState, idx: u64) {
        match self {
            Recovery::Reno(r) => r.on_head_retransmit(s, idx),
            Recovery::Sack(r) => r.on_head_retransmit(s, idx),
            Recovery::Rack(r) => r.on_head_retransmit(s, idx),
        }
    }
    fn on_rto(&mut self, s: &mut SendState) {
        match self {
            Recovery::Reno(r) => r.on_rto(s),
            Recovery::Sack(r) => r.on_rto(s),
            Recovery::Rack(r) => r.on_rto(s),
        }
    }
    fn pipe(&self, s: &SendState) -> Option<u64> {
        match self {
            Recovery::Reno(r) => r.pipe(s),
            Recovery::Sack(r) => r.pipe(s),
            Recovery::Rack(r) => r.pipe(s),
        }
    }
    fn in_network(&mut self, s: &mut SendState) -> u64 {
        match self {
            Recovery::Reno(r) => r.in_network(s),
            Recovery::Sack(r) => r.in_network(s),
            Recovery::Rack(r) => r.in_network(s),
        }
    }
    fn timeout(&self) -> Option<Time> {
        match self {
            Recovery::Reno(r) => r.timeout(),
            Recovery::Sack(r) => r.timeout(),
            Recovery::Rack(r) => r.timeout(),
        }
    }
    fn on_timeout(&mut self, s: &mut SendState, now: Time) {
        match self {
            Recovery::Reno(r) => r.on_timeout(s, now),
            Recovery::Sack(r) => r.on_timeout(s, now),
            Recovery::Rack(r) => r.on_timeout(s, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::PartialAckTimer;

    /// The configuration picks the recovery; loss detection matters under SACK only.
    #[test]
    fn configuration_selects_the_recovery() {
        let cfg = |recovery, loss_detection| SenderConfig {
            recovery,
            loss_detection,
            partial_ack_timer: PartialAckTimer::SlowButSteady,
            ..SenderConfig::default()
        };
        let pick = |r, d| match Recovery::new(&cfg(r, d)) {
            Recovery::Reno(_) => "reno",
            Recovery::Sack(_) => "sack",
            Recovery::Rack(_) => "rack",
        };
        assert_eq!(pick(RecoveryMode::Reno, LossDetection::DupAck), "reno");
        assert_eq!(pick(RecoveryMode::NewReno, LossDetection::Rack), "reno");
        assert_eq!(pick(RecoveryMode::Sack, LossDetection::DupAck), "sack");
        assert_eq!(pick(RecoveryMode::Sack, LossDetection::Rack), "rack");
        assert_eq!(
            Recovery::new(&cfg(RecoveryMode::Sack, LossDetection::DupAck)).rack_log_len(),
            0
        );
    }

    /// Reno and NewReno change nothing after an ACK, whatever it reported (the sender
    /// skips the call for them); the SACK recoveries say they act.
    #[test]
    fn reno_does_nothing_after_an_ack() {
        use crate::cc::{Controller, NewReno};
        for mode in [RecoveryMode::Reno, RecoveryMode::NewReno] {
            let cfg = SenderConfig {
                mss: 1000,
                recovery: mode,
                ..SenderConfig::default()
            };
            let mut r = Recovery::new(&cfg);
            assert!(!r.acts_after_ack());
            let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
            s.snd_max = 10_000;
            s.snd_nxt = 10_000;
            s.dupacks = 3;
            let before = (format!("{s:?}"), format!("{r:?}"));
            for early in [false, true] {
                let a = AckSummary {
                    ack: 0,
                    prior_una: 0,
                    prior_sacked: 0,
                    no_sack: false,
                    newly_sacked: 0,
                    dsack_end: Some(500),
                    early,
                };
                r.after_ack(&mut s, Time(1), &a);
            }
            assert_eq!((format!("{s:?}"), format!("{r:?}")), before);
        }
        for mode in [LossDetection::DupAck, LossDetection::Rack] {
            let cfg = SenderConfig {
                recovery: RecoveryMode::Sack,
                loss_detection: mode,
                ..SenderConfig::default()
            };
            assert!(Recovery::new(&cfg).acts_after_ack());
        }
    }
}
