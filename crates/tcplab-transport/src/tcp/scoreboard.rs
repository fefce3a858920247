//! The SACK scoreboard (RFC 6675 section 3) over the send records: which segments the
//! receiver holds, which are deemed lost, and the byte counts and pipe derived from them.
//! Every recovery mode keeps it (the receiver SACKs whatever the sender's recovery, and
//! go-back-N after a timeout skips SACKed segments); RFC 6675 recovery also uses IsLost,
//! SetPipe and NextSeg.
//!
//! Segment granularity: all segments but the last are full-sized, so "DupThresh
//! discontiguous SACKed segments above" and "more than (DupThresh − 1)·SMSS SACKed bytes
//! above" coincide; IsLost uses the segment count.
//!
//! Incremental: RFC 6675 states IsLost and SetPipe as walks over the whole scoreboard,
//! which cost O(window) once or twice per ACK in recovery. Here they are running
//! quantities with the same results. Every unSACKed segment below the DupThresh-th
//! highest SACKed segment IsLost; that boundary only rises (SACKs only add, and
//! cumulative ACKs remove segments from below), so each pass marks only the segments the
//! boundary passed since the last one, plus those resent since (a resend clears the mark;
//! IsLost holds again at the next pass). SetPipe = unSACKed bytes not marked lost + unSACKed
//! bytes below HighRxt, both kept as counts. NextSeg resumes from cursors that only move
//! back when a segment below them is marked lost or HighRxt moves back. Debug builds check
//! every pass and every NextSeg against the walks.

use crate::rate::RateSampler;
use crate::records::{FarTable, Records, SentRecord};
use crate::tcp::segment::{SackBlock, MAX_SACK_BLOCKS};
use tcplab_core::Time;

/// RFC 6675 state beyond the per-segment flags. `repr(C)`: what a cumulative ACK
/// without SACK blocks reads (the released segments' byte counts) and what every send
/// reads (`marked_to`) come first, then DupThresh and the previous ACK's block count, in
/// 40 bytes; then what an ACK with SACK blocks reads (the highest SACKed byte, the
/// previous ACK's blocks, the lost bytes) in 64; the rest, lists last.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Scoreboard {
    /// Bytes of outstanding segments the receiver SACKed.
    pub sacked_bytes: u64,
    /// HighRxt as a segment index (`high_rxt.div_ceil(mss)`).
    rxt_idx: u64,
    /// Bytes of unSACKed segments below `rxt_idx` (SetPipe's second term).
    below_rxt: u64,
    /// The IsLost passes have marked every unSACKed segment below this index. Read on
    /// every send (`on_resent`): in the first 32 bytes with the fields every ACK reads.
    marked_to: u64,
    /// DupThresh (`cfg.dupthresh`, which never changes): read on every duplicate ACK,
    /// so it comes next.
    dupthresh: u32,
    /// Blocks in `done` (at most [`MAX_SACK_BLOCKS`]).
    n_done: u32,
    // -- what an ACK with SACK blocks reads, in the next 64 bytes --
    /// End of the highest byte covered by any SACK block.
    pub high_sacked: u64,
    /// Blocks of the previous ACK, already fully marked. SACKed flags only ever get set,
    /// so only the parts of new blocks outside these need a walk: O(new) per ACK instead
    /// of O(block length), which dominated runs with long recoveries.
    done: [SackBlock; MAX_SACK_BLOCKS],
    /// Bytes of outstanding, unSACKed segments marked lost and not resent since.
    pub lost_bytes: u64,
    // -- the rest --
    /// RFC 6675 pipe, maintained during SACK recovery (SetPipe on each ACK, plus each
    /// segment sent since).
    pub pipe: u64,
    /// End of the highest segment retransmitted in this recovery (HighRxt, exclusive).
    high_rxt: u64,
    /// Every unSACKed segment below this index IsLost: the highest boundary seen.
    lost_below: u64,
    /// No unSACKed segment in [rxt_idx, lost_scan) is marked lost (NextSeg rule 1).
    lost_scan: u64,
    /// Every segment in [rxt_idx, sacked_run) is SACKed (NextSeg rule 3).
    sacked_run: u64,
    /// The DupThresh highest SACKed segments, ascending (the lowest is IsLost's boundary).
    top: Vec<u64>,
    /// Segments below `marked_to` resent since the last pass (to be marked again).
    resent: Vec<u64>,
    /// Bytes marked lost and not yet ACKed or SACKed, retransmitted or not (ns-3.48's
    /// `TcpTxBuffer::GetLost`: a retransmission keeps `m_lost`). Read for
    /// `loss_deduction = 2` only.
    pub lost_ns3: u64,
}

impl Scoreboard {
    /// Where what an ACK with SACK blocks reads starts: 64 bytes (tests).
    #[cfg(test)]
    pub(super) const SACK_PART: usize = std::mem::offset_of!(Scoreboard, high_sacked);

    /// The IsLost passes have marked every unSACKed segment below this index (never
    /// beyond the records' end).
    #[inline]
    pub fn marked_to(&self) -> u64 {
        self.marked_to
    }

    /// DupThresh, as configured.
    #[inline]
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    pub fn new(dupthresh: u32) -> Scoreboard {
        Scoreboard {
            sacked_bytes: 0,
            lost_bytes: 0,
            pipe: 0,
            high_rxt: 0,
            high_sacked: 0,
            done: [SackBlock::default(); MAX_SACK_BLOCKS],
            n_done: 0,
            dupthresh,
            top: Vec::with_capacity(dupthresh as usize),
            lost_below: 0,
            marked_to: 0,
            resent: Vec::new(),
            rxt_idx: 0,
            below_rxt: 0,
            lost_scan: 0,
            sacked_run: 0,
            lost_ns3: 0,
        }
    }

    /// HighRxt (RFC 6675 section 3).
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    /// Sets HighRxt to `seq` (the end of a retransmitted segment, or snd_una when a
    /// recovery or a timeout starts).
    pub fn set_high_rxt(&mut self, recs: &Records, seq: u64, mss: u32) {
        let (old, new) = (self.rxt_idx, seq.div_ceil(mss as u64));
        let (base, end) = (recs.base(), recs.end());
        if new > old {
            for (_, r) in recs.iter_from(old.max(base)).take_while(|(i, _)| *i < new) {
                if !r.sacked() {
                    self.below_rxt += r.len as u64;
                }
            }
            self.lost_scan = self.lost_scan.max(new);
            self.sacked_run = self.sacked_run.max(new);
        } else if new < old {
            for (_, r) in recs.iter_from(new.max(base)).take_while(|(i, _)| *i < old) {
                if !r.sacked() {
                    self.below_rxt -= r.len as u64;
                }
            }
            self.lost_scan = new;
            self.sacked_run = new;
        }
        debug_assert!(new <= end.max(base), "HighRxt beyond what was sent");
        self.rxt_idx = new;
        self.high_rxt = seq;
    }

    /// Marks segments wholly covered by `blocks` as SACKed; returns bytes newly SACKed.
    /// Newly SACKed segments count as delivered for rate sampling, and each is passed to
    /// `on_sacked` (index, record). (Tests' form of [`update_blocks`](Self::update_blocks).)
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        recs: &mut Records,
        far: &FarTable,
        blocks: &[SackBlock],
        mss: u32,
        now: Time,
        rate: Option<&mut RateSampler>,
        on_sacked: impl FnMut(u64, &SentRecord),
    ) -> u64 {
        let mut all = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = blocks.len().min(MAX_SACK_BLOCKS);
        all[..n].copy_from_slice(&blocks[..n]);
        self.update_blocks(recs, far, &all, n, mss, now, rate, on_sacked)
    }

    /// [`update`](Self::update) with a segment's SACK blocks as they travel: the array and
    /// the count of valid ones (`blocks[..n]`). The whole array is kept as the previous
    /// ACK's blocks: a fixed-size copy is three moves, a slice copy of variable length a
    /// call to `memcpy`.
    // The sender's fields, borrowed apart so the callbacks can use the others.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn update_blocks(
        &mut self,
        recs: &mut Records,
        far: &FarTable,
        blocks: &[SackBlock; MAX_SACK_BLOCKS],
        n: usize,
        mss: u32,
        now: Time,
        rate: Option<&mut RateSampler>,
        mut on_sacked: impl FnMut(u64, &SentRecord),
    ) -> u64 {
        let mut w = Walker {
            recs,
            far,
            mss: mss as u64,
            now,
            rate,
        };
        let Some(ps) = self.grown_first(blocks, n) else {
            return self.update_each(&mut w, blocks, n, on_sacked);
        };
        // What `update_each` does with such an ACK: the other blocks lie inside the old
        // ones (skipped; `high_sacked` only grows, and took their ends with them) and the
        // first has one new part, its growth, which ends where the block does.
        let b = blocks[0];
        self.high_sacked = self.high_sacked.max(b.end);
        let mss = w.mss;
        // `part_segments` for the part (ps, b.end) with one division fewer: the part
        // starts above the block's start (ps is the old first block's end), so the first
        // whole segment is ps's own if that starts inside the block, else the next.
        let q = ps / mss;
        let first = if q * mss >= b.start { q } else { q + 1 };
        let newly = self.walk(&mut w, (first, b.end.div_ceil(mss)), &b, &mut on_sacked);
        self.done = *blocks;
        self.sacked_bytes += newly;
        newly
    }

    /// The common duplicate ACK in a recovery: the first block is the previous ACK's
    /// first block grown at its end (the receiver reports the range that grew first) and
    /// the others repeat the previous ACK's, and the first meets no other old block.
    /// Returns where the new part starts (it ends with the block), the one part
    /// `update_each` would find; `None` for any other ACK.
    #[inline]
    fn grown_first(&self, blocks: &[SackBlock; MAX_SACK_BLOCKS], n: usize) -> Option<u64> {
        let (b, d) = (blocks[0], self.done[0]);
        if n == 0
            || n != self.n_done as usize
            || b.start != d.start
            || b.end <= d.end
            || d.end <= d.start
            || blocks[1..] != self.done[1..]
        {
            return None;
        }
        let others = &self.done[1..n];
        if others.iter().any(|o| o.end > b.start && o.start < b.end) {
            return None;
        }
        Some(d.end)
    }

    /// [`update_blocks`](Self::update_blocks) for any ACK: each block not inside one of
    /// the previous ACK's is split against them and its new parts walked.
    #[inline(never)]
    fn update_each(
        &mut self,
        w: &mut Walker,
        blocks: &[SackBlock; MAX_SACK_BLOCKS],
        n: usize,
        mut on_sacked: impl FnMut(u64, &SentRecord),
    ) -> u64 {
        let mut newly = 0;
        let n = n.min(MAX_SACK_BLOCKS);
        for b in &blocks[..n] {
            self.high_sacked = self.high_sacked.max(b.end);
            // Most blocks repeat one of the previous ACK's (the receiver reports up to
            // three, and usually only the first has grown): nothing to split or walk.
            let done = &self.done[..self.n_done as usize];
            if done.iter().any(|d| d.start <= b.start && b.end <= d.end) {
                continue;
            }
            let (pieces, np) = self.new_parts(b);
            for &part in &pieces[..np] {
                let Some(range) = part_segments(part, b, w.mss) else {
                    continue;
                };
                newly += self.walk(w, range, b, &mut on_sacked);
            }
        }
        self.n_done = n as u32;
        self.done = *blocks;
        self.sacked_bytes += newly;
        newly
    }

    /// Marks the whole segments of block `b` in `first..stop` (the segments of one of
    /// its parts, [`part_segments`]) not SACKed before; returns their bytes.
    #[inline(always)]
    fn walk(
        &mut self,
        w: &mut Walker,
        (first, stop): (u64, u64),
        b: &SackBlock,
        on_sacked: &mut impl FnMut(u64, &SentRecord),
    ) -> u64 {
        let mut idx = first.max(w.recs.base());
        if idx >= w.recs.end() || idx >= stop {
            return 0;
        }
        // The first segment before the loop: a grown block usually adds one, and the
        // loop's set-up (the rate sampler's fields held in registers across it, stored
        // back after) cost more than that segment's own work.
        let Some(mut newly) = self.walk_one(w, idx, b, on_sacked) else {
            return 0;
        };
        idx += 1;
        while idx < w.recs.end() && idx < stop {
            let Some(n) = self.walk_one(w, idx, b, on_sacked) else {
                break;
            };
            newly += n;
            idx += 1;
        }
        newly
    }

    /// One segment of [`walk`](Self::walk): `None` if it reaches beyond the block (the
    /// walk stops), else the bytes it newly SACKs.
    #[inline(always)]
    fn walk_one(
        &mut self,
        w: &mut Walker,
        idx: u64,
        b: &SackBlock,
        on_sacked: &mut impl FnMut(u64, &SentRecord),
    ) -> Option<u64> {
        let seq = idx * w.mss;
        let rec = w.recs.get_mut(idx).expect("index within records");
        if seq + rec.len as u64 > b.end {
            return None;
        }
        if rec.sacked() {
            return Some(0);
        }
        self.mark_sacked(idx, rec, w.far, w.now, w.rate.as_deref_mut());
        on_sacked(idx, rec);
        Some(rec.len as u64)
    }

    /// The parts of `b` not inside one of the previous ACK's blocks (at most 4 pieces, in
    /// the order the segment walk takes them: the order decides which segment a rate
    /// sample comes from when several were sent at the same instant).
    fn new_parts(&self, b: &SackBlock) -> Parts {
        let mut pieces = [(0u64, 0u64); MAX_SACK_BLOCKS + 1];
        let done = &self.done[..self.n_done as usize];
        let overlaps = |d: &SackBlock| d.end > b.start && d.start < b.end;
        let mut hit = done.iter().filter(|d| overlaps(d));
        match (hit.next(), hit.next()) {
            // Usually the block that grew overlaps one old block (or is new): what the
            // general split below gives, without its loops.
            (None, _) => {
                pieces[0] = (b.start, b.end);
                (pieces, 1)
            }
            (Some(d), None) => {
                pieces[0] = (b.start, b.start.max(d.start.min(b.end)));
                pieces[1] = (d.end, b.end);
                (pieces, 1 + usize::from(d.end < b.end))
            }
            _ => split(b, done),
        }
    }

    /// Segment `idx` is newly SACKed: the counters leave it, and it is delivered for rate
    /// sampling unless already counted. Inline: it was kept out of line while every SACK
    /// ACK took the general path (whose registers it crowded); the common ACK now takes
    /// `update_blocks`' short path, which marks one segment.
    #[inline(always)]
    fn mark_sacked(
        &mut self,
        idx: u64,
        rec: &mut SentRecord,
        far: &FarTable,
        now: Time,
        rate: Option<&mut RateSampler>,
    ) {
        if rec.was_lost() {
            self.lost_ns3 = self.lost_ns3.saturating_sub(rec.len as u64);
        }
        if rec.lost() {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
        if idx < self.rxt_idx {
            self.below_rxt -= rec.len as u64;
        }
        self.note_sacked(idx);
        rec.set_sacked(true);
        rec.set_lost(false);
        if !rec.counted() {
            rec.set_counted(true);
            if let Some(rate) = rate {
                rate.on_delivered(now, rec, far);
            }
        }
    }

    /// Keeps `top` the DupThresh highest SACKed segments. The usual case inline: with
    /// DupThresh 3 and the list full, a segment above the highest (SACKs mostly arrive in
    /// ascending order) shifts the lowest out and goes last (what the general case below
    /// does then); out of line it cost a call per newly SACKed segment.
    #[inline(always)]
    fn note_sacked(&mut self, idx: u64) {
        if let [a, b, c] = &mut self.top[..] {
            if self.dupthresh == 3 && *c < idx {
                (*a, *b, *c) = (*b, *c, idx);
                return;
            }
        }
        self.note_sacked_other(idx);
    }

    #[inline(never)]
    fn note_sacked_other(&mut self, idx: u64) {
        let k = self.dupthresh as usize;
        if k == 0 || (self.top.len() == k && idx < self.top[0]) {
            return;
        }
        if self.top.len() == k {
            if self.top[k - 1] < idx {
                // SACKs mostly arrive in ascending order: the lowest leaves and the newest
                // goes last, shifted in place (k is DupThresh, small), not by
                // `remove(0)`'s call to memmove and a push.
                let top = &mut self.top[..k];
                match top {
                    // DupThresh 3 (the default and nearly every scenario) as two moves: the
                    // loop below becomes a call to `memmove`.
                    [a, b, c] => (*a, *b, *c) = (*b, *c, idx),
                    _ => {
                        for i in 1..k {
                            top[i - 1] = top[i];
                        }
                        top[k - 1] = idx;
                    }
                }
                return;
            }
            self.top.remove(0);
        }
        // SACKs mostly arrive in ascending order: the newest goes last.
        if self.top.last().is_none_or(|&t| t < idx) {
            self.top.push(idx);
            return;
        }
        let at = self.top.partition_point(|&t| t < idx);
        self.top.insert(at, idx);
    }

    /// Cumulatively acknowledged segment `idx` leaves the scoreboard (in index order).
    pub fn on_released(&mut self, idx: u64, rec: &SentRecord) {
        if rec.sacked() {
            self.sacked_bytes = self.sacked_bytes.saturating_sub(rec.len as u64);
            // Released from below: a released SACKed segment is the lowest of `top`.
            if self.top.first() == Some(&idx) {
                self.top.remove(0);
            }
        } else if idx < self.rxt_idx {
            self.below_rxt -= rec.len as u64;
        }
        if rec.was_lost() && !rec.sacked() {
            self.lost_ns3 = self.lost_ns3.saturating_sub(rec.len as u64);
        }
        if rec.lost() {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
    }

    /// Segment `idx` is being (re)sent: it is no longer awaiting retransmission. `base`:
    /// the lowest outstanding segment.
    pub fn on_resent(&mut self, idx: u64, rec: &mut SentRecord, base: u64) {
        if rec.lost() {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
        rec.set_lost(false);
        if idx < self.marked_to {
            if self.resent.len() == self.resent.capacity() {
                self.resent.retain(|&i| i >= base);
            }
            self.resent.push(idx);
        }
    }

    /// Marks segment `idx` lost (if it is neither SACKed nor marked already).
    pub fn mark_lost(&mut self, idx: u64, rec: &mut SentRecord) {
        if !rec.lost() && !rec.sacked() {
            rec.set_lost(true);
            self.lost_bytes += rec.len as u64;
            self.lost_ns3 += rec.len as u64;
            self.lost_scan = self.lost_scan.min(idx);
        }
    }

    /// Presumes every segment not SACKed lost (after a timeout).
    pub fn mark_all_lost(&mut self, recs: &mut Records) {
        let mut lost = 0;
        for (_, r) in recs.iter_mut() {
            if !r.sacked() {
                r.set_lost(true);
                lost += r.len as u64;
            }
        }
        self.lost_bytes = lost;
        self.lost_ns3 = lost;
        self.lost_scan = 0;
    }

    /// Undoes [`mark_all_lost`](Self::mark_all_lost) after a spurious timeout: segments
    /// at or above IsLost's boundary are no longer presumed lost (those below it stay
    /// lost, as RFC 6675's IsLost has it). Out of line: only a spurious timeout's undo
    /// calls it, and inlined into the ACK's path its loop cost B1 1.5 % more
    /// instructions there (register pressure in `Sender::handle_segment`).
    #[cold]
    #[inline(never)]
    pub fn unmark_presumed_lost(&mut self, recs: &mut Records) {
        let from = self.lost_below.max(recs.base());
        for (_, r) in recs.iter_mut().filter(|(i, _)| *i >= from) {
            if r.lost() {
                r.set_lost(false);
                self.lost_bytes -= r.len as u64;
            }
        }
    }

    /// Bytes of `flight` (outstanding) neither SACKed nor marked lost.
    pub fn unsacked_unlost(&self, flight: u64) -> u64 {
        flight.saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// The counters match the records (debug builds, and the unit tests in any profile).
    #[cfg(any(debug_assertions, test))]
    pub fn check(&self, recs: &mut Records) {
        let (mut sacked, mut lost) = (0, 0);
        for (_, r) in recs.iter_mut() {
            if r.sacked() {
                sacked += r.len as u64;
            } else if r.lost() {
                lost += r.len as u64;
            }
        }
        debug_assert_eq!(sacked, self.sacked_bytes, "SACKed bytes");
        debug_assert_eq!(lost, self.lost_bytes, "lost bytes");
    }

    /// Marks lost segments (IsLost) and returns the pipe estimate in bytes (SetPipe);
    /// `flight`: the bytes outstanding (the records' lengths).
    pub fn mark_lost_and_pipe(&mut self, recs: &mut Records, mss: u32, flight: u64) -> u64 {
        let (base, end) = (recs.base(), recs.end());
        let k = self.dupthresh as usize;
        let boundary = if k == 0 {
            self.high_sacked.div_ceil(mss as u64)
        } else if self.top.len() == k {
            self.top[0]
        } else {
            0
        };
        self.lost_below = self.lost_below.max(boundary);
        let below = self.lost_below;
        let mut resent = std::mem::take(&mut self.resent);
        for &idx in &resent {
            if idx >= base && idx < below {
                self.mark_idx(recs, idx);
            }
        }
        resent.clear();
        self.resent = resent;
        for idx in self.marked_to.max(base)..below.min(end) {
            self.mark_idx(recs, idx);
        }
        self.marked_to = self.marked_to.max(below);
        let pipe = self.unsacked_unlost(flight) + self.below_rxt;
        #[cfg(debug_assertions)]
        self.check_pass(recs, mss, pipe);
        pipe
    }

    fn mark_idx(&mut self, recs: &mut Records, idx: u64) {
        if let Some(rec) = recs.get_mut(idx) {
            self.mark_lost(idx, rec);
        }
    }

    /// The pass left what RFC 6675's walk leaves: nothing more to mark, the same pipe.
    #[cfg(debug_assertions)]
    fn check_pass(&self, recs: &Records, mss: u32, pipe: u64) {
        let mss = mss as u64;
        let (mut sacked_above, mut walk, mut below) = (0u32, 0u64, 0u64);
        for (idx, rec) in recs.iter_from(recs.base()).rev() {
            if rec.sacked() {
                sacked_above = sacked_above.saturating_add(1);
                continue;
            }
            let seq = idx * mss;
            let is_lost = sacked_above >= self.dupthresh && seq < self.high_sacked;
            debug_assert!(rec.lost() || !is_lost, "IsLost({idx}) not marked");
            if !rec.lost() {
                walk += rec.len as u64;
            }
            if seq < self.high_rxt {
                walk += rec.len as u64;
                below += rec.len as u64;
            }
        }
        debug_assert_eq!(below, self.below_rxt, "unSACKed bytes below HighRxt");
        debug_assert_eq!(walk, pipe, "SetPipe");
    }

    /// NextSeg(): the next segment to retransmit (rules 1 and 3), given whether new data
    /// may be sent (rule 2 takes precedence over rule 3). Returns a segment index.
    pub fn next_retransmission(
        &mut self,
        recs: &Records,
        mss: u32,
        new_data_ok: bool,
    ) -> Option<u64> {
        let (base, end) = (recs.base(), recs.end());
        let stop = self.high_sacked.div_ceil(mss as u64).min(end);
        let mut idx = self.rxt_idx.max(self.lost_scan).max(base);
        let mut found = None;
        while idx < stop {
            let r = recs.get(idx).expect("index within records");
            if !r.sacked() && r.lost() {
                found = Some(idx);
                break;
            }
            idx += 1;
        }
        self.lost_scan = self.lost_scan.max(idx);
        let next = if found.is_some() || new_data_ok {
            found
        } else {
            // Every unSACKed segment in [HighRxt, stop) is not lost: rule 3 takes the first.
            let mut j = self.rxt_idx.max(self.sacked_run).max(base);
            while j < stop && recs.get(j).is_some_and(|r| r.sacked()) {
                j += 1;
            }
            self.sacked_run = self.sacked_run.max(j);
            (j < stop).then_some(j)
        };
        debug_assert_eq!(next, self.next_by_walk(recs, mss, new_data_ok), "NextSeg");
        next
    }

    /// NextSeg as RFC 6675 states it: a walk up from HighRxt (checks the cursors in debug
    /// builds).
    fn next_by_walk(&self, recs: &Records, mss: u32, new_data_ok: bool) -> Option<u64> {
        let mss = mss as u64;
        let mut rule3 = None;
        for (idx, rec) in recs.iter_from(self.high_rxt.div_ceil(mss)) {
            if idx * mss >= self.high_sacked {
                break;
            }
            if rec.sacked() {
                continue;
            }
            if rec.lost() {
                return Some(idx);
            }
            rule3 = rule3.or(Some(idx));
        }
        if new_data_ok {
            None
        } else {
            rule3
        }
    }
}

/// Parts of a SACK block: each old block splits at most one part in two (the one holding
/// its end), so three old blocks leave at most four.
type Parts = ([(u64, u64); MAX_SACK_BLOCKS + 1], usize);

/// The segments `first..stop` the walk takes for part `(ps, pe)` of block `b`: whole
/// segments only, widened to segment boundaries and clamped to the block; `None` for an
/// empty part.
#[inline(always)]
fn part_segments((ps, pe): (u64, u64), b: &SackBlock, mss: u64) -> Option<(u64, u64)> {
    if pe <= ps {
        return None;
    }
    Some(((ps / mss).max(b.start.div_ceil(mss)), pe.div_ceil(mss)))
}

/// The parts of `b` outside every block of `done`, by splitting `b` at each in turn.
fn split(b: &SackBlock, done: &[SackBlock]) -> Parts {
    let mut pieces = [(0u64, 0u64); MAX_SACK_BLOCKS + 1];
    pieces[0] = (b.start, b.end);
    let mut n = 1;
    for d in done {
        let mut k = 0;
        while k < n {
            let (s0, e0) = pieces[k];
            if d.end <= s0 || d.start >= e0 {
                k += 1;
                continue;
            }
            // Replace (s0, e0) by what lies outside d.
            pieces[k] = (s0, s0.max(d.start.min(e0)));
            if d.end < e0 && n < pieces.len() {
                pieces[n] = (d.end, e0);
                n += 1;
            }
            k += 1;
        }
    }
    (pieces, n)
}

/// What a SACK walk marks and reads: the sender's records and far table, its MSS, the
/// time and the rate sampler (the sender's fields, borrowed apart so the callbacks can
/// use the others).
struct Walker<'a> {
    recs: &'a mut Records,
    far: &'a FarTable,
    mss: u64,
    now: Time,
    /// `None` without a rate sampler (whose line is then not read).
    rate: Option<&'a mut RateSampler>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every ACK and send reads comes first, in 32 bytes, then DupThresh and the
    /// block count; what an ACK with SACK blocks reads fills the next 64 bytes.
    #[test]
    fn the_per_ack_and_per_send_fields_come_first() {
        use std::mem::offset_of;
        for off in [
            offset_of!(Scoreboard, sacked_bytes),
            offset_of!(Scoreboard, rxt_idx),
            offset_of!(Scoreboard, below_rxt),
            offset_of!(Scoreboard, marked_to),
        ] {
            assert!(off + 8 <= 32, "{off}");
        }
        assert_eq!(offset_of!(Scoreboard, dupthresh), 32);
        assert_eq!(offset_of!(Scoreboard, n_done), 36);
        assert_eq!(Scoreboard::SACK_PART, 40);
        assert_eq!(offset_of!(Scoreboard, done), 48);
        assert_eq!(offset_of!(Scoreboard, lost_bytes), 96);
    }

    fn records(n: u64) -> Records {
        let mut recs = Records::default();
        for i in 0..n {
            recs.push(i, SentRecord::new(1000, Time::ZERO));
        }
        recs
    }

    fn blocks(b: &[(u64, u64)]) -> Vec<SackBlock> {
        b.iter()
            .map(|&(start, end)| SackBlock { start, end })
            .collect()
    }

    /// Only whole segments inside a block are SACKed, each once however often the block
    /// is repeated or extended, and each counts once as delivered.
    #[test]
    fn update_marks_whole_segments_once() {
        let mut recs = records(10);
        let mut sb = Scoreboard::new(3);
        let mut rate = RateSampler::default();
        let mut seen = vec![];
        let n = sb.update(
            &mut recs,
            &FarTable::default(),
            &blocks(&[(1500, 4000)]),
            1000,
            Time(1),
            Some(&mut rate),
            |i, _| seen.push(i),
        );
        assert_eq!((n, sb.sacked_bytes, sb.high_sacked), (2000, 2000, 4000));
        let n = sb.update(
            &mut recs,
            &FarTable::default(),
            &blocks(&[(1000, 6000)]),
            1000,
            Time(2),
            Some(&mut rate),
            |i, _| seen.push(i),
        );
        assert_eq!(n, 3000, "segment 1 now whole, 4 and 5 new");
        assert_eq!(seen, vec![2, 3, 1, 4, 5]);
        assert_eq!(rate.delivered, 5000);
        sb.on_released(1, recs.get(1).unwrap());
        assert_eq!(sb.sacked_bytes, 4000);
    }

    /// The shortcut for a block meeting at most one old block gives the general split's
    /// parts in the same order (the order of the segment walk), for random disjoint old
    /// blocks and any new block.
    #[test]
    fn new_parts_match_the_general_split() {
        let mut rng = tcplab_core::Rng::named(7, "new_parts");
        let mut shortcut = 0;
        for _ in 0..20_000 {
            let mut sb = Scoreboard::new(3);
            let mut at = rng.next_u64() % 4;
            for d in sb.done.iter_mut().take(1 + (rng.next_u64() % 3) as usize) {
                let start = at + rng.next_u64() % 4;
                *d = SackBlock {
                    start,
                    end: start + 1 + rng.next_u64() % 4,
                };
                at = d.end + 1;
                sb.n_done += 1;
            }
            // Old blocks come in recency order, not address order.
            if rng.next_u64() % 2 == 0 {
                sb.done[..sb.n_done as usize].reverse();
            }
            let start = rng.next_u64() % 20;
            let b = SackBlock {
                start,
                end: start + 1 + rng.next_u64() % 12,
            };
            let done = &sb.done[..sb.n_done as usize];
            let hits = done.iter().filter(|d| d.end > b.start && d.start < b.end);
            shortcut += usize::from(hits.count() <= 1);
            let (got, n) = sb.new_parts(&b);
            let (want, m) = split(&b, done);
            assert_eq!(got[..n], want[..m], "{b:?} against {done:?}");
        }
        assert!(
            shortcut > 5_000 && shortcut < 19_000,
            "both paths taken: {shortcut}"
        );
    }

    /// The shortcut for an ACK whose first block grew at its end (the others repeated)
    /// leaves what the general path leaves: the same bytes, the same segments delivered in
    /// the same order, the same scoreboard, records and rate sampler. Random ACKs grow,
    /// repeat, reorder and replace the previous ACK's blocks, with ends inside segments.
    #[test]
    fn a_grown_first_block_is_taken_as_the_general_path_takes_it() {
        let mut rng = tcplab_core::Rng::named(11, "grown_first");
        let mss = 1000u64;
        let mut recs = records(400);
        let mut sb = Scoreboard::new(3);
        let mut rate = RateSampler::default();
        let far = FarTable::default();
        let mut prev = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n_prev = 0usize;
        let mut shortcut = 0;
        let r = |rng: &mut tcplab_core::Rng, m: u64| rng.next_u64() % m;
        for step in 0..20_000u64 {
            let mut blocks = prev;
            let mut n = n_prev;
            match r(&mut rng, 8) {
                0 => {
                    // A fresh set of up to three blocks anywhere.
                    n = r(&mut rng, 4) as usize;
                    for b in blocks.iter_mut().take(n) {
                        let start = r(&mut rng, 380_000);
                        *b = SackBlock {
                            start,
                            end: start + 1 + r(&mut rng, 8000),
                        };
                    }
                }
                1 if n > 1 => blocks[..n].rotate_left(1),
                2 if n > 0 => blocks[r(&mut rng, n as u64) as usize].end += r(&mut rng, 3000),
                3 if n > 0 => blocks[0].start = blocks[0].start.saturating_sub(r(&mut rng, 2000)),
                4 if n < MAX_SACK_BLOCKS => {
                    blocks.copy_within(0..n, 1);
                    let start = r(&mut rng, 380_000);
                    blocks[0] = SackBlock {
                        start,
                        end: start + 1 + r(&mut rng, 5000),
                    };
                    n += 1;
                }
                _ if n > 0 => blocks[0].end += [0, 1, 500, 1000, 2000][r(&mut rng, 5) as usize],
                _ => {}
            }
            for b in blocks.iter_mut() {
                b.end = b.end.min(400 * mss);
                b.start = b.start.min(b.end);
            }
            shortcut += usize::from(sb.grown_first(&blocks, n).is_some());
            let (mut recs2, mut sb2, mut rate2) = (recs.clone(), sb.clone(), rate.clone());
            let (mut seen, mut seen2) = (vec![], vec![]);
            let now = Time(step);
            let got = sb.update_blocks(
                &mut recs,
                &far,
                &blocks,
                n,
                1000,
                now,
                Some(&mut rate),
                |i, _| seen.push(i),
            );
            let mut w = Walker {
                recs: &mut recs2,
                far: &far,
                mss: 1000,
                now,
                rate: Some(&mut rate2),
            };
            let want = sb2.update_each(&mut w, &blocks, n, |i, _| seen2.push(i));
            assert_eq!((got, &seen), (want, &seen2), "{blocks:?} after {prev:?}");
            assert_eq!(format!("{sb:?}"), format!("{sb2:?}"));
            assert_eq!(format!("{recs:?}"), format!("{recs2:?}"));
            assert_eq!(format!("{rate:?}"), format!("{rate2:?}"));
            (prev, n_prev) = (blocks, n.min(MAX_SACK_BLOCKS));
            if step % 500 == 499 {
                // Start over with nothing SACKed.
                (recs, sb) = (records(400), Scoreboard::new(3));
            }
        }
        assert!(
            shortcut > 4_000 && shortcut < 16_000,
            "both paths taken: {shortcut}"
        );
    }

    /// RFC 6675 IsLost: DupThresh SACKed segments above; SetPipe counts segments neither
    /// SACKed nor lost once and those below HighRxt once more. Lost bytes are counted as
    /// they are marked and leave the count when the segment is resent or SACKed.
    #[test]
    fn islost_setpipe_and_lost_bytes() {
        let mut recs = records(8);
        let mut sb = Scoreboard::new(3);
        let mut rate = RateSampler::default();
        // SACKed: 2, 4, 5, 6. Segment 0, 1 have 4 SACKed above, 3 has 3: lost. 7: not.
        sb.update(
            &mut recs,
            &FarTable::default(),
            &blocks(&[(4000, 7000), (2000, 3000)]),
            1000,
            Time(1),
            Some(&mut rate),
            |_, _| {},
        );
        assert_eq!(sb.mark_lost_and_pipe(&mut recs, 1000, 8000), 1000, "only 7");
        assert_eq!(sb.lost_bytes, 3000);
        sb.set_high_rxt(&recs, 1000, 1000);
        sb.on_resent(0, recs.get_mut(0).unwrap(), 0);
        assert_eq!(sb.lost_bytes, 2000);
        // 0 is IsLost again (marked anew) but counts once as retransmitted below HighRxt.
        assert_eq!(sb.mark_lost_and_pipe(&mut recs, 1000, 8000), 2000);
        assert_eq!(sb.next_retransmission(&recs, 1000, true), Some(1), "rule 1");
        assert_eq!(
            sb.unsacked_unlost(8000),
            1000,
            "8000 - 4000 SACKed - 3000 lost"
        );
        sb.check(&mut recs);
    }

    /// The running IsLost marks, SetPipe and NextSeg cursors give what RFC 6675's walks
    /// give (debug builds compare every pass and every NextSeg with the walks) through a
    /// long random sequence of SACKs, resends, cumulative ACKs, HighRxt moves and new
    /// segments, for several DupThresh values.
    #[test]
    fn running_quantities_match_the_walks() {
        for dupthresh in [0, 1, 3, 7] {
            let mut rng = tcplab_core::Rng::named(dupthresh as u64, "scoreboard");
            let mss = 1000u64;
            let mut recs = records(40);
            let mut sb = Scoreboard::new(dupthresh);
            let mut rate = RateSampler::default();
            for step in 0..3000 {
                let (base, end) = (recs.base(), recs.end());
                match rng.next_u64() % 6 {
                    0 | 1 if end > base => {
                        let a = base + rng.next_u64() % (end - base);
                        let b = (a + 1 + rng.next_u64() % 5).min(end);
                        let bl = blocks(&[(a * mss, b * mss)]);
                        sb.update(
                            &mut recs,
                            &FarTable::default(),
                            &bl,
                            1000,
                            Time(step),
                            Some(&mut rate),
                            |_, _| {},
                        );
                    }
                    2 if end > base => {
                        let i = base + rng.next_u64() % (end - base);
                        let rec = recs.get_mut(i).unwrap();
                        sb.on_resent(i, rec, base);
                        rec.tx_count = rec.tx_count.saturating_add(1);
                    }
                    3 if end > base && rng.next_u64() % 4 == 0 => {
                        let to = base + rng.next_u64() % (end - base).min(4);
                        recs.release_below(to, &mut FarTable::default(), |i, r, _| {
                            sb.on_released(i, r)
                        });
                    }
                    4 if end > base => {
                        let h = sb.high_rxt().max(base * mss) + mss * (rng.next_u64() % 3);
                        let h = if rng.next_u64() % 10 == 0 {
                            base * mss
                        } else {
                            h
                        };
                        sb.set_high_rxt(&recs, h.min(end * mss), 1000);
                    }
                    _ => {
                        recs.push(end, SentRecord::new(1000, Time::ZERO));
                    }
                }
                let flight = (recs.end() - recs.base()) * mss;
                sb.mark_lost_and_pipe(&mut recs, 1000, flight);
                sb.next_retransmission(&recs, 1000, step % 2 == 0);
                sb.check(&mut recs);
            }
        }
    }
}
