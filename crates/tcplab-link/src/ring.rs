//! A link direction's FIFO: a power-of-two ring in 24 bytes (a `VecDeque` takes 32).
//!
//! Only what [`crate::Link`] needs: push at the back, pop at the front, index from the
//! front, and cut the back off (an outage). Slots hold initialised values (a taken slot
//! keeps `T::default()`, or, for a `T` without drop glue such as the simulator's FIFO
//! entries, popping leaves the bits it read: writing the default cost about 6 of a
//! delivery's instructions); the other `unsafe` is an unchecked index into the buffer,
//! always masked by its power-of-two capacity (the checked index cost about 20
//! instructions per B2 event, 1.5 % of B1). Two choices keep a link's
//! packets in as few cache lines as possible:
//! - it grows (doubling, from 2) to the high-water mark and never shrinks, so the
//!   per-packet path does not allocate once a link has seen its busiest moment;
//! - a ring that empties restarts at its buffer's front: most link directions of a large
//!   topology hold one or two packets at a time, and their pushes keep landing in the
//!   same (cached) line instead of walking the whole buffer.

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Ring<T> {
    /// Capacity is `buf.len()`: zero or a power of two.
    buf: Box<[T]>,
    /// Physical index of the front (0 when empty).
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

    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len() == self.buf.len() {
            self.grow();
        }
        let at = self.phys(self.len());
        *self.slot_mut(at) = v;
        self.len += 1;
    }

    /// Doubles the capacity (from 2), the values moved to the front of the new buffer.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(2);
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

    /// Removes the values from logical index `keep` on, handing them to `f` front first.
    pub fn cut(&mut self, keep: usize, mut f: impl FnMut(T)) {
        for i in keep..self.len() {
            let at = self.phys(i);
            f(std::mem::take(&mut self.buf[at]));
        }
        self.len = self.len.min(keep as u32);
        if self.len == 0 {
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

    #[test]
    fn twenty_four_bytes() {
        assert_eq!(std::mem::size_of::<Ring<[u64; 4]>>(), 24);
    }
}
