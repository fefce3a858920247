//! TCP/NC's receiver without payload bytes: exact Gauss–Jordan elimination over the
//! symbols' GF(2^8) coefficients.
//!
//! Sundararajan et al. (Proc. IEEE 99(3), 2011, Sec. III, Definition 1): a node has *seen*
//! packet p_k once it can compute p_k + q, where q combines only packets after p_k. In the
//! reduced row-echelon form of the received coefficient matrix (columns in packet order)
//! the seen packets are exactly the pivot columns, and a seen packet is *decoded* when its
//! row has no other non-zero entry. This tracker keeps that form with the coefficients the
//! sender's seed produces (`tcplab_coding::rlnc::seeded_coefficients`), so it makes the
//! same rank, seen and decoded decisions as `tcplab_coding::rlnc::RlncDecoder` on the real
//! bytes (tested), at a fraction of the cost: decoded packets are a flag, not a unit row,
//! and only seen-but-undecoded packets keep a row, stored from its pivot to its last
//! non-zero. It also counts the row operations the real decoder performs (a
//! multiply-accumulate per non-zero coefficient on a seen column, one normalisation, one
//! back-substitution per row that holds the new pivot) for the cost model.

use std::collections::VecDeque;
use tcplab_coding::gf256;
use tcplab_coding::rlnc::seeded_coefficients;

const UNSEEN: u32 = u32::MAX;
const DECODED: u32 = u32::MAX - 1;

/// What one symbol did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// The symbol increased the rank.
    pub innovative: bool,
    /// The packet it made seen (its pivot).
    pub newly_seen: Option<u32>,
    /// Row operations a payload-carrying decoder performs for it.
    pub ops: u64,
}

#[derive(Clone, Debug, Default)]
struct Row {
    pivot: u32,
    /// Coefficients of columns `pivot..`; `c[0] == 1`, no trailing zeros.
    c: Vec<u8>,
}

/// Seen/decoded state of a TCP/NC receiver (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct SeenTracker {
    /// Every packet below is decoded (and forgotten).
    base: u32,
    /// Per packet from `base`: `UNSEEN`, `DECODED`, or the slot of its row.
    state: VecDeque<u32>,
    first_unseen: u32,
    rows: Vec<Row>,
    free: Vec<u32>,
    /// Slots of the rows of seen, undecoded packets.
    live: Vec<u32>,
    coeffs: Vec<u8>,
    work: Vec<u8>,
    newly_decoded: Vec<u32>,
}

impl SeenTracker {
    pub fn new() -> SeenTracker {
        SeenTracker::default()
    }

    /// The oldest packet not yet seen: what the receiver acknowledges.
    pub fn first_unseen(&self) -> u32 {
        self.first_unseen
    }

    /// The oldest packet not yet decoded: everything below is delivered in order.
    pub fn first_undecoded(&self) -> u32 {
        self.base
    }

    /// One past the highest packet any symbol has combined.
    pub fn horizon(&self) -> u32 {
        self.base + self.state.len() as u32
    }

    /// Seen but not decoded packets (rows held).
    pub fn undecoded_rows(&self) -> usize {
        self.live.len()
    }

    pub fn is_seen(&self, i: u32) -> bool {
        i < self.base || self.state_of(i).is_some_and(|s| s != UNSEEN)
    }

    pub fn is_decoded(&self, i: u32) -> bool {
        i < self.base || self.state_of(i) == Some(DECODED)
    }

    /// Packets the last symbol decoded, in increasing order.
    pub fn newly_decoded(&self) -> &[u32] {
        &self.newly_decoded
    }

    fn state_of(&self, i: u32) -> Option<u32> {
        i.checked_sub(self.base)
            .and_then(|o| self.state.get(o as usize).copied())
    }

    /// Takes the symbol combining packets `start..start + span` with the coefficients of
    /// `seed`.
    pub fn receive(&mut self, start: u32, span: u32, seed: u32) -> Receipt {
        self.newly_decoded.clear();
        let end = start + span;
        let mut coeffs = std::mem::take(&mut self.coeffs);
        coeffs.resize(span as usize, 0);
        seeded_coefficients(start, seed, &mut coeffs);
        let r = self.absorb(start, end, &coeffs);
        self.coeffs = coeffs;
        r
    }

    fn absorb(&mut self, start: u32, end: u32, coeffs: &[u8]) -> Receipt {
        let mut ops = 0u64;
        // Columns below `base` are decoded: the real decoder subtracts them.
        let lo = start.max(self.base);
        let below = (lo.min(end) - start) as usize;
        ops += coeffs[..below].iter().filter(|&&c| c != 0).count() as u64;
        if end <= self.base {
            return Receipt {
                innovative: false,
                newly_seen: None,
                ops,
            };
        }
        while self.horizon() < end {
            self.state.push_back(UNSEEN);
        }
        // Forward elimination against every seen column. In RREF a row is zero in the
        // other pivot columns, so each multiplier is the symbol's own coefficient.
        let mut work = std::mem::take(&mut self.work);
        work.clear();
        work.extend_from_slice(&coeffs[below..]);
        let mut col = lo;
        while col < lo + work.len() as u32 {
            let f = work[(col - lo) as usize];
            if f != 0 {
                match self.state[(col - self.base) as usize] {
                    UNSEEN => {}
                    DECODED => {
                        work[(col - lo) as usize] = 0;
                        ops += 1;
                    }
                    slot => {
                        let row = &self.rows[slot as usize];
                        let off = (col - lo) as usize;
                        if off + row.c.len() > work.len() {
                            work.resize(off + row.c.len(), 0);
                        }
                        gf256::mul_acc(&mut work[off..off + row.c.len()], &row.c, f);
                        ops += 1;
                    }
                }
            }
            col += 1;
        }
        while work.last() == Some(&0) {
            work.pop();
        }
        let Some(first) = work.iter().position(|&c| c != 0) else {
            self.work = work;
            return Receipt {
                innovative: false,
                newly_seen: None,
                ops,
            };
        };
        let pivot = lo + first as u32;
        debug_assert_eq!(self.state[(pivot - self.base) as usize], UNSEEN);
        let inv = gf256::inv(work[first]).expect("non-zero pivot");
        let new_c = &mut work[first..];
        gf256::mul_in_place(new_c, inv);
        ops += 1;
        // Back-substitution: clear the new pivot column from the rows that hold it (only
        // rows with an earlier pivot can; decoded rows are unit vectors).
        let mut i = 0;
        while i < self.live.len() {
            let slot = self.live[i] as usize;
            let row = &mut self.rows[slot];
            let off = pivot.wrapping_sub(row.pivot) as usize;
            let g = if row.pivot < pivot {
                row.c.get(off).copied().unwrap_or(0)
            } else {
                0
            };
            if g != 0 {
                if off + new_c.len() > row.c.len() {
                    row.c.resize(off + new_c.len(), 0);
                }
                gf256::mul_acc(&mut row.c[off..off + new_c.len()], new_c, g);
                while row.c.last() == Some(&0) {
                    row.c.pop();
                }
                ops += 1;
                if row.c.len() == 1 {
                    let p = row.pivot;
                    self.state[(p - self.base) as usize] = DECODED;
                    self.newly_decoded.push(p);
                    self.free.push(slot as u32);
                    self.live.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        if new_c.len() == 1 {
            self.state[(pivot - self.base) as usize] = DECODED;
            self.newly_decoded.push(pivot);
        } else {
            let slot = match self.free.pop() {
                Some(s) => s,
                None => {
                    self.rows.push(Row::default());
                    (self.rows.len() - 1) as u32
                }
            };
            let row = &mut self.rows[slot as usize];
            row.pivot = pivot;
            row.c.clear();
            row.c.extend_from_slice(new_c);
            self.state[(pivot - self.base) as usize] = slot;
            self.live.push(slot);
        }
        self.work = work;
        self.newly_decoded.sort_unstable();
        while self.first_unseen < self.horizon()
            && self.state[(self.first_unseen - self.base) as usize] != UNSEEN
        {
            self.first_unseen += 1;
        }
        while self.state.front() == Some(&DECODED) {
            self.state.pop_front();
            self.base += 1;
        }
        Receipt {
            innovative: true,
            newly_seen: Some(pivot),
            ops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets 0..3 arrive as p0 + p1, then p1 + p2, then p2: the textbook pattern of
    /// Sundararajan et al. (Fig. 2 style). Each innovative symbol makes its first unknown
    /// packet seen; the last one decodes everything by back-substitution.
    #[test]
    fn seen_before_decoded_by_hand() {
        let mut t = SeenTracker::new();
        let r = t.absorb(0, 2, &[1, 1]);
        assert_eq!((r.innovative, r.newly_seen), (true, Some(0)));
        assert_eq!((t.first_unseen(), t.first_undecoded()), (1, 0));
        assert!(t.newly_decoded().is_empty());
        let r = t.absorb(1, 3, &[1, 1]);
        assert_eq!(r.newly_seen, Some(1));
        // Row of p0 was [1 1 0]; subtracting the new row [_ 1 1] gives [1 0 1].
        assert_eq!((t.first_unseen(), t.first_undecoded()), (2, 0));
        // No forward operation (p1 was unseen), one normalisation, one back-substitution.
        assert_eq!(r.ops, 2);
        let r = t.absorb(2, 3, &[5]);
        assert_eq!(r.newly_seen, Some(2));
        assert_eq!(t.newly_decoded(), &[0, 1, 2]);
        assert_eq!((t.first_unseen(), t.first_undecoded()), (3, 3));
        assert_eq!(t.undecoded_rows(), 0);
        // Anything over decoded packets is redundant, and still costs the subtractions.
        let r = t.absorb(0, 3, &[1, 0, 7]);
        assert_eq!((r.innovative, r.ops), (false, 2));
    }

    #[test]
    fn zero_coefficient_leaves_a_gap_in_the_seen_set() {
        let mut t = SeenTracker::new();
        let r = t.absorb(0, 3, &[0, 3, 1]);
        assert_eq!(r.newly_seen, Some(1), "p0 is absent: p1 becomes seen");
        assert_eq!(t.first_unseen(), 0, "the ACK still names p0");
        assert!(t.is_seen(1) && !t.is_seen(0) && !t.is_decoded(1));
        let r = t.absorb(0, 1, &[9]);
        assert_eq!(r.newly_seen, Some(0));
        assert_eq!(t.first_unseen(), 2, "p2 is not seen yet");
    }
}
