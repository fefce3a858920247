//! Online peeling (belief-propagation) decoder for LT codes.
//!
//! Each arriving symbol is reduced at once by every neighbour already known.
//! If one unknown neighbour remains, that source symbol is recovered on the
//! spot and propagated to the buffered symbols that contain it, which may
//! recover more (the "ripple"). Symbols with two or more unknown neighbours
//! wait in a slab. Neighbours are absolute source indices, so symbols from
//! overlapping generations simply meet in one graph.
//!
//! Per buffered symbol only its remaining degree and the XOR of its unknown
//! neighbour ids are kept: when the degree reaches one, that XOR *is* the
//! last neighbour. Symbol→source edges live in intrusive linked lists
//! (arrays, not per-source `Vec`s), so after warm-up nothing is allocated
//! per symbol.
//!
//! Per-source state grows as symbols reach further into the object, never
//! sized by the object's declared length, and a streaming user (TCP-Forward's
//! receiver) drops the recovered prefix it no longer needs with
//! [`LtDecoder::forget_below`]: the decoder then holds about one coding window,
//! however long the transfer.

use super::analysis;
use super::distribution::DegreeDistribution;
use super::neighbours::NeighbourSampler;
use super::params::{Layout, LtParams};
use super::symbol::LtSymbolRef;
use super::window::{check_window, WindowSampler};
use crate::error::{CodingError, Result};
use crate::gf256;
use std::sync::OnceLock;

const NONE: u32 = u32::MAX;

/// Counters describing what the decoder has seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LtDecoderStats {
    /// Well-formed symbols accepted.
    pub received: u64,
    /// Symbols whose neighbours were all known on arrival.
    pub redundant: u64,
    /// Symbols currently buffered (reduced degree ≥ 2).
    pub buffered: u32,
    /// Whole-symbol XORs and copies performed so far (the decoder's work, for
    /// cost models: each touches `symbol_size` bytes).
    pub ops: u64,
}

/// Online LT decoder for one object.
#[derive(Debug)]
pub struct LtDecoder {
    params: LtParams,
    layout: Layout,
    dist: DegreeDistribution,
    sampler: NeighbourSampler,
    /// Per-source arrays (`store`, `known`, `head`) start at source `base` and
    /// reach as far as any symbol has; sources below `forgotten` are recovered
    /// and dropped (`base..forgotten` is kept until it is worth moving).
    base: u32,
    forgotten: u32,
    /// Recovered source symbols, `symbol_size` bytes each, by index.
    store: Vec<u8>,
    known: Vec<bool>,
    recovered: u32,
    // Buffered symbols ("slots").
    slab: Vec<u8>,
    slot_degree: Vec<u32>,
    slot_xor: Vec<u32>,
    slot_epoch: Vec<u32>,
    free_slots: Vec<u32>,
    /// Sum of the degrees of live slots = number of valid edges.
    live_edges: usize,
    // Edges: per unknown source, a list of (slot, epoch) through `edge_next`.
    head: Vec<u32>,
    edge_slot: Vec<u32>,
    edge_epoch: Vec<u32>,
    edge_next: Vec<u32>,
    touched: Vec<u32>,
    /// Compaction rebuilds the edge lists into these and swaps them in, so a long stream
    /// reuses two sets of buffers instead of allocating new ones each time.
    spare: [Vec<u32>; 4],
    /// Recovered sources not yet propagated to buffered symbols.
    queue: Vec<u32>,
    /// Sources recovered by the current call, in order.
    newly: Vec<u32>,
    unknown_scratch: Vec<u32>,
    neighbour_scratch: Vec<u32>,
    windows: WindowSampler,
    stats: LtDecoderStats,
    /// E[symbols needed]/k for this generation size, computed on demand.
    overhead_ratio: OnceLock<f64>,
}

impl LtDecoder {
    /// A decoder for an object of `data_len` bytes coded with `params`.
    pub fn new(params: LtParams, data_len: u64) -> Result<Self> {
        let layout = Layout::new(&params, data_len)?;
        let dist = layout.distribution(&params)?;
        Ok(Self {
            sampler: NeighbourSampler::new(layout.span),
            base: 0,
            forgotten: 0,
            store: Vec::new(),
            known: Vec::new(),
            recovered: 0,
            slab: Vec::new(),
            slot_degree: Vec::new(),
            slot_xor: Vec::new(),
            slot_epoch: Vec::new(),
            free_slots: Vec::new(),
            live_edges: 0,
            head: Vec::new(),
            edge_slot: Vec::new(),
            edge_epoch: Vec::new(),
            edge_next: Vec::new(),
            touched: Vec::new(),
            spare: Default::default(),
            queue: Vec::new(),
            newly: Vec::new(),
            unknown_scratch: Vec::new(),
            neighbour_scratch: Vec::new(),
            windows: WindowSampler::new(params.degrees.clone()),
            stats: LtDecoderStats::default(),
            overhead_ratio: OnceLock::new(),
            params,
            layout,
            dist,
        })
    }

    /// Forget everything received, keeping allocations for reuse.
    pub fn reset(&mut self) {
        self.base = 0;
        self.forgotten = 0;
        self.store.clear();
        self.known.clear();
        self.head.clear();
        self.recovered = 0;
        self.slot_degree.fill(0);
        self.free_slots.clear();
        self.free_slots
            .extend((0..self.slot_degree.len() as u32).rev());
        self.live_edges = 0;
        self.edge_slot.clear();
        self.edge_epoch.clear();
        self.edge_next.clear();
        self.touched.clear();
        self.queue.clear();
        self.newly.clear();
        self.stats = LtDecoderStats::default();
    }

    pub fn params(&self) -> &LtParams {
        &self.params
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn num_source_symbols(&self) -> u32 {
        self.layout.symbols
    }

    /// Source symbols recovered so far.
    pub fn recovered_count(&self) -> u32 {
        self.recovered
    }

    pub fn is_complete(&self) -> bool {
        self.recovered == self.layout.symbols
    }

    pub fn is_recovered(&self, index: u32) -> bool {
        match index.checked_sub(self.base) {
            Some(i) => self.known.get(i as usize).copied().unwrap_or(false),
            None => true,
        }
    }

    /// Sources below this are recovered and forgotten (see [`forget_below`](Self::forget_below)).
    pub fn forgotten(&self) -> u32 {
        self.forgotten
    }

    /// Sources the per-source arrays have room for: the decoder's per-source memory
    /// is this times (`symbol_size` + 5) bytes.
    pub fn held_sources(&self) -> usize {
        self.known.capacity()
    }

    /// Drops recovered sources below `b` (only the recovered prefix: it stops at the
    /// first source not recovered). A later symbol that combines a forgotten source
    /// is refused (`WindowOutOfRange`): the caller forgets only what its sender no
    /// longer codes. Returns the new [`forgotten`](Self::forgotten) point.
    pub fn forget_below(&mut self, b: u32) -> u32 {
        while self.forgotten < b && self.is_recovered(self.forgotten) {
            self.forgotten += 1;
        }
        // Move the arrays down once the dead prefix is half of them (amortised O(1)).
        let dead = ((self.forgotten - self.base) as usize).min(self.known.len());
        if dead > 0 && dead >= self.known.len() / 2 {
            let t = self.params.symbol_size;
            self.store.drain(..dead * t);
            self.known.drain(..dead);
            self.head.drain(..dead);
            self.base += dead as u32;
        }
        if self.known.is_empty() {
            self.base = self.forgotten;
        }
        self.forgotten
    }

    /// Position of source `s` (held: `s >= base`) in the per-source arrays.
    #[inline]
    fn ix(&self, s: u32) -> usize {
        (s - self.base) as usize
    }

    /// Refuses windows reaching below the forgotten point and grows the per-source
    /// arrays to hold sources up to `end`.
    fn hold(&mut self, start: u32, end: u32) -> Result<()> {
        if start < self.forgotten {
            return Err(CodingError::WindowOutOfRange {
                start,
                len: end - start,
                limit_start: self.forgotten,
                limit_len: self.layout.symbols - self.forgotten,
            });
        }
        let n = (end - self.base) as usize;
        if n > self.known.len() {
            let t = self.params.symbol_size;
            grow(&mut self.store, n * t, 0)?;
            grow(&mut self.known, n, false)?;
            grow(&mut self.head, n, NONE)?;
        }
        Ok(())
    }

    pub fn stats(&self) -> LtDecoderStats {
        LtDecoderStats {
            buffered: (self.slot_degree.len() - self.free_slots.len()) as u32,
            ..self.stats
        }
    }

    /// Source symbol `index` with its true length, once recovered.
    pub fn source(&self, index: u32) -> Option<&[u8]> {
        if index < self.forgotten || !self.is_recovered(index) {
            return None;
        }
        let t = self.params.symbol_size;
        let start = self.ix(index) * t;
        Some(&self.store[start..start + self.layout.symbol_len(index)])
    }

    /// The whole object, once every source symbol is recovered.
    pub fn data(&self) -> Option<&[u8]> {
        (self.is_complete() && self.forgotten == 0)
            .then(|| &self.store[..self.layout.data_len as usize])
    }

    /// Parse and consume one symbol in wire form; returns the indices of the
    /// source symbols this symbol allowed to recover, in recovery order.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<&[u32]> {
        let sym = LtSymbolRef::from_bytes(bytes)?;
        self.receive_symbol(sym)
    }

    /// Consume one parsed symbol; see [`receive`](Self::receive).
    pub fn receive_symbol(&mut self, sym: LtSymbolRef<'_>) -> Result<&[u32]> {
        self.check_payload(sym.payload)?;
        let range = self.layout.range(sym.generation)?;
        self.hold(range.start, range.end)?;
        // Take the neighbour buffer out of `self` so the slot allocator
        // (which needs `&mut self`) can run while it is in use.
        let mut rel = std::mem::take(&mut self.neighbour_scratch);
        rel.clear();
        self.sampler.sample_into(
            &self.dist,
            self.layout.span,
            sym.generation,
            sym.seed,
            &mut rel,
        );
        self.absorb(range.start, &rel, sym.payload);
        self.neighbour_scratch = rel;
        Ok(&self.newly)
    }

    /// Consume a symbol over the window `start..start + span` keyed by
    /// `seed` (see [`super::WindowSampler`]; the encoder side is
    /// [`super::LtEncoder::encode_window_into`]). Returns the source symbols
    /// it allowed to recover, in recovery order.
    pub fn receive_window(
        &mut self,
        start: u32,
        span: u32,
        seed: u32,
        payload: &[u8],
    ) -> Result<&[u32]> {
        self.check_payload(payload)?;
        check_window(start, span, self.layout.symbols)?;
        self.hold(start, start + span)?;
        let mut rel = std::mem::take(&mut self.neighbour_scratch);
        rel.clear();
        if let Err(e) = self.windows.neighbours_into(start, span, seed, &mut rel) {
            self.neighbour_scratch = rel;
            return Err(e);
        }
        self.absorb(start, &rel, payload);
        self.neighbour_scratch = rel;
        Ok(&self.newly)
    }

    fn check_payload(&self, payload: &[u8]) -> Result<()> {
        let t = self.params.symbol_size;
        if payload.len() != t {
            return Err(CodingError::PayloadLength {
                expected: t,
                found: payload.len(),
            });
        }
        Ok(())
    }

    /// Adds a symbol whose neighbours are `base + rel[..]` and peels.
    fn absorb(&mut self, base: u32, rel: &[u32], payload: &[u8]) {
        let t = self.params.symbol_size;
        let b0 = self.base;
        let ix = |s: u32| (s - b0) as usize;
        self.newly.clear();
        self.stats.received += 1;
        // Split the neighbours into known (folded in below) and unknown.
        self.unknown_scratch.clear();
        for &i in rel {
            let s = base + i;
            if !self.known[ix(s)] {
                self.unknown_scratch.push(s);
            }
        }
        match self.unknown_scratch.len() {
            0 => {
                self.stats.redundant += 1;
            }
            1 => {
                let target = self.unknown_scratch[0];
                let t0 = ix(target) * t;
                self.store[t0..t0 + t].copy_from_slice(payload);
                self.stats.ops += rel.len() as u64;
                for &i in rel {
                    let s = base + i;
                    if s != target {
                        xor_within(&mut self.store, t, ix(target), ix(s));
                    }
                }
                self.mark_recovered(target);
            }
            degree => {
                let slot = self.alloc_slot();
                let off = slot as usize * t;
                let buf = &mut self.slab[off..off + t];
                buf.copy_from_slice(payload);
                let mut xor = 0;
                let mut ops = 1;
                for &i in rel {
                    let s = base + i;
                    if self.known[ix(s)] {
                        let so = ix(s) * t;
                        gf256::xor_into(buf, &self.store[so..so + t]);
                        ops += 1;
                    } else {
                        xor ^= s;
                    }
                }
                self.stats.ops += ops;
                self.slot_degree[slot as usize] = degree as u32;
                self.slot_xor[slot as usize] = xor;
                self.live_edges += degree;
                for j in 0..degree {
                    let s = self.unknown_scratch[j];
                    self.add_edge(s, slot);
                }
            }
        }
        self.propagate();
    }

    /// Roughly how many more symbols the decoder needs to finish.
    ///
    /// Heuristic: each unrecovered source symbol costs E[N]/k symbols on
    /// average (E[N] from [`analysis::reception_moments`] for this generation
    /// size and distribution), and every buffered symbol already counts as
    /// received. Never 0 while incomplete; 0 when complete.
    pub fn symbols_needed_estimate(&self) -> u64 {
        if self.is_complete() {
            return 0;
        }
        let ratio = *self.overhead_ratio.get_or_init(|| {
            let k = self.layout.span;
            analysis::reception_moments_with(&self.dist, k, 1e-4).mean / f64::from(k)
        });
        let unknown = f64::from(self.layout.symbols - self.recovered);
        let buffered = f64::from(self.stats().buffered);
        ((ratio * unknown).ceil() - buffered).max(1.0) as u64
    }

    fn mark_recovered(&mut self, s: u32) {
        let i = self.ix(s);
        self.known[i] = true;
        self.recovered += 1;
        self.newly.push(s);
        self.queue.push(s);
    }

    /// Peel: push every newly recovered source into the buffered symbols
    /// that contain it, recovering more whenever one drops to degree one.
    fn propagate(&mut self) {
        let t = self.params.symbol_size;
        while let Some(s) = self.queue.pop() {
            let i = self.ix(s);
            let so = i * t;
            let mut e = std::mem::replace(&mut self.head[i], NONE);
            while e != NONE {
                let ei = e as usize;
                let slot = self.edge_slot[ei];
                e = self.edge_next[ei];
                let si = slot as usize;
                if self.edge_epoch[ei] != self.slot_epoch[si] || self.slot_degree[si] == 0 {
                    continue; // stale edge of a freed or reused slot
                }
                let buf = &mut self.slab[si * t..si * t + t];
                gf256::xor_into(buf, &self.store[so..so + t]);
                self.stats.ops += 1;
                self.slot_degree[si] -= 1;
                self.slot_xor[si] ^= s;
                self.live_edges -= 1;
                if self.slot_degree[si] == 1 {
                    let r = self.slot_xor[si];
                    if !self.known[self.ix(r)] {
                        let ro = self.ix(r) * t;
                        self.store[ro..ro + t].copy_from_slice(&self.slab[si * t..si * t + t]);
                        self.stats.ops += 1;
                        self.mark_recovered(r);
                    }
                    // Either way the slot has nothing more to give.
                    self.free_slot(slot);
                }
            }
        }
        self.maybe_compact_edges();
    }

    fn alloc_slot(&mut self) -> u32 {
        if let Some(s) = self.free_slots.pop() {
            return s;
        }
        let s = self.slot_degree.len() as u32;
        self.slot_degree.push(0);
        self.slot_xor.push(0);
        self.slot_epoch.push(0);
        self.slab
            .resize(self.slab.len() + self.params.symbol_size, 0);
        s
    }

    fn free_slot(&mut self, slot: u32) {
        let si = slot as usize;
        self.live_edges -= self.slot_degree[si] as usize;
        self.slot_degree[si] = 0;
        self.slot_epoch[si] = self.slot_epoch[si].wrapping_add(1);
        self.free_slots.push(slot);
    }

    fn add_edge(&mut self, source: u32, slot: u32) {
        let e = self.edge_slot.len() as u32;
        let i = self.ix(source);
        let h = &mut self.head[i];
        if *h == NONE {
            self.touched.push(source);
        }
        self.edge_slot.push(slot);
        self.edge_epoch.push(self.slot_epoch[slot as usize]);
        self.edge_next.push(*h);
        *h = e;
    }

    /// Drop stale edges once they dominate, so a long stream whose buffer
    /// never empties still uses memory proportional to what is buffered.
    fn maybe_compact_edges(&mut self) {
        let total = self.edge_slot.len();
        if total < 4096 || total < 2 * self.live_edges {
            return;
        }
        let [mut slot, mut epoch, mut next, mut touched] = std::mem::take(&mut self.spare);
        for v in [&mut slot, &mut epoch, &mut next, &mut touched] {
            v.clear();
        }
        for &s in &self.touched {
            // A forgotten source was recovered: its list was emptied then.
            let Some(hi) = s.checked_sub(self.base).map(|i| i as usize) else {
                continue;
            };
            let mut e = self.head[hi];
            let mut new_head = NONE;
            while e != NONE {
                let ei = e as usize;
                let si = self.edge_slot[ei] as usize;
                if self.edge_epoch[ei] == self.slot_epoch[si] && self.slot_degree[si] != 0 {
                    slot.push(self.edge_slot[ei]);
                    epoch.push(self.edge_epoch[ei]);
                    next.push(new_head);
                    new_head = (slot.len() - 1) as u32;
                }
                e = self.edge_next[ei];
            }
            self.head[hi] = new_head;
            if new_head != NONE {
                touched.push(s);
            }
        }
        self.spare = [
            std::mem::replace(&mut self.edge_slot, slot),
            std::mem::replace(&mut self.edge_epoch, epoch),
            std::mem::replace(&mut self.edge_next, next),
            std::mem::replace(&mut self.touched, touched),
        ];
    }
}

/// Grows `v` to `len` elements of `fill`, refusing (instead of aborting on) a size the
/// allocator cannot give.
fn grow<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) -> Result<()> {
    v.try_reserve(len - v.len())
        .map_err(|_| CodingError::InvalidParameter(format!("cannot hold {len} sources")))?;
    v.resize(len, fill);
    Ok(())
}

/// `store[dst] ^= store[src]` for two distinct symbols of one buffer.
fn xor_within(store: &mut [u8], t: usize, dst: usize, src: usize) {
    let (d, s) = (dst * t, src * t);
    if d < s {
        let (a, b) = store.split_at_mut(s);
        gf256::xor_into(&mut a[d..d + t], &b[..t]);
    } else {
        let (a, b) = store.split_at_mut(d);
        gf256::xor_into(&mut b[..t], &a[s..s + t]);
    }
}
