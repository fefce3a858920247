//! Which held out-of-order ranges a receiver's SACK blocks report (RFC 2018 section 4:
//! the range holding the newest segment first, then the others by how recently they
//! changed).
//!
//! The order is that of a list of the starts of all held ranges, most recently changed
//! first. Kept literally, every out-of-order segment costs a pass over that list (drop the
//! ranges it merged, insert at the front), and after a slow-start overshoot a flow holds
//! hundreds of ranges: a third of a 1000-flow dumbbell went there. Instead the newest
//! [`MAX_SACK_BLOCKS`] ranges are cached, which a new segment updates in O(1), and a log
//! of touched starts (oldest first, stale entries allowed) rebuilds the cache only when
//! merges or the cumulative ACK remove cached ranges faster than new ones arrive. The log
//! is compacted when it outgrows twice the held ranges, so it stays O(held).
//!
//! Why the log gives the literal list's order: a start that is valid now (it starts a held
//! range above `rcv_nxt`) can never have been swallowed, since a swallowed byte stays inside
//! a held range until the cumulative ACK passes it. So each of its log entries is a change
//! of that very range, and its newest entry is its place in the list.

use crate::ranges::Ranges;
use crate::tcp::segment::{SackBlock, MAX_SACK_BLOCKS};

/// [`SackRecency::log_last`] of an empty log.
const NO_ENTRY: u64 = u64::MAX;

/// The SACK-block order of a receiver's held ranges (see the module docs).
///
/// `repr(C)`, counts first, then what an out-of-order segment that extends the newest
/// range reads (the log's last entry, copied; the newest block) and every report copies
/// (the blocks). A receiver reads it only while it holds data out of order (see its
/// layout).
#[derive(Debug, Default)]
#[repr(C)]
pub(super) struct SackRecency {
    n_top: u8,
    /// `top` holds the min(MAX_SACK_BLOCKS, held) newest ranges; else rebuild from `log`.
    complete: bool,
    /// `log`'s last entry, [`NO_ENTRY`] when it is empty (no held range starts there:
    /// a range's start lies below its end). Most segments extend the range logged
    /// last, and this copy spares them the log: its header and its buffer.
    log_last: u64,
    /// The newest held ranges, newest first: `top[..n_top]`; the rest are
    /// `SackBlock::default()`, so a report copies the whole array as it stands.
    top: [SackBlock; MAX_SACK_BLOCKS],
    /// Starts of touched ranges, oldest first; entries may be stale (merged or ACKed).
    log: Vec<u64>,
    /// Compaction scratch (start, log position), reused.
    scratch: Vec<(u64, u32)>,
    /// Debug builds keep the literal list and check every report against it.
    #[cfg(debug_assertions)]
    literal: Vec<u64>,
}

impl SackRecency {
    /// Bytes from the start to the end of the cached blocks (tests).
    #[cfg(test)]
    pub(super) const TOP_END: usize = std::mem::offset_of!(SackRecency, top)
        + std::mem::size_of::<[SackBlock; MAX_SACK_BLOCKS]>();

    pub(super) fn new() -> SackRecency {
        SackRecency {
            complete: true,
            log_last: NO_ENTRY,
            ..SackRecency::default()
        }
    }

    /// `merged` (a held range of `ooo`, just inserted into) is now the newest.
    #[inline]
    /// `new`: the bytes the insertion added. When the newest range kept its start, the
    /// others it absorbed (if any) add their lengths to its growth beyond `new`: it
    /// absorbed none (no other block lies inside it) exactly when it grew by `new`.
    pub(super) fn touched(&mut self, merged: SackBlock, new: u64, ooo: &Ranges, rcv_nxt: u64) {
        let inside = |b: &SackBlock| b.start >= merged.start && b.start < merged.end;
        let n = self.n_top as usize;
        if n > 0
            && self.top[0].start == merged.start
            && merged.end.wrapping_sub(self.top[0].end) == new
        {
            // The newest range grew (the usual case): it stays first, the rest stay.
            self.top[0] = merged;
        } else {
            let mut next = [SackBlock::default(); MAX_SACK_BLOCKS];
            next[0] = merged;
            let mut k = 1;
            for b in &self.top[..n] {
                if k < MAX_SACK_BLOCKS && !inside(b) {
                    next[k] = *b;
                    k += 1;
                }
            }
            self.top = next;
            self.n_top = k as u8;
        }
        let n = self.n_top as usize;
        self.complete &= n == MAX_SACK_BLOCKS.min(ooo.len());
        debug_assert_eq!(self.log.last().copied().unwrap_or(NO_ENTRY), self.log_last);
        if self.log_last != merged.start {
            self.log.push(merged.start);
            self.log_last = merged.start;
            // The log grows only here: compacting it after a push bounds it as well
            // (and compaction only drops entries no rebuild uses).
            if self.log.len() >= 2 * ooo.len() + 32 {
                self.compact(ooo, rcv_nxt);
            }
        }
        #[cfg(debug_assertions)]
        {
            self.literal
                .retain(|&s| s < merged.start || s >= merged.end);
            self.literal.insert(0, merged.start);
        }
    }

    /// No block cached: what the cache holds when no range is held (it caches held
    /// ranges only; the receiver then reads it no more).
    pub(super) fn holds_none(&self) -> bool {
        self.n_top == 0
    }

    /// The cumulative ACK reached `rcv_nxt`: ranges at or below it are gone.
    #[inline]
    pub(super) fn absorbed(&mut self, rcv_nxt: u64, held: usize) {
        let mut k = 0;
        let n = self.n_top as usize;
        for i in 0..n {
            if self.top[i].start > rcv_nxt {
                self.top[k] = self.top[i];
                k += 1;
            }
        }
        for t in &mut self.top[k..n] {
            *t = SackBlock::default();
        }
        self.n_top = k as u8;
        self.complete &= k == MAX_SACK_BLOCKS.min(held);
        #[cfg(debug_assertions)]
        self.literal.retain(|&s| s > rcv_nxt);
    }

    /// Writes the SACK blocks (newest first) into `out`, which must be default; returns
    /// how many (the rest of `out` stays default).
    #[inline]
    pub(super) fn blocks(
        &mut self,
        ooo: &Ranges,
        rcv_nxt: u64,
        out: &mut [SackBlock; MAX_SACK_BLOCKS],
    ) -> usize {
        debug_assert!(out.iter().all(|b| *b == SackBlock::default()));
        if !self.complete {
            self.rebuild(ooo, rcv_nxt);
        }
        let n = self.n_top as usize;
        // The whole array (the blocks past `n` are default): a fixed 48-byte copy, no
        // branch per block. Not without blocks (`out` is default already): the array's
        // tail lies past the receiver's per-segment lines, and an in-order flow would
        // read it on every ACK.
        debug_assert!(self.top[n..].iter().all(|b| *b == SackBlock::default()));
        if n > 0 {
            *out = self.top;
        }
        // Compared without collecting: the per-packet path allocates nothing, in debug too.
        #[cfg(debug_assertions)]
        {
            let literal = self.literal.iter().take(MAX_SACK_BLOCKS).map(|&s| {
                let (start, end) = ooo.containing(s).expect("literal list: a held start");
                SackBlock { start, end }
            });
            assert!(
                literal.eq(out[..n].iter().copied()),
                "SACK blocks {:?} against the literal list {:?}",
                &out[..n],
                &self.literal[..self.literal.len().min(MAX_SACK_BLOCKS)]
            );
        }
        n
    }

    /// The start `s` begins a held range above `rcv_nxt`: that range.
    fn valid(ooo: &Ranges, rcv_nxt: u64, s: u64) -> Option<SackBlock> {
        if s <= rcv_nxt {
            return None;
        }
        ooo.containing(s)
            .filter(|r| r.0 == s)
            .map(|(start, end)| SackBlock { start, end })
    }

    /// The cache from the log: the newest distinct valid starts.
    fn rebuild(&mut self, ooo: &Ranges, rcv_nxt: u64) {
        let mut n = 0;
        for &s in self.log.iter().rev() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if let Some(b) = Self::valid(ooo, rcv_nxt, s) {
                if !self.top[..n].contains(&b) {
                    self.top[n] = b;
                    n += 1;
                }
            }
        }
        for t in &mut self.top[n..] {
            *t = SackBlock::default();
        }
        self.n_top = n as u8;
        self.complete = true;
    }

    /// Keeps only the newest entry of each valid start, in log order.
    fn compact(&mut self, ooo: &Ranges, rcv_nxt: u64) {
        self.scratch.clear();
        for (i, &s) in self.log.iter().enumerate() {
            if Self::valid(ooo, rcv_nxt, s).is_some() {
                self.scratch.push((s, i as u32));
            }
        }
        // Newest entry first within each start, then one per start, then back to log order.
        self.scratch
            .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        self.scratch.dedup_by_key(|e| e.0);
        self.scratch.sort_unstable_by_key(|e| e.1);
        self.log.clear();
        self.log.extend(self.scratch.iter().map(|e| e.0));
        self.log_last = self.log.last().copied().unwrap_or(NO_ENTRY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(r: &mut SackRecency, ooo: &Ranges, rcv_nxt: u64) -> Vec<(u64, u64)> {
        let mut out = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = r.blocks(ooo, rcv_nxt, &mut out);
        out[..n].iter().map(|b| (b.start, b.end)).collect()
    }

    fn touch(r: &mut SackRecency, ooo: &mut Ranges, a: u64, b: u64, rcv_nxt: u64) {
        let ((start, end), new) = ooo.insert(a, b);
        r.touched(SackBlock { start, end }, new, ooo, rcv_nxt);
    }

    /// The newest range grows into a listed older one (its start unchanged) while enough
    /// ranges remain that no rebuild would repair a stale list: the absorbed block must go.
    #[test]
    fn a_newest_range_that_absorbed_a_listed_one_drops_it() {
        let (mut r, mut ooo) = (SackRecency::new(), Ranges::default());
        for (a, b) in [(70, 80), (90, 100), (30, 40), (10, 20)] {
            touch(&mut r, &mut ooo, a, b, 0);
        }
        assert_eq!(blocks(&mut r, &ooo, 0), vec![(10, 20), (30, 40), (90, 100)]);
        touch(&mut r, &mut ooo, 20, 30, 0);
        assert_eq!(blocks(&mut r, &ooo, 0), vec![(10, 40), (90, 100), (70, 80)]);
        // Grown by exactly its new bytes: the short path, the others kept.
        touch(&mut r, &mut ooo, 40, 45, 0);
        assert_eq!(blocks(&mut r, &ooo, 0), vec![(10, 45), (90, 100), (70, 80)]);
    }

    #[test]
    fn newest_first_and_rebuilt_after_merges() {
        let (mut r, mut ooo) = (SackRecency::new(), Ranges::default());
        for k in 0..6 {
            touch(&mut r, &mut ooo, 100 * k + 10, 100 * k + 20, 0);
        }
        assert_eq!(
            blocks(&mut r, &ooo, 0),
            vec![(510, 520), (410, 420), (310, 320)]
        );
        // Bridging 410..520 leaves two cached ranges: the third comes from the log.
        touch(&mut r, &mut ooo, 420, 510, 0);
        assert!(!r.complete);
        assert_eq!(
            blocks(&mut r, &ooo, 0),
            vec![(410, 520), (310, 320), (210, 220)]
        );
        // Touching an old range brings it to the front.
        touch(&mut r, &mut ooo, 20, 30, 0);
        assert_eq!(
            blocks(&mut r, &ooo, 0),
            vec![(10, 30), (410, 520), (310, 320)]
        );
        // The cumulative ACK passes 10..30 and 110..120.
        ooo.pop_starting_at_or_below(120, |_, _| {});
        r.absorbed(120, ooo.len());
        assert_eq!(
            blocks(&mut r, &ooo, 120),
            vec![(410, 520), (310, 320), (210, 220)]
        );
    }

    /// A report copies the whole cache: the blocks past the count must be default, after
    /// a merge that drops one, a cumulative ACK that passes some, and a rebuild.
    #[test]
    fn blocks_past_the_count_are_default() {
        let (mut r, mut ooo) = (SackRecency::new(), Ranges::default());
        let mut out = [SackBlock::default(); MAX_SACK_BLOCKS];
        let unused = |out: &[SackBlock; MAX_SACK_BLOCKS], n: usize| {
            out[n..].iter().all(|b| *b == SackBlock::default())
        };
        for (a, b) in [(10, 20), (30, 40), (50, 60)] {
            touch(&mut r, &mut ooo, a, b, 0);
        }
        // Bridging 20..50 leaves one range where there were three.
        touch(&mut r, &mut ooo, 20, 50, 0);
        let n = r.blocks(&ooo, 0, &mut out);
        assert_eq!((n, out[0]), (1, SackBlock { start: 10, end: 60 }));
        assert!(unused(&out, n));
        for (a, b) in [(70, 80), (90, 100)] {
            touch(&mut r, &mut ooo, a, b, 0);
        }
        // The cumulative ACK passes 10..60 and 70..80.
        ooo.pop_starting_at_or_below(80, |_, _| {});
        r.absorbed(80, ooo.len());
        out = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = r.blocks(&ooo, 80, &mut out);
        assert_eq!(
            (n, out[0]),
            (
                1,
                SackBlock {
                    start: 90,
                    end: 100
                }
            )
        );
        assert!(unused(&out, n));
    }

    #[test]
    fn log_stays_bounded_and_keeps_the_order() {
        let (mut r, mut ooo) = (SackRecency::new(), Ranges::default());
        for k in 0..10 {
            touch(&mut r, &mut ooo, 100 * k + 10, 100 * k + 20, 0);
        }
        // Touch old ranges again and again: the log compacts, the order stays right.
        for round in 0..200u64 {
            let k = (round * 7) % 10;
            touch(&mut r, &mut ooo, 100 * k + 20, 100 * k + 21 + round % 3, 0);
            assert!(r.log.len() < 2 * ooo.len() + 32);
            let b = blocks(&mut r, &ooo, 0);
            assert_eq!(b[0].0, 100 * k + 10, "the touched range first");
        }
    }
}
