//! The event queue: a 4-ary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties in insertion order, so simultaneous events run in a
//! deterministic order independent of heap internals. An entry is one 128-bit word,
//! `time << 64 | seq << 32 | item`: one comparison decides, four entries share a cache
//! line, and a node's four children are at most two lines apart, so a 4-ary heap has half
//! the levels of a binary one at little extra cost per level.
//!
//! A pop is deferred: the entry stays at the root until the next operation. When that is a
//! push — the common case, a component re-arming after its event — the new entry replaces
//! the root and sinks once, instead of a removal (sift down) followed by an insertion
//! (sift up). The order in which entries come out is the same either way; only the work
//! differs.
//!
//! Sequence numbers are 32 bits; when they run out, the pending entries are renumbered in
//! their current order (an O(n log n) pass every 2^32 pushes), so the order is kept exactly.

use tcplab_core::Time;

const SEQ_BITS: u32 = 32;

/// A min-queue of `(time, item)`, FIFO among equal times.
#[derive(Debug)]
pub struct EventQueue {
    heap: Vec<u128>,
    /// Sequence number of the next push.
    seq: u64,
    /// Pushes so far (never renumbered).
    pushed: u64,
    /// The root was returned by `pop` and is still physically in the heap.
    root_popped: bool,
    /// Renumber when `seq` reaches this (2^32; smaller in tests).
    seq_limit: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

#[inline(always)]
fn key(time: Time, seq: u64, item: u32) -> u128 {
    ((time.as_nanos() as u128) << 64) | ((seq as u128) << SEQ_BITS) | item as u128
}

#[inline(always)]
fn unkey(k: u128) -> (Time, u32) {
    (Time((k >> 64) as u64), k as u32)
}

impl EventQueue {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(n),
            seq: 0,
            pushed: 0,
            root_popped: false,
            seq_limit: 1 << SEQ_BITS,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, item: u32) {
        if self.seq >= self.seq_limit {
            self.renumber();
        }
        let e = key(time, self.seq, item);
        self.seq += 1;
        self.pushed += 1;
        if self.root_popped {
            self.root_popped = false;
            self.sift_down(e);
            return;
        }
        self.heap.push(e);
        let h = &mut self.heap[..];
        let mut i = h.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 4;
            if h[parent] <= e {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, u32)> {
        if self.root_popped {
            self.remove_root();
        }
        let top = *self.heap.first()?;
        self.root_popped = true;
        Some(unkey(top))
    }

    /// Removes the root for good.
    #[inline(always)]
    fn remove_root(&mut self) {
        self.root_popped = false;
        let last = self.heap.pop().expect("a popped root exists");
        if !self.heap.is_empty() {
            self.sift_down(last);
        }
    }

    /// Puts `e` at the root (replacing it) and sinks it to its place.
    #[inline(always)]
    fn sift_down(&mut self, e: u128) {
        let h = &mut self.heap[..];
        let n = h.len();
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            let m = if c + 3 < n {
                let a = c + (h[c + 1] < h[c]) as usize;
                let b = c + 2 + (h[c + 3] < h[c + 2]) as usize;
                if h[b] < h[a] {
                    b
                } else {
                    a
                }
            } else if c < n {
                let mut m = c;
                for j in c + 1..n {
                    if h[j] < h[m] {
                        m = j;
                    }
                }
                m
            } else {
                break;
            };
            if h[m] >= e {
                break;
            }
            h[i] = h[m];
            i = m;
        }
        h[i] = e;
    }

    /// Gives the pending entries sequence numbers 0, 1, ... in their current order.
    #[cold]
    fn renumber(&mut self) {
        if self.root_popped {
            self.remove_root();
        }
        self.heap.sort_unstable();
        for (i, e) in self.heap.iter_mut().enumerate() {
            let (t, item) = unkey(*e);
            *e = key(t, i as u64, item);
        }
        // A sorted array is a heap.
        self.seq = self.heap.len() as u64;
    }

    pub fn peek_time(&self) -> Option<Time> {
        let i = self.root_popped as usize;
        if i == 0 {
            return self.heap.first().map(|&e| unkey(e).0);
        }
        // The root is gone: the next is the smallest child.
        self.heap[1..self.heap.len().min(5)]
            .iter()
            .min()
            .map(|&e| unkey(e).0)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.root_popped as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events pushed so far.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), 1);
        q.push(Time(3), 2);
        q.push(Time(5), 3);
        q.push(Time(3), 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    /// Reference: a sorted list of (time, push index).
    fn check(ops: &[(bool, u64)], seq_limit: u64) -> Result<(), TestCaseError> {
        let mut q = EventQueue::default();
        q.seq_limit = seq_limit;
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut now = 0;
        for (i, &(is_pop, dt)) in ops.iter().enumerate() {
            if is_pop {
                reference.sort();
                let want = (!reference.is_empty()).then(|| reference.remove(0));
                let got = q.pop().map(|(t, x)| (t.0, x));
                prop_assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            } else {
                // Times never go below the last popped one, as in a simulation.
                q.push(Time(now + dt), i as u32);
                reference.push((now + dt, i as u32));
            }
            prop_assert_eq!(q.len(), reference.len());
            reference.sort();
            prop_assert_eq!(q.peek_time().map(|t| t.0), reference.first().map(|r| r.0));
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn pops_sorted_by_time_then_sequence(
            ops in proptest::collection::vec((any::<bool>(), 0u64..50), 0..400),
        ) {
            check(&ops, 1 << SEQ_BITS)?;
        }

        /// Renumbering when sequence numbers run out keeps the order exactly.
        #[test]
        fn renumbering_keeps_the_order(
            ops in proptest::collection::vec((any::<bool>(), 0u64..5), 0..400),
            limit in 1u64..40,
        ) {
            check(&ops, limit)?;
        }
    }
}
