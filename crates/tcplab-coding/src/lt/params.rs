//! LT code parameters and the placement of (sliding) generations.
//!
//! Both ends must agree on these out of band, like RaptorQ's object
//! transmission information; symbols then only carry a generation id and a
//! seed.

use super::distribution::{DegreeDistribution, DegreeSpec};
use crate::error::{CodingError, Result};
use std::ops::Range;

/// Shared LT configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct LtParams {
    /// Bytes per source and encoded symbol (1..=65535).
    pub symbol_size: usize,
    /// Source symbols per generation (TCP-Forward's coding window N).
    pub window: u32,
    /// How far consecutive generations are apart (1..=window). TCP-Forward
    /// slides by ⌊N/2⌋, so neighbouring generations overlap by half.
    pub stride: u32,
    /// Degree distribution, instantiated for the generation size.
    pub degrees: DegreeSpec,
}

impl LtParams {
    /// Validated parameters.
    pub fn new(symbol_size: usize, window: u32, stride: u32, degrees: DegreeSpec) -> Result<Self> {
        let p = Self {
            symbol_size,
            window,
            stride,
            degrees,
        };
        p.validate()?;
        Ok(p)
    }

    /// TCP-Forward's layout: windows of N symbols sliding by ⌊N/2⌋ (≥ 1).
    pub fn tcp_forward(symbol_size: usize, window: u32, degrees: DegreeSpec) -> Result<Self> {
        Self::new(symbol_size, window, (window / 2).max(1), degrees)
    }

    /// One generation holding the whole object (classic LT block code);
    /// `max_k` bounds how many source symbols it may have.
    pub fn single_generation(symbol_size: usize, max_k: u32, degrees: DegreeSpec) -> Result<Self> {
        Self::new(symbol_size, max_k, max_k.max(1), degrees)
    }

    fn validate(&self) -> Result<()> {
        if !(1..=usize::from(u16::MAX)).contains(&self.symbol_size) {
            return Err(CodingError::InvalidParameter(format!(
                "symbol size must be 1..=65535 bytes, got {}",
                self.symbol_size
            )));
        }
        if self.window == 0 {
            return Err(CodingError::InvalidParameter(
                "window must hold at least one symbol".into(),
            ));
        }
        if self.stride == 0 || self.stride > self.window {
            return Err(CodingError::InvalidParameter(format!(
                "stride must be 1..=window ({}), got {}",
                self.window, self.stride
            )));
        }
        Ok(())
    }
}

/// Where generations sit in an object of `data_len` bytes.
///
/// Generation g covers `start(g)..start(g) + span` with
/// `start(g) = min(g·stride, K − span)`: the last generation is pulled back
/// to end at the last symbol, so every generation has the same size and one
/// degree distribution serves them all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub data_len: u64,
    pub symbol_size: usize,
    /// K, the number of source symbols.
    pub symbols: u32,
    /// Source symbols per generation: min(window, K).
    pub span: u32,
    pub stride: u32,
    pub generations: u32,
}

impl Layout {
    pub fn new(params: &LtParams, data_len: u64) -> Result<Self> {
        params.validate()?;
        if data_len == 0 {
            return Err(CodingError::InvalidParameter("object is empty".into()));
        }
        let symbols = data_len.div_ceil(params.symbol_size as u64);
        let symbols = u32::try_from(symbols).map_err(|_| {
            CodingError::InvalidParameter(format!(
                "object needs {symbols} symbols; at most {} are addressable",
                u32::MAX
            ))
        })?;
        let span = params.window.min(symbols);
        let generations = if symbols <= params.window {
            1
        } else {
            (symbols - params.window).div_ceil(params.stride) + 1
        };
        Ok(Self {
            data_len,
            symbol_size: params.symbol_size,
            symbols,
            span,
            stride: params.stride,
            generations,
        })
    }

    /// The degree distribution every generation of this object uses.
    pub fn distribution(&self, params: &LtParams) -> Result<DegreeDistribution> {
        params.degrees.build(self.span)
    }

    /// First source index of generation `g` (g must be in range).
    pub fn start(&self, g: u32) -> u32 {
        let unclamped = u64::from(g) * u64::from(self.stride);
        unclamped.min(u64::from(self.symbols - self.span)) as u32
    }

    /// Source indices of generation `g`, or an error if it does not exist.
    pub fn range(&self, g: u32) -> Result<Range<u32>> {
        if g >= self.generations {
            return Err(CodingError::GenerationOutOfRange {
                generation: g,
                generations: self.generations,
            });
        }
        let s = self.start(g);
        Ok(s..s + self.span)
    }

    /// True (unpadded) length of source symbol `i`.
    pub fn symbol_len(&self, i: u32) -> usize {
        let start = u64::from(i) * self.symbol_size as u64;
        (self.data_len - start).min(self.symbol_size as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(window: u32) -> LtParams {
        LtParams::tcp_forward(10, window, DegreeSpec::IdealSoliton).unwrap()
    }

    #[test]
    fn tcp_forward_generations_overlap_by_half_and_cover_everything() {
        let p = params(8);
        let l = Layout::new(&p, 10 * 21 - 3).unwrap(); // 21 symbols
        assert_eq!(l.symbols, 21);
        assert_eq!(l.stride, 4);
        let ranges: Vec<_> = (0..l.generations).map(|g| l.range(g).unwrap()).collect();
        assert_eq!(ranges.first().unwrap().start, 0);
        assert_eq!(ranges.last().unwrap().end, 21);
        for w in ranges.windows(2) {
            assert_eq!(w[0].len(), 8);
            assert!(w[1].start <= w[0].end, "no gaps between generations");
            assert!(w[1].start > w[0].start, "generations advance");
        }
        assert!(l.range(l.generations).is_err());
        assert_eq!(l.symbol_len(20), 7);
        assert_eq!(l.symbol_len(0), 10);
    }

    #[test]
    fn small_objects_have_one_short_generation() {
        let l = Layout::new(&params(64), 25).unwrap();
        assert_eq!((l.symbols, l.span, l.generations), (3, 3, 1));
        assert_eq!(l.range(0).unwrap(), 0..3);
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(LtParams::new(0, 4, 2, DegreeSpec::IdealSoliton).is_err());
        assert!(LtParams::new(70_000, 4, 2, DegreeSpec::IdealSoliton).is_err());
        assert!(LtParams::new(8, 0, 1, DegreeSpec::IdealSoliton).is_err());
        assert!(LtParams::new(8, 4, 5, DegreeSpec::IdealSoliton).is_err());
        assert!(Layout::new(&params(4), 0).is_err());
    }
}
