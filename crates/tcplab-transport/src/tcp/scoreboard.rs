//! The SACK scoreboard (RFC 6675 section 3) over the send records: which segments the
//! receiver holds, which are deemed lost, and the byte counts and pipe derived from them.
//! Every recovery mode keeps it (the receiver SACKs whatever the sender's recovery, and
//! go-back-N after a timeout skips SACKed segments); RFC 6675 recovery also uses IsLost,
//! SetPipe and NextSeg.
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
    /// Bytes of outstanding segments the receiver SACKed.
    pub sacked_bytes: u64,
    /// Bytes of outstanding, unSACKed segments marked lost and not resent since.
    pub lost_bytes: u64,
    /// RFC 6675 pipe, maintained during SACK recovery (SetPipe on each ACK, plus each
    /// segment sent since).
    pub pipe: u64,
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
    /// `on_sacked` (index, record).
    pub fn update(
        &mut self,
        recs: &mut Records,
        blocks: &[SackBlock],
        mss: u32,
        now: Time,
        rate: &mut RateSampler,
        mut on_sacked: impl FnMut(u64, &SentRecord),
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
                        if rec.lost {
                            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
                        }
                        rec.sacked = true;
                        rec.lost = false;
                        on_sacked(idx, rec);
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
        self.sacked_bytes += newly;
        newly
    }

    /// A cumulatively acknowledged segment leaves the scoreboard.
    pub fn on_released(&mut self, rec: &SentRecord) {
        if rec.sacked {
            self.sacked_bytes = self.sacked_bytes.saturating_sub(rec.len as u64);
        }
        if rec.lost {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
    }

    /// Segment `rec` is being (re)sent: it is no longer awaiting retransmission.
    pub fn on_resent(&mut self, rec: &mut SentRecord) {
        if rec.lost {
            self.lost_bytes = self.lost_bytes.saturating_sub(rec.len as u64);
        }
        rec.lost = false;
    }

    /// Marks `rec` lost (if it is neither SACKed nor marked already).
    pub fn mark_lost(&mut self, rec: &mut SentRecord) {
        if !rec.lost && !rec.sacked {
            rec.lost = true;
            self.lost_bytes += rec.len as u64;
        }
    }

    /// Presumes every segment not SACKed lost (after a timeout).
    pub fn mark_all_lost(&mut self, recs: &mut Records) {
        let mut lost = 0;
        for (_, r) in recs.iter_mut() {
            if !r.sacked {
                r.lost = true;
                lost += r.len as u64;
            }
        }
        self.lost_bytes = lost;
    }

    /// Bytes of `flight` (outstanding) neither SACKed nor marked lost.
    pub fn unsacked_unlost(&self, flight: u64) -> u64 {
        flight.saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// The counters match the records (debug builds).
    #[cfg(debug_assertions)]
    pub fn check(&self, recs: &mut Records) {
        let (mut sacked, mut lost) = (0, 0);
        for (_, r) in recs.iter_mut() {
            if r.sacked {
                sacked += r.len as u64;
            } else if r.lost {
                lost += r.len as u64;
            }
        }
        debug_assert_eq!(sacked, self.sacked_bytes, "SACKed bytes");
        debug_assert_eq!(lost, self.lost_bytes, "lost bytes");
    }

    /// Marks lost segments (IsLost) and returns the pipe estimate in bytes (SetPipe).
    pub fn mark_lost_and_pipe(&mut self, recs: &mut Records, dupthresh: u32, mss: u32) -> u64 {
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
                self.lost_bytes += rec.len as u64;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn records(n: u64) -> Records {
        let mut recs = Records::with_capacity(n as usize);
        for i in 0..n {
            recs.push(
                i,
                SentRecord {
                    len: 1000,
                    tx_count: 1,
                    ..SentRecord::default()
                },
            );
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
        let mut sb = Scoreboard::default();
        let mut rate = RateSampler::default();
        let mut seen = vec![];
        let n = sb.update(
            &mut recs,
            &blocks(&[(1500, 4000)]),
            1000,
            Time(1),
            &mut rate,
            |i, _| seen.push(i),
        );
        assert_eq!((n, sb.sacked_bytes, sb.high_sacked), (2000, 2000, 4000));
        let n = sb.update(
            &mut recs,
            &blocks(&[(1000, 6000)]),
            1000,
            Time(2),
            &mut rate,
            |i, _| seen.push(i),
        );
        assert_eq!(n, 3000, "segment 1 now whole, 4 and 5 new");
        assert_eq!(seen, vec![2, 3, 1, 4, 5]);
        assert_eq!(rate.delivered, 5000);
        sb.on_released(recs.get(1).unwrap());
        assert_eq!(sb.sacked_bytes, 4000);
    }

    /// RFC 6675 IsLost: DupThresh SACKed segments above; SetPipe counts segments neither
    /// SACKed nor lost once and those below HighRxt once more. Lost bytes are counted as
    /// they are marked and leave the count when the segment is resent or SACKed.
    #[test]
    fn islost_setpipe_and_lost_bytes() {
        let mut recs = records(8);
        let mut sb = Scoreboard::default();
        let mut rate = RateSampler::default();
        // SACKed: 2, 4, 5, 6. Segment 0, 1 have 4 SACKed above, 3 has 3: lost. 7: not.
        sb.update(
            &mut recs,
            &blocks(&[(4000, 7000), (2000, 3000)]),
            1000,
            Time(1),
            &mut rate,
            |_, _| {},
        );
        assert_eq!(sb.mark_lost_and_pipe(&mut recs, 3, 1000), 1000, "only 7");
        assert_eq!(sb.lost_bytes, 3000);
        sb.high_rxt = 1000;
        sb.on_resent(recs.get_mut(0).unwrap());
        assert_eq!(sb.lost_bytes, 2000);
        // 0 is IsLost again (marked anew) but counts once as retransmitted below HighRxt.
        assert_eq!(sb.mark_lost_and_pipe(&mut recs, 3, 1000), 2000);
        assert_eq!(sb.next_retransmission(&recs, 1000, true), Some(1), "rule 1");
        assert_eq!(
            sb.unsacked_unlost(8000),
            1000,
            "8000 - 4000 SACKed - 3000 lost"
        );
        sb.check(&mut recs);
    }
}
