//! Cumulative per-direction link counters.

/// Everything a link did, counted since it was created.
///
/// `repr(C)`, the per-packet counters first: they share one cache line of the link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct LinkCounters {
    /// Packets offered to the link.
    pub offered_pkts: u64,
    /// Packets serialised onto the wire (delivered or lost on the wire).
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// Packets that reached the far end.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// Largest number of packets ever waiting.
    pub max_queue_pkts: u64,
    /// Tail drops because the queue was full.
    pub dropped_queue: u64,
    /// Losses drawn by the loss model (packets still consume link time).
    pub dropped_loss: u64,
    /// Packets lost because the link was down (offered while down, or in flight when it went down).
    pub dropped_down: u64,
}
