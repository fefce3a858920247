//! Incremental Gauss–Jordan RLNC decoder with TCP/NC's notion of *seen*.
//!
//! The received coefficient matrix is kept in reduced row-echelon form with
//! columns ordered by packet index. Packet i is **seen** once some row has
//! its leading 1 in column i — the receiver can then form
//! p_i + Σ_{l>i} α_l p_l (Sundararajan et al., 2011) — and **decoded** once
//! that row has no other non-zero coefficient.
//!
//! Rows are stored as `[coefficients (ring of `capacity` columns) | payload]`
//! so one GF(2^8) multiply-accumulate updates both halves. Column of packet
//! i is `i % capacity`; the held packets always lie in
//! `base..base + capacity`, so sliding the boundary never moves data.

use super::encoder::check_sizes;
use super::symbol::{seeded_coefficients, write_explicit_header, CoefficientsRef, RlncSymbolRef};
use crate::error::{zeroed, CodingError, Result};
use crate::gf256;
use crate::rng::SplitMix64;

const NONE: u32 = u32::MAX;

/// What one symbol did to the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RlncOutcome {
    /// Increased the rank.
    Innovative,
    /// Linearly dependent on what was held (duplicates, extra symbols).
    NonInnovative,
    /// Combines packets already dropped below the boundary; ignored.
    Stale,
}

/// Report after every symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RlncReceipt<'a> {
    pub outcome: RlncOutcome,
    /// Rank of the held system after this symbol.
    pub rank: usize,
    /// The packet this symbol made seen (its pivot), if innovative.
    pub newly_seen: Option<u32>,
    /// Packets decoded by this symbol, in increasing index order.
    pub newly_decoded: &'a [u32],
}

/// Counters describing what the decoder has seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RlncDecoderStats {
    pub received: u64,
    pub innovative: u64,
    pub non_innovative: u64,
    pub stale: u64,
    /// Undecoded rows discarded by [`RlncDecoder::drop_below`].
    pub abandoned: u64,
    /// Row operations performed (multiply-accumulates of one row into
    /// another, and normalisations): the decoder's work, for cost models.
    pub row_ops: u64,
}

/// Streaming RLNC decoder.
#[derive(Debug, Clone)]
pub struct RlncDecoder {
    packet_size: usize,
    unit: usize,
    cap: usize,
    stride: usize,
    /// Lowest packet index still held.
    base: u32,
    /// One past the highest packet index referenced so far (>= base).
    high: u32,
    rows: Vec<u8>,
    /// Per column: slot of the row whose pivot it is, or NONE.
    pivot_slot: Vec<u32>,
    decoded: Vec<bool>,
    free: Vec<u32>,
    rank: usize,
    work: Vec<u8>,
    coeffs: Vec<u8>,
    touched: Vec<u32>,
    newly_decoded: Vec<u32>,
    stats: RlncDecoderStats,
}

impl RlncDecoder {
    /// A decoder for packets of at most `packet_size` bytes that holds at
    /// most `capacity` packets at once (use at least the encoder's).
    pub fn new(packet_size: usize, capacity: usize) -> Result<Self> {
        check_sizes(packet_size, capacity)?;
        let unit = packet_size + 2;
        let stride = capacity + unit;
        Ok(Self {
            packet_size,
            unit,
            cap: capacity,
            stride,
            base: 0,
            high: 0,
            rows: zeroed(capacity * stride)?,
            pivot_slot: vec![NONE; capacity],
            decoded: vec![false; capacity],
            free: (0..capacity as u32).rev().collect(),
            rank: 0,
            work: vec![0; stride],
            coeffs: Vec::with_capacity(capacity),
            touched: Vec::with_capacity(capacity),
            newly_decoded: Vec::with_capacity(capacity),
            stats: RlncDecoderStats::default(),
        })
    }

    pub fn packet_size(&self) -> usize {
        self.packet_size
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Rank of the held system (number of seen packets held).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Lowest index still held; everything below was dropped.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// One past the highest packet index any symbol has referenced.
    pub fn horizon(&self) -> u32 {
        self.high
    }

    pub fn stats(&self) -> RlncDecoderStats {
        self.stats
    }

    pub fn is_seen(&self, index: u32) -> bool {
        self.held(index) && self.pivot_slot[self.col(index)] != NONE
    }

    pub fn is_decoded(&self, index: u32) -> bool {
        self.held(index) && self.decoded[self.col(index)]
    }

    /// Smallest held index not yet seen (`horizon()` if all are): what a
    /// TCP/NC receiver acknowledges.
    pub fn first_unseen(&self) -> u32 {
        (self.base..self.high)
            .find(|&i| !self.is_seen(i))
            .unwrap_or(self.high)
    }

    /// Smallest held index not yet decoded (`horizon()` if all are): the
    /// in-order delivery point.
    pub fn first_undecoded(&self) -> u32 {
        (self.base..self.high)
            .find(|&i| !self.is_decoded(i))
            .unwrap_or(self.high)
    }

    /// Packet `index` with its original length, once decoded.
    pub fn packet(&self, index: u32) -> Option<&[u8]> {
        if !self.is_decoded(index) {
            return None;
        }
        let slot = self.pivot_slot[self.col(index)] as usize;
        let unit = &self.rows[slot * self.stride + self.cap..(slot + 1) * self.stride];
        // A length beyond the packet size can only come from forged or
        // corrupted symbols; clamp rather than read past the unit.
        let len = usize::from(u16::from_be_bytes([unit[0], unit[1]])).min(self.packet_size);
        Some(&unit[2..2 + len])
    }

    /// Parse and consume one symbol in wire form.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<RlncReceipt<'_>> {
        let sym = RlncSymbolRef::from_bytes(bytes)?;
        self.receive_symbol(sym)
    }

    /// Consume one parsed symbol: reduce it against the held rows, and if it
    /// is innovative insert it and back-substitute to keep the RREF.
    pub fn receive_symbol(&mut self, sym: RlncSymbolRef<'_>) -> Result<RlncReceipt<'_>> {
        if sym.payload.len() != self.unit {
            return Err(CodingError::PayloadLength {
                expected: self.unit,
                found: sym.payload.len(),
            });
        }
        let start = u64::from(sym.start);
        let n = usize::from(sym.window_len);
        let end = start + n as u64;
        if n == 0 || n > self.cap || end > u64::from(self.base) + self.cap as u64 {
            return Err(CodingError::WindowOutOfRange {
                start: sym.start,
                len: n as u32,
                limit_start: self.base,
                limit_len: self.cap as u32,
            });
        }
        self.newly_decoded.clear();
        self.stats.received += 1;

        self.coeffs.clear();
        match sym.coefficients {
            CoefficientsRef::Seeded(seed) => {
                self.coeffs.resize(n, 0);
                seeded_coefficients(sym.start, seed, &mut self.coeffs);
            }
            CoefficientsRef::Explicit(c) => {
                if c.len() != n {
                    return Err(CodingError::CoefficientCount {
                        expected: n,
                        found: c.len(),
                    });
                }
                self.coeffs.extend_from_slice(c);
            }
        }
        // Packets below the boundary are gone; a symbol that still mixes
        // them in cannot be reduced any more.
        let below = (u64::from(self.base).saturating_sub(start) as usize).min(n);
        if self.coeffs[..below].iter().any(|&c| c != 0) {
            self.stats.stale += 1;
            return Ok(self.receipt(RlncOutcome::Stale, None));
        }

        // Scatter the coefficients into the ring and copy the payload.
        self.work[..self.cap].fill(0);
        for j in below..n {
            let col = (sym.start as usize + j) % self.cap;
            self.work[col] = self.coeffs[j];
        }
        self.work[self.cap..].copy_from_slice(sym.payload);
        self.high = self.high.max(end as u32);

        // Forward: cancel every pivot column. In RREF a pivot column is zero
        // in all other rows, so each multiplier is read once, up front.
        let stride = self.stride;
        for i in self.base..self.high {
            let col = self.col(i);
            let slot = self.pivot_slot[col];
            if slot == NONE {
                continue;
            }
            let f = self.work[col];
            if f != 0 {
                let row = &self.rows[slot as usize * stride..(slot as usize + 1) * stride];
                gf256::mul_acc(&mut self.work, row, f);
                self.stats.row_ops += 1;
            }
        }
        let Some(pivot) = (self.base..self.high).find(|&i| self.work[self.col(i)] != 0) else {
            self.stats.non_innovative += 1;
            return Ok(self.receipt(RlncOutcome::NonInnovative, None));
        };
        let pcol = self.col(pivot);
        let inv = gf256::inv(self.work[pcol]).expect("pivot entry is non-zero");
        gf256::mul_in_place(&mut self.work, inv);
        self.stats.row_ops += 1;

        // Backward: clear the new pivot column from every other row.
        self.touched.clear();
        for i in self.base..self.high {
            let slot = self.pivot_slot[self.col(i)];
            if slot == NONE {
                continue;
            }
            let row = &mut self.rows[slot as usize * stride..(slot as usize + 1) * stride];
            let f = row[pcol];
            if f != 0 {
                gf256::mul_acc(row, &self.work, f);
                self.stats.row_ops += 1;
                self.touched.push(slot);
            }
        }
        let slot = self
            .free
            .pop()
            .expect("rank < capacity while a column is free");
        self.rows[slot as usize * stride..(slot as usize + 1) * stride].copy_from_slice(&self.work);
        self.pivot_slot[pcol] = slot;
        self.touched.push(slot);
        self.rank += 1;
        self.stats.innovative += 1;

        // A row is decoded when its pivot is its only non-zero coefficient.
        for t in 0..self.touched.len() {
            let slot = self.touched[t] as usize;
            let row = &self.rows[slot * stride..slot * stride + self.cap];
            if row.iter().filter(|&&c| c != 0).count() == 1 {
                let col = row.iter().position(|&c| c != 0).expect("one non-zero");
                if !self.decoded[col] {
                    self.decoded[col] = true;
                    let index = self.index_of_col(col);
                    self.newly_decoded.push(index);
                }
            }
        }
        self.newly_decoded.sort_unstable();
        Ok(self.receipt(RlncOutcome::Innovative, Some(pivot)))
    }

    /// Forget every packet below `boundary` (e.g. once delivered). Rows whose
    /// pivot is below the boundary are discarded; returns how many of them
    /// were not yet decoded (their information is lost).
    pub fn drop_below(&mut self, boundary: u32) -> usize {
        if boundary <= self.base {
            return 0;
        }
        let mut lost = 0;
        for i in self.base..boundary.min(self.high) {
            let col = self.col(i);
            let slot = self.pivot_slot[col];
            if slot != NONE {
                if !self.decoded[col] {
                    lost += 1;
                }
                self.free.push(slot);
                self.rank -= 1;
            }
            self.pivot_slot[col] = NONE;
            self.decoded[col] = false;
        }
        self.stats.abandoned += lost as u64;
        self.base = boundary;
        self.high = self.high.max(boundary);
        lost
    }

    /// Drop the decoded prefix (everything below [`first_undecoded`]);
    /// returns the new boundary.
    ///
    /// [`first_undecoded`]: Self::first_undecoded
    pub fn drop_decoded_prefix(&mut self) -> u32 {
        let b = self.first_undecoded();
        self.drop_below(b);
        b
    }

    /// Recode: a random combination (coefficients from `seed`) of the rows
    /// held, written as an explicit-coefficient symbol over
    /// `base..horizon()` — what an intermediate node forwards without
    /// decoding. Fails if nothing is held.
    pub fn recode_into(&mut self, seed: u32, out: &mut Vec<u8>) -> Result<()> {
        if self.rank == 0 {
            return Err(CodingError::InvalidParameter(
                "nothing to recode: no innovative symbol held".into(),
            ));
        }
        let stride = self.stride;
        let mut rng = SplitMix64::for_key(self.base, seed);
        self.work.fill(0);
        for i in self.base..self.high {
            let slot = self.pivot_slot[self.col(i)];
            if slot != NONE {
                let c = rng.next_u32() as u8;
                let row = &self.rows[slot as usize * stride..(slot as usize + 1) * stride];
                gf256::mul_acc(&mut self.work, row, c);
            }
        }
        self.coeffs.clear();
        for i in self.base..self.high {
            self.coeffs.push(self.work[self.col(i)]);
        }
        out.clear();
        write_explicit_header(out, self.base, self.unit as u16, &self.coeffs);
        out.extend_from_slice(&self.work[self.cap..]);
        Ok(())
    }

    fn receipt(&self, outcome: RlncOutcome, newly_seen: Option<u32>) -> RlncReceipt<'_> {
        RlncReceipt {
            outcome,
            rank: self.rank,
            newly_seen,
            newly_decoded: &self.newly_decoded,
        }
    }

    fn held(&self, index: u32) -> bool {
        index >= self.base && index < self.high
    }

    #[inline]
    fn col(&self, index: u32) -> usize {
        index as usize % self.cap
    }

    /// The held index whose column is `col`.
    fn index_of_col(&self, col: usize) -> u32 {
        let base_col = self.col(self.base);
        let offset = (col + self.cap - base_col) % self.cap;
        self.base + offset as u32
    }
}
