//! A link direction's FIFO: a power-of-two ring in 24 bytes (a `VecDeque` takes 32).
//!
//! Only what [`crate::Link`] needs: push at the back, pop at the front, index from the
//! front, and cut the back off (an outage). Slots hold initialised values (a taken slot
//! keeps `T::default()`, or, for a `T` without drop glue such as the simulator's FIFO
//! entries, popping leaves the bits it read: writing the default cost about 6 of a
//! delivery's instructions); the other `unsafe` is an unchecked index into the buffer,
//! always masked by its power-of-two capacity (the checked index cost about 20
//! instructions per B2 event, 1.5 % of B1). These choices keep a link's
//! packets in as few cache lines as possible:
//! - it grows (doubling, from 8) to the high-water mark and never shrinks, so the
//!   per-packet path does not allocate once a link has seen its busiest moment. It starts
//!   at 8, not 2: a link of a large topology soon holds a few packets (a flow's burst
//!   crossing it), and growing 2, 4, 8 made, copied and freed three buffers where one
//!   does (B2, 1000 flows: 3 % fewer simulated last-level read misses, no more heap);
//! - a ring that empties restarts at its buffer's front, so a link that carries a packet
//!   now and then keeps landing in the same line instead of walking the whole buffer;
//! - a driver with many rings can have an emptied ring give its buffer to [`Spares`]
//!   (`give_if_empty`), and a ring without a buffer takes the last one given of its
//!   capacity at its next push (`push_back_spared`): with thousands of rings each in use
//!   now and then, a buffer of its own is out of cache whenever a ring starts again, and
//!   the one given last was in use a moment ago. A ring keeps the class of the capacity
//!   it gave up, so it takes back as much room as it had.

/// Buffers of emptied rings, by capacity (class `k` holds buffers of `2^k` values), for
/// the next ring of that capacity that needs one: see the module docs.
#[derive(Debug)]
pub(crate) struct Spares<T> {
    by_class: [Stack<T>; 32],
}

/// A stack of buffers of one capacity: `bufs[..top]` (the slots above keep the empty
/// buffers taken from them, so giving and taking move a buffer without a call: no
/// growth, no drop).
#[derive(Debug)]
struct Stack<T> {
    bufs: Vec<Box<[T]>>,
    top: usize,
}

impl<T> Default for Spares<T> {
    fn default() -> Self {
        Spares {
            by_class: std::array::from_fn(|_| Stack {
                bufs: Vec::new(),
                top: 0,
            }),
        }
    }
}

impl<T> Spares<T> {
    /// Buffers held, and the values they have room for (tests).
    #[cfg(test)]
    fn held(&self) -> (usize, usize) {
        let held = || self.by_class.iter().flat_map(|s| &s.bufs[..s.top]);
        (held().count(), held().map(|b| b.len()).sum())
    }

    /// The last buffer given of `2^class` values, if any.
    #[inline(always)]
    fn take(&mut self, class: u32) -> Option<Box<[T]>> {
        let s = &mut self.by_class[(class & 31) as usize];
        let top = s.top.checked_sub(1)?;
        s.top = top;
        Some(std::mem::take(&mut s.bufs[top]))
    }

    /// Keeps `buf`, of `2^class` values.
    #[inline(always)]
    fn give(&mut self, class: u32, buf: Box<[T]>) {
        let s = &mut self.by_class[(class & 31) as usize];
        match s.bufs.get_mut(s.top) {
            // The slot holds the empty buffer `take` left: nothing to free.
            Some(slot) => std::mem::forget(std::mem::replace(slot, buf)),
            None => Self::grow_stack(&mut s.bufs, buf),
        }
        s.top += 1;
    }

    #[cold]
    #[inline(never)]
    fn grow_stack(bufs: &mut Vec<Box<[T]>>, buf: Box<[T]>) {
        bufs.push(buf);
    }
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Ring<T> {
    /// Capacity is `buf.len()`: zero or a power of two.
    buf: Box<[T]>,
    /// Physical index of the front (0 when empty); while the ring has given its buffer
    /// to the spares, the class of that buffer's capacity (see `give_if_empty`).
    head: u32,
    len: u32,
}

impl<T: Default> Ring<T> {
    pub fn new() -> Ring<T> {
        Ring {
            buf: Box::default(),
            head: 0,
            len: 0,
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Physical index of logical index `i` (the capacity is a power of two).
    #[inline(always)]
    fn phys(&self, i: usize) -> usize {
        (self.head as usize + i) & (self.buf.len().wrapping_sub(1))
    }

    /// The slot at physical index `at`, which `phys` gave while the buffer was not empty.
    #[inline(always)]
    fn slot(&self, at: usize) -> &T {
        debug_assert!(at < self.buf.len());
        // SAFETY: `at` is masked by `buf.len() - 1` with `buf.len()` a non-zero power of
        // two (callers hold a value, so the buffer is allocated), hence in bounds.
        unsafe { self.buf.get_unchecked(at) }
    }

    /// See [`Ring::slot`].
    #[inline(always)]
    fn slot_mut(&mut self, at: usize) -> &mut T {
        debug_assert!(at < self.buf.len());
        // SAFETY: as in `slot`.
        unsafe { self.buf.get_unchecked_mut(at) }
    }

    #[cfg(test)]
    pub fn push_back(&mut self, v: T) {
        self.push_back_spared(v, None);
    }

    /// [`Ring::push_back`]; a ring without a buffer (it gave its last one to `spares`)
    /// takes one of the capacity it had from `spares` first.
    #[inline(always)]
    pub fn push_back_spared(&mut self, v: T, spares: Option<&mut Spares<T>>) {
        if self.len() == self.buf.len() {
            self.make_room(spares);
        }
        let at = self.phys(self.len());
        *self.slot_mut(at) = v;
        self.len += 1;
    }

    /// Room for one more value in a full ring: a ring that gave its buffer away takes
    /// back the last one given of the same capacity from `spares` (the common case of a
    /// run with many links, kept small: the call is once per burst a link carries);
    /// otherwise `grow`.
    #[inline(never)]
    fn make_room(&mut self, spares: Option<&mut Spares<T>>) {
        if self.buf.is_empty() && self.head != 0 {
            // Gave its buffer away; `head` keeps the capacity's class (see `give_if_empty`).
            if let Some(b) = spares.and_then(|s| s.take(self.head)) {
                // The buffer replaced is empty: nothing to free.
                std::mem::forget(std::mem::replace(&mut self.buf, b));
                self.head = 0;
                return;
            }
        }
        self.grow();
    }

    /// Doubles the capacity (from 8), the values moved to the front of the new buffer; a
    /// ring that gave its buffer away gets a new one of the same capacity.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        if self.buf.is_empty() && self.head != 0 {
            let class = self.head;
            self.head = 0;
            self.buf = (0..1usize << class).map(|_| T::default()).collect();
            return;
        }
        let cap = (self.buf.len() * 2).max(8);
        assert!(cap <= 1 << 31, "a link FIFO of 2^31 packets");
        let mut buf: Box<[T]> = (0..cap).map(|_| T::default()).collect();
        for (i, slot) in buf.iter_mut().take(self.len()).enumerate() {
            let at = self.phys(i);
            *slot = std::mem::take(&mut self.buf[at]);
        }
        self.buf = buf;
        self.head = 0;
    }

    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        (self.len != 0).then(|| self.slot(self.head as usize))
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len()).then(|| self.slot(self.phys(i)))
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let at = self.head as usize;
        let slot = self.slot_mut(at);
        let v = if std::mem::needs_drop::<T>() {
            std::mem::take(slot)
        } else {
            // SAFETY: `slot` is a valid, initialised `T`. Without drop glue, the bitwise
            // copy left behind is never dropped as a second owner (the buffer's drop and
            // the overwrite by a later `push_back` drop nothing), and it is never read:
            // only the live range `head..head + len` is read, and `grow` moves only that.
            unsafe { std::ptr::read(slot) }
        };
        self.len -= 1;
        // Back to the buffer's front once empty (see the module docs).
        self.head = self.phys(1) as u32 * u32::from(self.len != 0);
        Some(v)
    }

    /// An empty ring with a buffer gives it to `spares` (see the module docs) and keeps
    /// the buffer's capacity class in `head` (a buffer has 8 or more entries, class 3 or
    /// more, so a `head` of 0 still means "never had a buffer").
    #[inline(always)]
    pub fn give_if_empty(&mut self, spares: &mut Spares<T>) {
        if self.len != 0 || self.buf.is_empty() {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        let class = buf.len().trailing_zeros();
        spares.give(class, buf);
        self.head = class;
    }

    /// Removes the values from logical index `keep` on, handing them to `f` front first.
    pub fn cut(&mut self, keep: usize, mut f: impl FnMut(T)) {
        for i in keep..self.len() {
            let at = self.phys(i);
            f(std::mem::take(&mut self.buf[at]));
        }
        self.len = self.len.min(keep as u32);
        if self.len == 0 && !self.buf.is_empty() {
            self.head = 0;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).map(|i| &self.buf[self.phys(i)])
    }
}

impl<T: Default> std::ops::Index<usize> for Ring<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len(), "ring index {i} out of {}", self.len);
        self.slot(self.phys(i))
    }
}

impl<T: Default> std::ops::IndexMut<usize> for Ring<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len(), "ring index {i} out of {}", self.len);
        let at = self.phys(i);
        self.slot_mut(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Against `VecDeque` through random pushes, pops, cuts and indexing.
    /// Values with drop glue are taken (the slot keeps the default), so each is dropped
    /// exactly once: by its last owner, never by the ring as well.
    #[test]
    fn values_with_drop_glue_are_owned_once() {
        use std::rc::Rc;
        let marker = Rc::new(());
        let mut r: Ring<Option<Rc<()>>> = Ring::new();
        for round in 0..3 {
            for _ in 0..10 {
                r.push_back(Some(marker.clone()));
            }
            assert_eq!(Rc::strong_count(&marker), 1 + 10 * (round + 1) - 7 * round);
            for _ in 0..7 {
                assert!(r.pop_front().unwrap().is_some());
            }
        }
        assert_eq!(Rc::strong_count(&marker), 1 + 30 - 21);
        drop(r);
        assert_eq!(Rc::strong_count(&marker), 1);
    }

    #[test]
    fn behaves_as_a_deque() {
        let mut r: Ring<u64> = Ring::new();
        let mut d: VecDeque<u64> = VecDeque::new();
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for n in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 11 {
                0..=4 => {
                    r.push_back(n);
                    d.push_back(n);
                }
                5..=8 => assert_eq!(r.pop_front(), d.pop_front()),
                9 => {
                    let keep = (x >> 8) as usize % (d.len() + 1);
                    let mut cut = vec![];
                    r.cut(keep, |v| cut.push(v));
                    let want: Vec<u64> = d.drain(keep..).collect();
                    assert_eq!(cut, want);
                }
                _ => {
                    if !d.is_empty() {
                        let i = (x >> 8) as usize % d.len();
                        r[i] += 1;
                        d[i] += 1;
                    }
                }
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            assert!(r.iter().eq(d.iter()));
            assert!(r.capacity().is_power_of_two() || r.capacity() == 0);
        }
    }

    /// An emptied ring starts again at its buffer's front; it keeps its capacity.
    #[test]
    fn an_emptied_ring_restarts_at_the_front_and_keeps_its_capacity() {
        let mut r: Ring<u32> = Ring::new();
        for v in 0..5 {
            r.push_back(v);
        }
        assert_eq!(r.capacity(), 8);
        while r.pop_front().is_some() {}
        assert_eq!((r.head, r.capacity()), (0, 8));
        r.push_back(9);
        r.push_back(10);
        r.pop_front();
        assert_eq!(r.head, 1);
        r.pop_front();
        assert_eq!(r.head, 0);
        r.push_back(1);
        r.cut(0, |_| {});
        assert_eq!((r.head, r.len(), r.capacity()), (0, 0, 8));
    }

    /// An emptied ring gives its buffer to the spares and keeps its capacity class; the
    /// next ring of that class to start takes that very buffer (last given, first taken),
    /// and a ring whose class has no spare makes a buffer of its old capacity.
    #[test]
    fn an_emptied_ring_gives_its_buffer_to_the_next_ring_that_starts() {
        let mut spares: Spares<u32> = Spares::default();
        let (mut a, mut b): (Ring<u32>, Ring<u32>) = (Ring::new(), Ring::new());
        for v in 0..9 {
            a.push_back_spared(v, Some(&mut spares));
            b.push_back_spared(v, Some(&mut spares));
        }
        a.give_if_empty(&mut spares);
        assert_eq!(
            (a.capacity(), spares.held()),
            (16, (0, 0)),
            "not empty: kept"
        );
        while a.pop_front().is_some() {}
        let a_buf = a.buf.as_ptr();
        a.give_if_empty(&mut spares);
        assert_eq!((a.capacity(), a.head, spares.held()), (0, 4, (1, 16)));
        a.give_if_empty(&mut spares);
        assert_eq!(spares.held(), (1, 16), "nothing left to give");
        assert!(a.front().is_none() && a.iter().next().is_none());
        while b.pop_front().is_some() {}
        b.give_if_empty(&mut spares);
        assert_eq!(spares.held(), (2, 32));
        // `b` gave last, so `a` takes `b`'s buffer and `b` then takes `a`'s.
        let b_buf = spares.by_class[4].bufs[1].as_ptr();
        a.push_back_spared(7, Some(&mut spares));
        assert_eq!((a.buf.as_ptr(), a.capacity(), a.head), (b_buf, 16, 0));
        assert_eq!(a.front(), Some(&7));
        b.push_back_spared(8, Some(&mut spares));
        assert_eq!((b.buf.as_ptr(), spares.held()), (a_buf, (0, 0)));
        // A ring that never had a buffer makes one of the first capacity, 8.
        a.pop_front();
        a.give_if_empty(&mut spares);
        let mut c: Ring<u32> = Ring::new();
        c.push_back_spared(1, Some(&mut spares));
        assert_eq!(c.capacity(), 8);
        assert_eq!(spares.held(), (1, 16));
        // No spare of its class (nor spares at all): a new buffer of its old capacity.
        spares = Spares::default();
        a.push_back_spared(2, Some(&mut spares));
        assert_eq!((a.capacity(), a.front()), (16, Some(&2)));
        a.pop_front();
        a.give_if_empty(&mut spares);
        a.push_back(3);
        assert_eq!((a.capacity(), a.len()), (16, 1));
    }

    /// Rings that give their buffers up when empty and take them back behave as deques,
    /// and every buffer is in a ring or in the spares, never in both.
    #[test]
    fn rings_sharing_spares_behave_as_deques() {
        let mut spares: Spares<u64> = Spares::default();
        let mut rings: Vec<(Ring<u64>, VecDeque<u64>)> =
            (0..4).map(|_| (Ring::new(), VecDeque::new())).collect();
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for n in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (r, d) = &mut rings[(x >> 40) as usize % 4];
            match x % 7 {
                0..=2 => {
                    r.push_back_spared(n, Some(&mut spares));
                    d.push_back(n);
                }
                3..=5 => {
                    assert_eq!(r.pop_front(), d.pop_front());
                    r.give_if_empty(&mut spares);
                }
                _ => {
                    let keep = (x >> 8) as usize % (d.len() + 1);
                    r.cut(keep, |_| {});
                    d.truncate(keep);
                }
            }
            assert!(r.iter().eq(d.iter()));
            let mut ptrs: Vec<*const u64> = rings
                .iter()
                .filter(|(r, _)| r.capacity() != 0)
                .map(|(r, _)| r.buf.as_ptr())
                .collect();
            ptrs.extend(
                spares
                    .by_class
                    .iter()
                    .flat_map(|s| &s.bufs[..s.top])
                    .map(|b| b.as_ptr()),
            );
            let n = ptrs.len();
            ptrs.sort();
            ptrs.dedup();
            assert_eq!(ptrs.len(), n, "a buffer held twice");
        }
    }

    #[test]
    fn twenty_four_bytes() {
        assert_eq!(std::mem::size_of::<Ring<[u64; 4]>>(), 24);
    }
}
