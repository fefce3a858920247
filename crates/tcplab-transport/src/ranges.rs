//! A set of `u64` numbers kept as sorted, disjoint, non-adjacent half-open ranges.
//!
//! Receivers use it for what they hold: TCP's out-of-order bytes above `rcv_nxt`, TACK's
//! bytes and the packet numbers it has seen. The vector grows to the most ranges ever
//! held and is reused, so steady-state inserts do not allocate.

/// Sorted disjoint ranges `[start, end)` (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranges {
    v: Vec<(u64, u64)>,
}

impl Ranges {
    #[inline]
    pub fn with_capacity(n: usize) -> Ranges {
        Ranges {
            v: Vec::with_capacity(n),
        }
    }

    /// Adds `[start, end)`, merging with overlapping or touching ranges. Returns the range
    /// it became part of and how many numbers were new.
    #[inline]
    pub fn insert(&mut self, start: u64, end: u64) -> ((u64, u64), u64) {
        // Data mostly arrives in order above the highest range: extend or append to it
        // without the search (what the general case below gives for it).
        match self.v.last_mut() {
            Some(last) if start == last.1 && end > start => {
                last.1 = end;
                return ((last.0, end), end - start);
            }
            Some(last) if start > last.1 => {}
            Some(_) => return self.insert_within(start, end),
            None => {}
        }
        self.v.push((start, end));
        ((start, end), end - start)
    }

    /// [`insert`](Self::insert) of a range that starts at or below the highest range's end.
    fn insert_within(&mut self, start: u64, end: u64) -> ((u64, u64), u64) {
        let i = self.v.partition_point(|r| r.1 < start);
        let (mut lo, mut hi, mut covered) = (start, end, 0);
        let mut j = i;
        while j < self.v.len() && self.v[j].0 <= end {
            let (a, b) = self.v[j];
            covered += b.min(end).saturating_sub(a.max(start));
            lo = lo.min(a);
            hi = hi.max(b);
            j += 1;
        }
        if j > i {
            self.v[i] = (lo, hi);
            self.v.drain(i + 1..j);
        } else {
            self.v.insert(i, (lo, hi));
        }
        ((lo, hi), (end - start) - covered)
    }

    /// Removes the ranges that start at or below `x`, passing each to `f`.
    #[inline]
    pub fn pop_starting_at_or_below(&mut self, x: u64, mut f: impl FnMut(u64, u64)) {
        let n = self.v.partition_point(|r| r.0 <= x);
        for &(a, b) in &self.v[..n] {
            f(a, b);
        }
        self.v.drain(..n);
    }

    /// Forgets every number below `x`.
    #[inline]
    pub fn remove_below(&mut self, x: u64) {
        let n = self.v.partition_point(|r| r.1 <= x);
        self.v.drain(..n);
        if let Some(first) = self.v.first_mut() {
            first.0 = first.0.max(x);
        }
    }

    /// The range containing `x`, if any.
    #[inline]
    pub fn containing(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.v.partition_point(|r| r.1 <= x);
        self.v.get(i).copied().filter(|r| r.0 <= x)
    }

    #[inline]
    pub fn contains(&self, x: u64) -> bool {
        self.containing(x).is_some()
    }

    #[inline]
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.v.iter().copied()
    }

    #[inline]
    pub fn first(&self) -> Option<(u64, u64)> {
        self.v.first().copied()
    }

    #[inline]
    pub fn last(&self) -> Option<(u64, u64)> {
        self.v.last().copied()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_merge_and_count_new_numbers() {
        let mut r = Ranges::default();
        assert_eq!(r.insert(10, 20), ((10, 20), 10));
        assert_eq!(r.insert(30, 40), ((30, 40), 10));
        assert_eq!(r.insert(15, 35), ((10, 40), 10), "bridges both, 10 new");
        assert_eq!(r.insert(40, 41), ((10, 41), 1), "touching merges");
        assert_eq!(r.insert(50, 60), ((50, 60), 10));
        assert_eq!(r.containing(55), Some((50, 60)));
        assert_eq!(r.containing(45), None);
        let mut popped = vec![];
        r.pop_starting_at_or_below(10, |a, b| popped.push((a, b)));
        assert_eq!(popped, vec![(10, 41)]);
        r.insert(70, 80);
        r.remove_below(55);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(55, 60), (70, 80)]);
        r.remove_below(65);
        assert_eq!(r.first(), Some((70, 80)));
    }

    /// Any sequence of inserts (mostly at or above the highest range, as data arrives, some
    /// below and empty ones) leaves exactly the numbers inserted, as sorted disjoint
    /// non-adjacent ranges, and counts the new ones.
    #[test]
    fn inserts_match_a_bitmap() {
        let mut rng = tcplab_core::Rng::named(3, "ranges");
        for _ in 0..200 {
            let (mut r, mut held) = (Ranges::default(), [false; 200]);
            let mut top = 0;
            for _ in 0..60 {
                let start = if rng.next_u64() % 3 == 0 {
                    rng.next_u64() % 180
                } else {
                    (top + rng.next_u64() % 3).min(180)
                };
                let end = start + rng.next_u64() % 8;
                top = top.max(end);
                let new = (start..end).filter(|&x| !held[x as usize]).count() as u64;
                let ((lo, hi), got) = r.insert(start, end);
                (start..end).for_each(|x| held[x as usize] = true);
                assert_eq!(got, new, "new numbers of [{start}, {end})");
                assert!(lo <= start && end <= hi || start == end);
                let want: Vec<u64> = (0..200).filter(|&x| held[x as usize]).collect();
                let have: Vec<u64> = r.iter().flat_map(|(a, b)| a..b).collect();
                assert_eq!(have, want);
                assert!(r.iter().zip(r.iter().skip(1)).all(|(a, b)| a.1 < b.0));
            }
        }
    }
}
