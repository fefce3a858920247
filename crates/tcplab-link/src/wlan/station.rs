//! One node of a cell: its transmit queues, its DCF state and what it did.

use std::collections::VecDeque;
use tcplab_core::{Dur, Rng};

/// A queued MPDU and the attempts already spent on it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame<P> {
    pub pkt: P,
    pub attempts: u32,
    /// Its sequence number on the (originator, recipient) link.
    pub seq: u64,
    /// The node's count of frames queued before it: the enqueue order that oldest-head-
    /// first scheduling compares (a retransmission keeps its place).
    pub order: u64,
}

/// Everything a station did, counted since the cell was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StationCounters {
    /// Packets offered to the station's queues, and those tail-dropped there.
    pub offered_pkts: u64,
    pub dropped_queue: u64,
    /// Channel accesses (PPDUs sent) and those that collided.
    pub accesses: u64,
    pub collisions: u64,
    /// MPDUs carried by accesses that did not collide (for the mean A-MPDU size).
    pub ampdu_frames: u64,
    /// MPDU transmissions, and those that were retransmissions.
    pub mpdus_sent: u64,
    pub retries: u64,
    /// MPDUs lost to frame errors (PER) on a collision-free access.
    pub mpdu_errors: u64,
    /// MPDUs that reached their destination, and their IP bytes.
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    /// MPDUs dropped after the retry limit.
    pub dropped_retry: u64,
    /// MPDUs the recipient's Block Ack reordering buffer held behind a gap, and those it
    /// discarded because they arrived after their gap had timed out.
    pub reorder_held: u64,
    pub reorder_late: u64,
    /// Σ over MPDUs sent of their PHY rate in kbit/s (for the mean rate).
    pub rate_kbps_sum: u64,
    pub max_queue_pkts: u64,
    /// Time this station's exchanges held the channel (PPDU, SIFS, ACK / Block ACK, or
    /// the ACK timeout after a failure), and the part of it that carried transport ACKs.
    pub airtime: Dur,
    pub ack_airtime: Dur,
}

/// A node's DCF state (see `medium.rs` for how the counters advance).
#[derive(Debug)]
pub(super) struct Station<P> {
    /// One FIFO per destination port.
    pub queues: Vec<VecDeque<Frame<P>>>,
    /// The next sequence number for each destination.
    pub next_seq: Vec<u64>,
    pub queued: u32,
    /// Frames ever queued (the next frame's `order`).
    pub enqueued: u64,
    /// The next destination served (round robin over non-empty queues).
    pub rr: usize,
    /// Backoff slots left, counted from the slot origin of the current idle period.
    pub backoff: u64,
    pub cw: u32,
    /// The first slot of the current idle period at which the station may transmit (a
    /// frame that arrived mid-period waits for the next slot boundary).
    pub from_slot: u64,
    pub c: StationCounters,
}

impl<P> Station<P> {
    pub fn new(ports: usize, cw_min: u32) -> Self {
        Station {
            queues: (0..ports).map(|_| VecDeque::new()).collect(),
            next_seq: vec![0; ports],
            queued: 0,
            enqueued: 0,
            rr: 0,
            backoff: 0,
            cw: cw_min,
            from_slot: 0,
            c: StationCounters::default(),
        }
    }

    /// The slot of the current idle period at which it transmits (if it has a frame).
    #[inline]
    pub fn tx_slot(&self) -> u64 {
        self.backoff.max(self.from_slot)
    }

    /// The destination it serves next: with `fcfs` the queue whose head was queued
    /// first, else the first non-empty queue from `rr` on.
    pub fn next_destination(&self, fcfs: bool) -> Option<usize> {
        if fcfs {
            return (0..self.queues.len())
                .filter_map(|d| self.queues[d].front().map(|f| (f.order, d)))
                .min()
                .map(|(_, d)| d);
        }
        let n = self.queues.len();
        (0..n)
            .map(|i| (self.rr + i) % n)
            .find(|&d| !self.queues[d].is_empty())
    }

    /// Draws a new backoff from [0, CW].
    pub fn draw_backoff(&mut self, rng: &mut Rng) {
        self.backoff = rng.below(self.cw as u64 + 1);
    }
}
