//! SACK scoreboard operations of RFC 6675 over the send records.
//!
//! Segment granularity: all segments but the last are full-sized, so "DupThresh
//! discontiguous SACKed segments above" and "more than (DupThresh − 1)·SMSS SACKed bytes
//! above" coincide; IsLost uses the segment count.

use crate::rate::RateSampler;
use crate::records::{Records, SentRecord};
use crate::tcp::segment::{SackBlock, MAX_SACK_BLOCKS};
use tcplab_core::Time;

/// RFC 6675 state beyond the per-segment flags.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// End of the highest segment retransmitted in this recovery (HighRxt, exclusive).
    pub high_rxt: u64,
    /// End of the highest byte covered by any SACK block.
    pub high_sacked: u64,
    /// Blocks of the previous ACK, already fully marked. SACKed flags only ever get set,
    /// so only the parts of new blocks outside these need a walk: O(new) per ACK instead
    /// of O(block length), which dominated runs with long recoveries.
    done: [SackBlock; MAX_SACK_BLOCKS],
    n_done: usize,
}

impl Scoreboard {
    /// Marks segments wholly covered by `blocks` as SACKed; returns bytes newly SACKed.
    /// Newly SACKed segments count as delivered for rate sampling, and each is passed to
    /// `on_sacked` (index, record, whether it was marked lost).
    pub fn update(
        &mut self,
        recs: &mut Records,
        blocks: &[SackBlock],
        mss: u32,
        now: Time,
        rate: &mut RateSampler,
        mut on_sacked: impl FnMut(u64, &SentRecord, bool),
    ) -> u64 {
        let mut newly = 0;
        let mss = mss as u64;
        for b in blocks {
            self.high_sacked = self.high_sacked.max(b.end);
            // The parts of `b` not inside an already-marked block (at most 4 pieces).
            let mut pieces = [(0u64, 0u64); 2 * MAX_SACK_BLOCKS + 1];
            pieces[0] = (b.start, b.end);
            let mut n = 1;
            for d in &self.done[..self.n_done] {
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
            for &(ps, pe) in &pieces[..n] {
                if pe <= ps {
                    continue;
                }
                // Whole segments only: widen to segment boundaries, clamp to the block.
                let first = (ps / mss).max(b.start.div_ceil(mss));
                let mut idx = first.max(recs.base());
                let stop = pe.div_ceil(mss);
                while idx < recs.end() && idx < stop {
                    let seq = idx * mss;
                    let rec = recs.get_mut(idx).expect("index within records");
                    if seq + rec.len as u64 > b.end {
                        break;
                    }
                    if !rec.sacked {
                        let was_lost = rec.lost;
                        rec.sacked = true;
                        rec.lost = false;
                        on_sacked(idx, rec, was_lost);
                        newly += rec.len as u64;
                        if !rec.counted {
                            rec.counted = true;
                            rate.on_delivered(now, rec);
                        }
                    }
                    idx += 1;
                }
            }
        }
        self.n_done = blocks.len().min(MAX_SACK_BLOCKS);
        self.done[..self.n_done].copy_from_slice(&blocks[..self.n_done]);
        newly
    }

    /// Marks lost segments (IsLost), adding the bytes newly marked to `lost_bytes`, and
    /// returns the pipe estimate in bytes (SetPipe).
    pub fn mark_lost_and_pipe(
        &self,
        recs: &mut Records,
        dupthresh: u32,
        mss: u32,
        lost_bytes: &mut u64,
    ) -> u64 {
        let mut sacked_above = 0u32;
        let mut pipe = 0u64;
        let mss = mss as u64;
        for (idx, rec) in recs.iter_mut().rev() {
            if rec.sacked {
                sacked_above = sacked_above.saturating_add(1);
                continue;
            }
            if rec.tx_count == 0 {
                continue; // not sent yet (after go-back-N)
            }
            let seq = idx * mss;
            if sacked_above >= dupthresh && seq < self.high_sacked && !rec.lost {
                rec.lost = true;
                *lost_bytes += rec.len as u64;
            }
            if !rec.lost {
                pipe += rec.len as u64;
            }
            if seq < self.high_rxt {
                pipe += rec.len as u64;
            }
        }
        pipe
    }

    /// NextSeg(): the next segment to retransmit (rules 1 and 3), given whether new data
    /// may be sent (rule 2 takes precedence over rule 3). Returns a segment index.
    pub fn next_retransmission(&self, recs: &Records, mss: u32, new_data_ok: bool) -> Option<u64> {
        let mss = mss as u64;
        let from = self.high_rxt.div_ceil(mss);
        let mut rule3 = None;
        for (idx, rec) in recs.iter_from(from) {
            let seq = idx * mss;
            if seq >= self.high_sacked {
                break;
            }
            if rec.sacked || rec.tx_count == 0 {
                continue;
            }
            if rec.lost {
                return Some(idx);
            }
            if rule3.is_none() {
                rule3 = Some(idx);
            }
        }
        if new_data_ok {
            None
        } else {
            rule3
        }
    }
}
