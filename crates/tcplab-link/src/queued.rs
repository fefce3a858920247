//! What every queue discipline shares: a waiting packet with its enqueue time, the
//! verdict of an enqueue-time algorithm, and where drops and per-cause counts go.

use tcplab_core::Time;

/// A packet waiting in a discipline, with its enqueue time.
#[derive(Debug)]
pub(crate) struct Queued<P> {
    pub pkt: P,
    pub enq: Time,
    pub len: u32,
}

/// What a discipline did, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QdiscCounters {
    /// Dropped because the queue was at its limit (for FQ-CoDel, the head of the
    /// fattest flow).
    pub dropped_limit: u64,
    /// Dropped by the discipline's algorithm (RED's and PIE's early drops, CoDel's
    /// dequeue drops).
    pub dropped_aqm: u64,
    /// Marked Congestion Experienced instead of dropped.
    pub marked_ce: u64,
}

/// What an enqueue-time algorithm decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Enqueue,
    Drop,
    Mark,
}

/// Where an algorithm puts the packets it drops after admission, and its counters.
pub(crate) struct Out<'a, P> {
    pub drops: &'a mut Vec<P>,
    pub counters: &'a mut QdiscCounters,
}
