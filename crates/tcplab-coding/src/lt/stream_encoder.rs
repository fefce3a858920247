//! LT encoder over a stream: source symbols are pushed in order as a sender admits them
//! and dropped once no symbol will combine them, so it holds one sender's coding buffer
//! rather than the whole object (TCP-Forward's sender, seed 004 Sec. IV-A).
//!
//! Symbols are [`WindowSampler`] window symbols, decoded by
//! [`super::LtDecoder::receive_window`], byte for byte the same as
//! [`super::LtEncoder::encode_window_into`] over the whole object.

use super::window::WindowSampler;
use super::DegreeSpec;
use crate::error::{CodingError, Result};
use crate::gf256;

/// A sliding window of source symbols and the window sampler.
#[derive(Debug, Clone)]
pub struct LtStreamEncoder {
    symbol_size: usize,
    /// Index of the first source symbol in `data`.
    base: u32,
    /// Symbols below this are dropped (`base..dropped` are kept until worth moving).
    dropped: u32,
    /// Source symbols `base..`, `symbol_size` bytes each (shorter ones zero-padded).
    data: Vec<u8>,
    windows: WindowSampler,
}

impl LtStreamEncoder {
    pub fn new(symbol_size: usize, degrees: DegreeSpec) -> Result<Self> {
        if symbol_size == 0 {
            return Err(CodingError::InvalidParameter(
                "symbol size must be at least 1".into(),
            ));
        }
        Ok(Self {
            symbol_size,
            base: 0,
            dropped: 0,
            data: Vec::new(),
            windows: WindowSampler::new(degrees),
        })
    }

    /// One past the last source symbol pushed.
    pub fn end(&self) -> u32 {
        self.base + (self.data.len() / self.symbol_size) as u32
    }

    /// Source symbols held (including the dropped ones not yet moved out).
    pub fn held(&self) -> usize {
        self.data.len() / self.symbol_size
    }

    /// Appends the next source symbol (at most `symbol_size` bytes; zero-padded).
    pub fn push(&mut self, bytes: &[u8]) -> Result<u32> {
        let t = self.symbol_size;
        if bytes.len() > t {
            return Err(CodingError::PacketTooLong {
                len: bytes.len(),
                max: t,
            });
        }
        let at = self.data.len();
        self.data.resize(at + t, 0);
        self.data[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(self.end() - 1)
    }

    /// Drops source symbols below `b`: no later symbol may combine them.
    pub fn drop_below(&mut self, b: u32) {
        self.dropped = self.dropped.max(b.min(self.end()));
        let dead = (self.dropped - self.base) as usize;
        if dead > 0 && dead * 2 >= self.held() {
            self.data.drain(..dead * self.symbol_size);
            self.base = self.dropped;
        }
    }

    /// The payload (`symbol_size` bytes) of the symbol over `start..start + span`
    /// keyed by `seed`, written into `out` (replacing its contents; reusing `out`
    /// makes this allocation-free).
    pub fn encode_window_into(
        &mut self,
        start: u32,
        span: u32,
        seed: u32,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let end = u64::from(start) + u64::from(span);
        if span == 0 || start < self.dropped || end > u64::from(self.end()) {
            return Err(CodingError::WindowOutOfRange {
                start,
                len: span,
                limit_start: self.dropped,
                limit_len: self.end() - self.dropped,
            });
        }
        let t = self.symbol_size;
        let rel = self.windows.neighbours(start, span, seed)?;
        let base = self.base;
        let data = &self.data;
        let sym = |i: u32| {
            let s = (start + i - base) as usize * t;
            &data[s..s + t]
        };
        out.clear();
        out.extend_from_slice(sym(rel[0]));
        for &i in &rel[1..] {
            gf256::xor_into(out, sym(i));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lt::{LtEncoder, LtParams};

    #[test]
    fn matches_the_whole_object_encoder_while_sliding() {
        let degrees = DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 };
        let data: Vec<u8> = (0..10 * 300 + 7).map(|i| (i * 31 % 251) as u8).collect();
        let params = LtParams::tcp_forward(10, 16, degrees.clone()).unwrap();
        let mut whole = LtEncoder::new(params, &data).unwrap();
        let mut stream = LtStreamEncoder::new(10, degrees).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut lo = 0u32;
        for (i, chunk) in data.chunks(10).enumerate() {
            assert_eq!(stream.push(chunk).unwrap(), i as u32);
            let end = i as u32 + 1;
            lo = lo.max(end.saturating_sub(16));
            stream.drop_below(lo);
            for seed in 0..3 {
                let span = end - lo;
                whole.encode_window_into(lo, span, seed, &mut a).unwrap();
                stream.encode_window_into(lo, span, seed, &mut b).unwrap();
                assert_eq!(a, b, "window {lo}..{end} seed {seed}");
            }
        }
        assert!(stream.held() <= 32, "held {}", stream.held());
        let e = stream.encode_window_into(lo - 1, 2, 0, &mut b).unwrap_err();
        assert!(matches!(e, CodingError::WindowOutOfRange { .. }), "{e}");
        assert!(stream.encode_window_into(lo, 400, 0, &mut b).is_err());
    }
}
