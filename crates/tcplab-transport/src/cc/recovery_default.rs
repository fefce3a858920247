//! Which loss recovery a controller gets when a flow does not choose one.

use crate::RecoveryMode;

/// The recovery algorithm that a controller name implies, if any: `reno` selects RFC 5681
/// fast recovery (Reno as specified), `newreno` RFC 6582. Tahoe, Vegas, Westwood and
/// Westwood+ name no recovery of their own, so they get tcplab's default, RFC 6582 (ns-3
/// runs Vegas and Westwood+ over its NewReno-style recovery). Tahoe has no fast recovery
/// at all: for it the mode only decides the RFC 6582 `recover` guard, which keeps the
/// duplicates of its go-back-N from triggering false fast retransmits.
/// `None`: no preference (the sender default applies).
pub fn default_recovery(cc: &str) -> Option<RecoveryMode> {
    match cc {
        "reno" => Some(RecoveryMode::Reno),
        "newreno" | "tahoe" | "vegas" | "westwood" | "westwoodplus" | "westwood_plus"
        | "westwood+" => Some(RecoveryMode::NewReno),
        // BBR learns from every (S)ACK; RFC 6675 keeps delivery information flowing during
        // recovery, where duplicate ACKs without SACK would stall it for an RTT per loss.
        "bbr" => Some(RecoveryMode::Sack),
        _ => None,
    }
}
