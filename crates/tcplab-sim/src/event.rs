//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number breaks ties in insertion order, so simultaneous events run in a
//! deterministic order independent of heap internals. Time and sequence are packed into
//! one 128-bit key (one comparison decides), and a pop sinks the hole to the bottom before
//! sifting the last element up (Floyd's method, as `std`'s heap): about one comparison
//! per level instead of two. Written here rather than taken from `std` so that both
//! operations inline into the simulation loop.

use tcplab_core::Time;

#[derive(Clone, Copy, Debug)]
struct Entry<T> {
    /// `time << 64 | seq`.
    key: u128,
    item: T,
}

/// A min-queue of `(time, item)`, FIFO among equal times.
#[derive(Debug)]
pub struct EventQueue<T> {
    heap: Vec<Entry<T>>,
    seq: u64,
}

impl<T: Copy> Default for EventQueue<T> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<T: Copy> EventQueue<T> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(n),
            seq: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, item: T) {
        let e = Entry {
            key: ((time.as_nanos() as u128) << 64) | self.seq as u128,
            item,
        };
        self.seq += 1;
        self.heap.push(e);
        let h = &mut self.heap[..];
        let mut i = h.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if h[parent].key <= e.key {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, T)> {
        let last = self.heap.pop()?;
        let h = &mut self.heap[..];
        let n = h.len();
        if n == 0 {
            return Some((Time((last.key >> 64) as u64), last.item));
        }
        let top = h[0];
        // Sink the hole at the root to a leaf along the smaller children...
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (h[child + 1].key < h[child].key) as usize;
            h[hole] = h[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == n {
            h[hole] = h[child];
            hole = child;
        }
        // ...then sift the last element up from there.
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if h[parent].key <= last.key {
                break;
            }
            h[hole] = h[parent];
            hole = parent;
        }
        h[hole] = last;
        Some((Time((top.key >> 64) as u64), top.item))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| Time((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events pushed so far.
    pub fn pushed(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time(5), 'a');
        q.push(Time(3), 'b');
        q.push(Time(5), 'c');
        q.push(Time(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    proptest! {
        #[test]
        fn pops_sorted_by_time_then_sequence(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::default();
            for (i, &t) in times.iter().enumerate() {
                q.push(Time(t), i);
            }
            let mut expect: Vec<(u64, usize)> = times.iter().enumerate().map(|(i, &t)| (t, i)).collect();
            expect.sort();
            let got: Vec<(u64, usize)> = std::iter::from_fn(|| q.pop().map(|(t, i)| (t.0, i))).collect();
            prop_assert_eq!(got, expect);
        }
    }
}
