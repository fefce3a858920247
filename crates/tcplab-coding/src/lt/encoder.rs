//! LT encoder over an object split into (possibly overlapping) generations.

use super::distribution::DegreeDistribution;
use super::neighbours::NeighbourSampler;
use super::params::{Layout, LtParams};
use super::symbol::{write_header, LtSymbol, LT_HEADER_LEN};
use super::window::{check_window, WindowSampler};
use crate::error::{zeroed, Result};
use crate::gf256;
use std::ops::Range;

/// Produces encoded symbols for any (generation, seed) pair on demand —
/// the code is rateless, so the caller decides how many to send.
#[derive(Debug, Clone)]
pub struct LtEncoder {
    params: LtParams,
    layout: Layout,
    dist: DegreeDistribution,
    /// K symbols of `symbol_size` bytes; the last one zero-padded.
    data: Vec<u8>,
    sampler: NeighbourSampler,
    windows: WindowSampler,
}

impl LtEncoder {
    /// Split `data` into source symbols (copying it once).
    pub fn new(params: LtParams, data: &[u8]) -> Result<Self> {
        let layout = Layout::new(&params, data.len() as u64)?;
        let dist = layout.distribution(&params)?;
        let mut padded = zeroed(layout.symbols as usize * params.symbol_size)?;
        padded[..data.len()].copy_from_slice(data);
        let sampler = NeighbourSampler::new(layout.span);
        let windows = WindowSampler::new(params.degrees.clone());
        Ok(Self {
            windows,
            params,
            layout,
            dist,
            data: padded,
            sampler,
        })
    }

    pub fn params(&self) -> &LtParams {
        &self.params
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The degree distribution instantiated for this object's generations.
    pub fn distribution(&self) -> &DegreeDistribution {
        &self.dist
    }

    pub fn num_source_symbols(&self) -> u32 {
        self.layout.symbols
    }

    pub fn num_generations(&self) -> u32 {
        self.layout.generations
    }

    /// Absolute source indices covered by generation `g`.
    pub fn generation_range(&self, g: u32) -> Result<Range<u32>> {
        self.layout.range(g)
    }

    /// Absolute source indices XORed into symbol `(generation, seed)`.
    pub fn neighbours(&mut self, generation: u32, seed: u32) -> Result<Vec<u32>> {
        let range = self.layout.range(generation)?;
        let rel = self
            .sampler
            .sample(&self.dist, self.layout.span, generation, seed);
        Ok(rel.iter().map(|&i| range.start + i).collect())
    }

    /// One encoded symbol.
    pub fn encode(&mut self, generation: u32, seed: u32) -> Result<LtSymbol> {
        let mut out = Vec::new();
        self.encode_into(generation, seed, &mut out)?;
        LtSymbol::from_bytes(&out)
    }

    /// Write the wire form of symbol `(generation, seed)` into `out`
    /// (replacing its contents). Reusing `out` makes this allocation-free.
    pub fn encode_into(&mut self, generation: u32, seed: u32, out: &mut Vec<u8>) -> Result<()> {
        let range = self.layout.range(generation)?;
        let t = self.params.symbol_size;
        let rel = self
            .sampler
            .sample(&self.dist, self.layout.span, generation, seed);
        out.clear();
        write_header(out, generation, seed, t as u16);
        // The degree is at least 1, so the first neighbour initialises the
        // payload and the rest are XORed in.
        let sym = |i: u32| {
            let s = (range.start + i) as usize * t;
            &self.data[s..s + t]
        };
        out.extend_from_slice(sym(rel[0]));
        for &i in &rel[1..] {
            gf256::xor_into(&mut out[LT_HEADER_LEN..], sym(i));
        }
        Ok(())
    }

    /// The payload (`symbol_size` bytes, no header) of the symbol over the
    /// window `start..start + span` keyed by `seed` (see
    /// [`super::WindowSampler`]), for transports that carry the description in
    /// their own header. Reusing `out` makes this allocation-free.
    pub fn encode_window_into(
        &mut self,
        start: u32,
        span: u32,
        seed: u32,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        check_window(start, span, self.layout.symbols)?;
        let t = self.params.symbol_size;
        let rel = self.windows.neighbours(start, span, seed)?;
        let sym = |i: u32| {
            let s = (start + i) as usize * t;
            &self.data[s..s + t]
        };
        out.clear();
        out.extend_from_slice(sym(rel[0]));
        for &i in &rel[1..] {
            gf256::xor_into(out, sym(i));
        }
        Ok(())
    }
}
