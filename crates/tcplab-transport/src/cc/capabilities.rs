//! What a controller does beyond the trait's small core, declared beside its code.
//!
//! The sender asks a controller's [`capabilities`](super::CongestionControl::capabilities)
//! once, when the flow is built, and from then on calls an opt-in hook only if the
//! controller declared it: a per-ACK or per-send call that a controller leaves at the
//! trait's empty default costs a dispatch for nothing. A controller that overrides one of
//! these hooks must declare it, or the sender never calls it. The trait's default
//! declares everything ([`Capabilities::ALL`]), so a user controller that does not answer
//! is called for every hook, as if it overrode them all.

/// A set of opt-in hooks a controller overrides (one byte: the sender keeps a copy in
/// the cache line every ACK reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capabilities(u8);

impl Capabilities {
    /// Only the core: `on_ack` (for ACKs of new data), `on_congestion_event`, the rest at
    /// their defaults.
    pub const NONE: Capabilities = Capabilities(0);
    /// `pacing_rate`, `send_quantum`, `send_timer`, `on_send_timer`, `on_segments_sent`
    /// and `on_no_data` may answer: a paced or timer-driven sender (BBR, Wave,
    /// fixed_burst). Without it polls and sends skip these questions.
    pub const PACES_OR_TIMES: Capabilities = Capabilities(1);
    /// `on_dup_ack` acts (the Westwoods count a duplicate ACK as delivered data).
    pub const HEARS_DUP_ACKS: Capabilities = Capabilities(2);
    /// `on_sent` acts (Vegas and Wave count what is sent).
    pub const HEARS_SENDS: Capabilities = Capabilities(4);
    /// `retransmit_head` may say yes (Vegas' fine-grained timeout).
    pub const EXPIRES_HEAD: Capabilities = Capabilities(8);
    /// `on_ack` reads `AckInfo::rate` or `AckInfo::delivered`: without it the sender keeps
    /// no delivery-rate sampler and passes neither.
    pub const READS_DELIVERY: Capabilities = Capabilities(16);
    /// `on_ack` acts on an ACK that acknowledges no new data (a duplicate ACK that only
    /// SACKs): without it the sender does not describe such ACKs to the controller
    /// outside SACK recovery.
    pub const HEARS_ACKS_WITHOUT_PROGRESS: Capabilities = Capabilities(32);
    /// `recovery_inflation` may answer false (the controller sets cwnd itself in recovery:
    /// BBR, fixed_burst). Without it the sender takes the answer as always true.
    pub const SETS_RECOVERY_WINDOW: Capabilities = Capabilities(64);
    /// Every hook: the trait's default, right for any controller.
    pub const ALL: Capabilities = Capabilities(127);

    /// Both sets (for `const` declarations; `|` does the same).
    pub const fn and(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 | other.0)
    }

    /// Whether every hook of `other` is in this set.
    #[inline]
    pub const fn has(self, other: Capabilities) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Capabilities {
    type Output = Capabilities;
    fn bitor(self, other: Capabilities) -> Capabilities {
        self.and(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` holds every single capability, `NONE` none.
    #[test]
    fn all_holds_each_capability() {
        let each = [
            Capabilities::PACES_OR_TIMES,
            Capabilities::HEARS_DUP_ACKS,
            Capabilities::HEARS_SENDS,
            Capabilities::EXPIRES_HEAD,
            Capabilities::READS_DELIVERY,
            Capabilities::HEARS_ACKS_WITHOUT_PROGRESS,
            Capabilities::SETS_RECOVERY_WINDOW,
        ];
        let union = each.iter().fold(Capabilities::NONE, |a, &c| a | c);
        assert_eq!(union, Capabilities::ALL);
        for c in each {
            assert!(Capabilities::ALL.has(c) && !Capabilities::NONE.has(c));
            assert!(!c.has(Capabilities::ALL));
        }
    }
}
