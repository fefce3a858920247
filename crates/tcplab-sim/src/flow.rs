//! A flow as the event loop sees it: its two endpoints, their pending wake-ups, the
//! first step of each direction's route, and what the network did with its packets.

use std::num::NonZeroU32;
use tcplab_core::Time;
use tcplab_transport::AnyEndpoint;

/// The side that sends the data (index in [`Flow::ends`]); it sends on route 0.
pub(crate) const SOURCE: usize = 0;
/// The side that receives it and acknowledges; it sends on route 1.
pub(crate) const SINK: usize = 1;

/// Packets of one direction of a flow, as the network handled them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PacketCount {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
}

impl PacketCount {
    pub fn in_network(&self) -> u64 {
        self.sent - self.delivered - self.dropped
    }
}

/// A [`Flow::first_medium`] that says "read the step".
pub(crate) const FAR_MEDIUM: u16 = u16::MAX;

/// Medium `m` as a [`Flow::first_medium`]: itself if it fits below [`FAR_MEDIUM`].
pub(crate) fn narrow_medium(m: u32) -> u16 {
    u16::try_from(m)
        .ok()
        .filter(|&m| m != FAR_MEDIUM)
        .unwrap_or(FAR_MEDIUM)
}

/// Whether a flow can finish (one byte for what were two flags, so the flow keeps to
/// two cache lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlowEnd {
    /// Neither a byte count nor a stop time: runs until the scenario ends.
    Unlimited,
    /// Finite, not finished yet.
    Running,
    Finished,
}

/// One flow: two cache lines (aligned), since with thousands of flows every event finds
/// its flow out of cache.
#[repr(align(64))]
pub(crate) struct Flow {
    /// `[source, sink]`.
    pub ends: [AnyEndpoint; 2],
    /// Pending wake-up of each side, [`crate::net::NO_WAKE`] if none (8 bytes where an
    /// `Option<Time>` takes 16).
    pub wake: [Time; 2],
    /// First step of each direction's route in [`crate::net::Net::routes`] (source →
    /// sink, sink → source).
    pub route: [NonZeroU32; 2],
    /// The medium of each route's first step, or [`FAR_MEDIUM`] for a medium index that
    /// does not fit: every packet an endpoint sends enters there, and for a link
    /// direction nothing else of the step is needed. A `u16` so the flow keeps to two
    /// cache lines.
    pub first_medium: [u16; 2],
    /// By direction (the sending side's index).
    pub count: [PacketCount; 2],
    pub reliable: bool,
    pub started: bool,
    pub end: FlowEnd,
    /// The source has reported `finished_at` (it never goes back): from then on a sink's
    /// event can finish the flow (an unreliable one, once nothing is in the network),
    /// and before it no sink event can, so sink events skip asking the source.
    pub source_done: bool,
}

impl Flow {
    /// A finite flow is finished when its source is, and (unreliable transports) nothing
    /// it sent is still in the network. True when this call finished it.
    #[inline]
    pub fn finishes(&mut self) -> bool {
        if self.end != FlowEnd::Running {
            return false;
        }
        if !self.source_done {
            if self.ends[SOURCE].finished_at().is_none() {
                return false;
            }
            self.source_done = true;
        }
        if self.reliable || self.count[0].in_network() == 0 {
            self.end = FlowEnd::Finished;
            return true;
        }
        false
    }

    /// Whether the flow's rows go into a periodic sample: started and not finished.
    pub fn sampled(&self) -> bool {
        self.started && self.end != FlowEnd::Finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_medium_too_large_for_the_flow_is_read_from_the_step() {
        assert_eq!(narrow_medium(0), 0);
        assert_eq!(narrow_medium(65_534), 65_534);
        assert_eq!(narrow_medium(65_535), FAR_MEDIUM);
        assert_eq!(narrow_medium(70_000), FAR_MEDIUM);
        assert_eq!(narrow_medium(u32::MAX), FAR_MEDIUM);
    }

    #[test]
    fn a_flow_takes_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Flow>(), 128);
        assert_eq!(std::mem::align_of::<Flow>(), 64);
    }
}
