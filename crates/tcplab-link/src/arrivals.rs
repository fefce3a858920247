//! Packets in flight ordered by arrival, for links whose jitter may reorder them.
//!
//! The link's FIFO keeps transmission order (the queue and drop-tail accounting depend on
//! it); this min-heap of `(arrival, admission number)` says which packet reaches the far
//! end next. Ties go to the earlier admission, so runs are deterministic. The heap keeps
//! its capacity, so steady-state pushes and pops do not allocate.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tcplab_core::Time;

#[derive(Debug, Default)]
pub(crate) struct ArrivalOrder {
    heap: BinaryHeap<Reverse<(Time, u64)>>,
}

impl ArrivalOrder {
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Makes room for at least `n` packets (no-op once the capacity is there).
    pub fn reserve(&mut self, n: usize) {
        self.heap.reserve(n.saturating_sub(self.heap.len()));
    }

    pub fn push(&mut self, arrive: Time, seq: u64) {
        self.heap.push(Reverse((arrive, seq)));
    }

    /// The earliest arrival still pending.
    pub fn next_arrival(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse((t, _))| *t)
    }

    /// Admission number of the next packet if it has arrived by `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<u64> {
        match self.heap.peek() {
            Some(Reverse((t, _))) if *t <= now => self.heap.pop().map(|Reverse((_, s))| s),
            _ => None,
        }
    }

    /// Forgets packets that have not arrived by `now` (an outage destroyed them).
    pub fn keep_arrived(&mut self, now: Time) {
        self.heap.retain(|Reverse((t, _))| *t <= now);
    }

    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_ties_by_admission() {
        let mut a = ArrivalOrder::default();
        for (t, s) in [(5, 0), (3, 1), (5, 2), (3, 3), (9, 4)] {
            a.push(Time(t), s);
        }
        assert_eq!(a.next_arrival(), Some(Time(3)));
        assert_eq!(a.pop_due(Time(2)), None);
        let got: Vec<u64> = std::iter::from_fn(|| a.pop_due(Time(5))).collect();
        assert_eq!(got, vec![1, 3, 0, 2]);
        a.keep_arrived(Time(8));
        assert!(a.is_empty());
    }
}
