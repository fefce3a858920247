//! The event queue: events ordered by (time, insertion sequence).
//!
//! Simultaneous events run in insertion order, a deterministic order independent of the
//! queue's internals. The far heap packs the time and its own insertion sequence into one
//! 128-bit key (`time << 64 | seq`); the wheel needs no sequence, since a slot's list
//! keeps equal times in the order they were pushed, so its nodes hold the time alone
//! (16 bytes a node, one 64-bit comparison a step).
//!
//! A simulation's pending events are mostly near: the next arrival on each busy link, a
//! few microseconds to tens of milliseconds ahead. Those go into a *timing wheel*: slots
//! of 4.096 µs, 8,192 of them (a 33.5 ms horizon), each a list sorted by time (a push
//! usually appends: the same or a later time); a two-level bitmap
//! finds the next occupied slot, whose first entry is the next event. Events beyond the horizon when pushed (retransmission timers, long delays) go
//! to a 4-ary heap; every pop takes the earlier of the wheel's first entry and the heap's
//! root. Pushes and pops cost O(1) on the wheel (a push earlier than the last entry of
//! its slot walks that slot's list), where a heap costs O(log n) for both: the
//! difference is most of the queue's cost when every packet hop is an event.
//!
//! Exactness: every entry in the wheel lies in `[cursor, cursor + horizon)` slots (the
//! cursor is the slot of the last pop, and time never goes back), so each wheel slot holds
//! a single time slot and scanning slots from the cursor visits them in time order.
//! Between the wheel and the heap, equal times go to the heap first: an entry went to the
//! heap because its slot was a horizon or more past the cursor, and one of the same time
//! went to the wheel only once the cursor had moved closer, so later (the cursor never
//! goes back).

use tcplab_core::Time;

/// log2 of the slot width in nanoseconds: 4.096 µs, a third of a 1500-byte packet's time
/// at 1 Gbit/s, so a slot seldom holds events pushed out of time order (each such push
/// walks the slot's list in `insert_sorted`: 2.4 % of B2's profile samples with 8.192 µs
/// slots, 0.6 % with these; B2 about 4 % less wall time at 100 and 1000 flows).
const SHIFT: u32 = 12;
/// A 33.5 ms horizon in a slot table of 64 KB. Coarser than 2 µs: with 16,384 slots of
/// 2 µs the table was 128 KB and a push into a far slot was a cache miss once the flows'
/// state filled the cache (B2, 1000 flows: 5 % fewer simulated L2 misses per event with
/// 4,096 slots of 8 µs); 2 µs slots measured no faster than 4 µs.
const SLOTS: usize = 1 << 13;
// The summary bitmap has one bit per word of `bits`: at least one whole summary word.
const _: () = assert!(SLOTS >= 4096 && SLOTS % 4096 == 0);
const MASK: u64 = SLOTS as u64 - 1;
const WORDS: usize = SLOTS / 64;
const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Nanoseconds.
    time: u64,
    item: u32,
    next: u32,
}

/// A wheel slot's list: its first and last node (`NIL` when empty).
#[derive(Clone, Copy, Debug)]
struct Ends {
    head: u32,
    tail: u32,
}

const EMPTY: Ends = Ends {
    head: NIL,
    tail: NIL,
};

/// A far-heap entry: 24 bytes, the 128-bit key kept as two words (a `u128` field would
/// align the entry to 16 bytes and make it 32: a 4-ary heap's sift reads four siblings,
/// 96 bytes instead of 128, and the heap of a run with 1000 flows' timers stays smaller).
#[derive(Clone, Copy, Debug)]
struct Far {
    key: [u64; 2],
    item: u32,
}

impl Far {
    #[inline(always)]
    fn new(key: u128, item: u32) -> Far {
        Far {
            key: [(key >> 64) as u64, key as u64],
            item,
        }
    }

    /// `time << 64 | seq` (see the module docs).
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.key[0] as u128) << 64 | self.key[1] as u128
    }
}

/// A min-queue of `(time, item)`, FIFO among equal times (see the module docs).
#[derive(Debug)]
pub struct EventQueue {
    /// Wheel entries and free nodes (linked through `next`).
    nodes: Vec<Node>,
    free: u32,
    /// First and last node of each slot's list, side by side: a push or pop in a slot
    /// touches one cache line of this table, not one in each of two.
    ends: Box<[Ends; SLOTS]>,
    /// Occupied slots, and occupied words of `bits`.
    bits: Box<[u64; WORDS]>,
    summary: [u64; WORDS / 64],
    in_wheel: usize,
    /// Slot (time >> SHIFT) of the last pop.
    cursor: u64,
    /// Entries beyond the horizon when pushed: a 4-ary min-heap.
    far: Vec<Far>,
    /// The time of `far`'s root, `u64::MAX` when it is empty: every pop compares the
    /// wheel's first time with it, one load instead of the heap's pointer and length.
    far_min: u64,
    /// Entries pushed to `far` so far.
    far_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

#[inline(always)]
fn unkey(k: u128) -> Time {
    Time((k >> 64) as u64)
}

impl EventQueue {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            nodes: Vec::with_capacity(n),
            free: NIL,
            ends: Box::new([EMPTY; SLOTS]),
            bits: Box::new([0; WORDS]),
            summary: [0; WORDS / 64],
            in_wheel: 0,
            cursor: 0,
            far: Vec::new(),
            far_min: u64::MAX,
            far_seq: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, item: u32) {
        // An event in the past (never pushed by the simulator, allowed here) waits in the
        // cursor's slot, where it is still found first.
        let slot = (time.as_nanos() >> SHIFT).max(self.cursor);
        if slot - self.cursor < SLOTS as u64 {
            self.wheel_push(slot, time.as_nanos(), item);
        } else {
            // The sequence orders equal times within the heap only (the wheel needs none,
            // and between the two, push order is decided without it: module docs).
            let key = ((time.as_nanos() as u128) << 64) | self.far_seq as u128;
            self.far_seq += 1;
            self.far_push(Far::new(key, item));
        }
    }

    #[inline(always)]
    fn wheel_push(&mut self, slot: u64, time: u64, item: u32) {
        let b = (slot & MASK) as usize;
        let node = Node {
            time,
            item,
            next: NIL,
        };
        let n = if self.free != NIL {
            let n = self.free;
            // One look-up (and bounds check) for the free node's link and its new value.
            let slot = &mut self.nodes[n as usize];
            self.free = slot.next;
            *slot = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        let tail = self.ends[b].tail;
        if tail == NIL {
            self.ends[b] = Ends { head: n, tail: n };
            self.bits[b / 64] |= 1 << (b % 64);
            self.summary[b / 4096] |= 1 << ((b / 64) % 64);
        } else if self.nodes[tail as usize].time <= time {
            // Equal times keep the order they were pushed in.
            self.nodes[tail as usize].next = n;
            self.ends[b].tail = n;
        } else {
            self.insert_sorted(b, n);
        }
        self.in_wheel += 1;
    }

    /// Links node `n` into slot `b`'s non-empty list, whose last entry is later, after
    /// every entry not later than it.
    #[cold]
    fn insert_sorted(&mut self, b: usize, n: u32) {
        let time = self.nodes[n as usize].time;
        let head = self.ends[b].head;
        if time < self.nodes[head as usize].time {
            self.nodes[n as usize].next = head;
            self.ends[b].head = n;
            return;
        }
        let mut p = head;
        loop {
            let q = self.nodes[p as usize].next;
            // The last entry is later, so the walk stops before the end.
            if time < self.nodes[q as usize].time {
                self.nodes[n as usize].next = q;
                self.nodes[p as usize].next = n;
                return;
            }
            p = q;
        }
    }

    /// The first occupied wheel slot at or after the cursor (circularly).
    #[inline(always)]
    fn first_slot(&self) -> usize {
        let c = (self.cursor & MASK) as usize;
        let w = c / 64;
        let here = self.bits[w] & (!0u64 << (c % 64));
        if here != 0 {
            // Masked (a no-op) so the slot table's index needs no bounds check.
            return (w * 64 + here.trailing_zeros() as usize) & (SLOTS - 1);
        }
        // Next occupied word after w, circularly, through the summary.
        let next_word = |from: usize| -> Option<usize> {
            // Words >= from.
            let mut s = from / 64;
            if s >= self.summary.len() {
                return None;
            }
            let mut m = self.summary[s] & (!0u64 << (from % 64));
            loop {
                if m != 0 {
                    return Some(s * 64 + m.trailing_zeros() as usize);
                }
                s += 1;
                if s == self.summary.len() {
                    return None;
                }
                m = self.summary[s];
            }
        };
        let w2 = next_word(w + 1)
            .or_else(|| next_word(0))
            .expect("the wheel is not empty");
        if w2 == w {
            // Only the part of the cursor's word below the cursor: a full lap ahead.
            return w * 64 + self.bits[w].trailing_zeros() as usize;
        }
        w2 * 64 + self.bits[w2].trailing_zeros() as usize
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, u32)> {
        if self.in_wheel > 0 {
            let b = self.first_slot();
            let first = self.ends[b].head;
            let slot = &mut self.nodes[first as usize];
            let node = *slot;
            // An equal time in the heap was pushed first (module docs). The second test
            // runs only when the first fails: a wheel entry at `u64::MAX` ns with an
            // empty heap.
            if node.time < self.far_min || self.far.is_empty() {
                // The node goes onto the free list (one look-up for its read and write).
                slot.next = self.free;
                self.free = first;
                self.ends[b].head = node.next;
                if node.next == NIL {
                    self.ends[b].tail = NIL;
                    // One look-up of the word for its clear and its test.
                    let word = &mut self.bits[b / 64];
                    *word &= !(1 << (b % 64));
                    if *word == 0 {
                        self.summary[b / 4096] &= !(1 << ((b / 64) % 64));
                    }
                }
                self.in_wheel -= 1;
                let t = Time(node.time);
                self.cursor = self.cursor.max(t.as_nanos() >> SHIFT);
                return Some((t, node.item));
            }
        }
        let f = self.far_pop()?;
        let t = unkey(f.key());
        self.cursor = self.cursor.max(t.as_nanos() >> SHIFT);
        Some((t, f.item))
    }

    fn far_push(&mut self, e: Far) {
        self.far.push(e);
        let h = &mut self.far[..];
        let mut i = h.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 4;
            if h[parent].key() <= e.key() {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
        self.far_min = unkey(h[0].key()).as_nanos();
    }

    fn far_pop(&mut self) -> Option<Far> {
        let last = self.far.pop()?;
        let h = &mut self.far[..];
        let n = h.len();
        if n == 0 {
            self.far_min = u64::MAX;
            return Some(last);
        }
        let top = h[0];
        let mut i = 0;
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let mut m = c;
            for j in c + 1..n.min(c + 4) {
                if h[j].key() < h[m].key() {
                    m = j;
                }
            }
            if h[m].key() >= last.key() {
                break;
            }
            h[i] = h[m];
            i = m;
        }
        h[i] = last;
        self.far_min = unkey(h[0].key()).as_nanos();
        Some(top)
    }

    /// When the next event is due.
    pub fn peek_time(&self) -> Option<Time> {
        let far = self.far.first().map(|f| unkey(f.key()));
        let wheel = (self.in_wheel > 0)
            .then(|| Time(self.nodes[self.ends[self.first_slot()].head as usize].time));
        match (wheel, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn len(&self) -> usize {
        self.in_wheel + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A far entry is 24 bytes and its key reads back as written (time, then sequence).
    #[test]
    fn a_far_entry_takes_24_bytes_and_keeps_its_key() {
        assert_eq!(std::mem::size_of::<Far>(), 24);
        for key in [0u128, 1, u64::MAX as u128, (7u128 << 64) | 9, u128::MAX] {
            assert_eq!(Far::new(key, 3).key(), key);
        }
        assert!(Far::new(1 << 64, 0).key() > Far::new(u64::MAX as u128, 0).key());
    }

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

    /// Pushes (`dt` after the last popped time) and pops against a sorted reference list.
    fn check(ops: &[(bool, u64)]) -> Result<(), TestCaseError> {
        let mut q = EventQueue::default();
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
                q.push(Time(now + dt), i as u32);
                reference.push((now + dt, i as u32));
            }
            prop_assert_eq!(q.len(), reference.len());
            reference.sort();
            prop_assert_eq!(q.peek_time().map(|t| t.0), reference.first().map(|r| r.0));
        }
        Ok(())
    }

    /// Delays spanning one slot, the horizon and laps of the wheel.
    fn delay() -> impl Strategy<Value = u64> {
        prop_oneof![
            0u64..50,
            0u64..(1 << SHIFT) * 4,
            0u64..(SLOTS as u64) << SHIFT,
            ((SLOTS as u64 - 2) << SHIFT)..((SLOTS as u64 + 2) << SHIFT),
            0u64..(SLOTS as u64) << (SHIFT + 3),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn pops_sorted_by_time_then_sequence(
            ops in proptest::collection::vec((any::<bool>(), delay()), 0..400),
        ) {
            check(&ops)?;
        }
    }

    /// An entry pushed beyond the horizon (to the heap) and one pushed later at the same
    /// time, once the cursor has come close (to the wheel), pop in push order; so do
    /// equal times within a wheel slot, after an earlier one was inserted before them.
    #[test]
    fn equal_times_in_heap_and_wheel_pop_in_push_order() {
        let far = (SLOTS as u64 + 10) << SHIFT;
        let mut q = EventQueue::default();
        q.push(Time(far), 1);
        q.push(Time(far - (5 << SHIFT)), 2);
        assert_eq!(q.far.len(), 2);
        q.push(Time(far - ((SLOTS as u64 - 20) << SHIFT)), 3);
        assert_eq!(
            q.pop(),
            Some((Time(far - ((SLOTS as u64 - 20) << SHIFT)), 3))
        );
        // The cursor is now 30 slots ahead of 0: `far` is within the horizon.
        q.push(Time(far), 4);
        q.push(Time(far), 5);
        q.push(Time(far - 1), 6);
        assert_eq!(q.in_wheel, 3);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec![2, 6, 1, 4, 5]);
    }

    /// A wheel entry at the last representable time still pops when the heap is empty.
    #[test]
    fn the_last_time_pops_from_the_wheel() {
        let mut q = EventQueue::default();
        let near_end = u64::MAX - 5;
        q.push(Time(near_end), 1);
        assert_eq!(q.pop(), Some((Time(near_end), 1)));
        q.push(Time(u64::MAX), 2);
        assert_eq!((q.in_wheel, q.far.len()), (1, 0));
        assert_eq!(q.peek_time(), Some(Time(u64::MAX)));
        assert_eq!(q.pop(), Some((Time(u64::MAX), 2)));
        assert_eq!(q.pop(), None);
    }

    /// Events in the past (allowed, though the simulator never pushes one) come first.
    #[test]
    fn an_event_in_the_past_comes_first() {
        let mut q = EventQueue::default();
        q.push(Time(10_000_000), 1);
        q.push(Time(20_000_000), 2);
        assert_eq!(q.pop(), Some((Time(10_000_000), 1)));
        q.push(Time(5), 3);
        q.push(Time(10_000_000 + 1), 4);
        assert_eq!(q.pop(), Some((Time(5), 3)));
        assert_eq!(q.pop(), Some((Time(10_000_001), 4)));
        assert_eq!(q.pop(), Some((Time(20_000_000), 2)));
        assert_eq!(q.pop(), None);
    }
}
