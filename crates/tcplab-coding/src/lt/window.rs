//! Symbols over an arbitrary window of the object.
//!
//! Generations ([`super::Layout`]) fix where every window sits, which suits a
//! file transfer. A transport whose coding window follows its congestion
//! window (TCP-Forward's "various length window", seed 004 Fig. 4) encodes
//! over whatever `start..start + span` it holds at the time and carries
//! (start, span, seed) in its own header. The degree is drawn from the
//! distribution for `span` (built once per span and cached) and the
//! neighbours are keyed by (start, seed): `SplitMix64::for_key(start, seed)`,
//! the same procedure as generation symbols (see `neighbours`).

use super::distribution::{DegreeDistribution, DegreeSpec};
use super::neighbours::NeighbourSampler;
use crate::error::{CodingError, Result};

/// Degree distributions per window size, and the neighbour sampler.
#[derive(Debug, Clone)]
pub struct WindowSampler {
    spec: DegreeSpec,
    /// `dists[span]`, built on first use.
    dists: Vec<Option<DegreeDistribution>>,
    sampler: NeighbourSampler,
}

impl WindowSampler {
    pub fn new(spec: DegreeSpec) -> Self {
        Self {
            spec,
            dists: Vec::new(),
            sampler: NeighbourSampler::default(),
        }
    }

    /// The distribution for windows of `span` source symbols.
    #[inline]
    pub fn distribution(&mut self, span: u32) -> Result<&DegreeDistribution> {
        self.ensure(span)?;
        Ok(self.dists[span as usize].as_ref().expect("ensured"))
    }

    /// Builds the distribution for `span` unless it is cached (the common case is one
    /// bounds-checked load: this runs for every symbol the simulator codes).
    #[inline]
    fn ensure(&mut self, span: u32) -> Result<()> {
        if matches!(self.dists.get(span as usize), Some(Some(_))) {
            return Ok(());
        }
        self.build(span)
    }

    #[cold]
    fn build(&mut self, span: u32) -> Result<()> {
        if span == 0 {
            return Err(CodingError::InvalidParameter(
                "a coding window holds at least one source symbol".into(),
            ));
        }
        let i = span as usize;
        if self.dists.len() <= i {
            self.dists.resize(i + 1, None);
        }
        self.dists[i] = Some(self.spec.build(span)?);
        Ok(())
    }

    /// Positions (relative to `start`, each below `span`) XORed into symbol
    /// (start, span, seed); their count is the symbol's degree.
    #[inline]
    pub fn neighbours(&mut self, start: u32, span: u32, seed: u32) -> Result<&[u32]> {
        self.ensure(span)?;
        let dist = self.dists[span as usize].as_ref().expect("ensured");
        Ok(self.sampler.sample(dist, span, start, seed))
    }

    /// [`neighbours`](Self::neighbours), appended to `out`.
    #[inline]
    pub fn neighbours_into(
        &mut self,
        start: u32,
        span: u32,
        seed: u32,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        self.ensure(span)?;
        let dist = self.dists[span as usize].as_ref().expect("ensured");
        self.sampler.sample_into(dist, span, start, seed, out);
        Ok(())
    }

    /// The degree of symbol (start, span, seed) alone: the first draw of the same
    /// procedure as [`WindowSampler::neighbours`], without drawing the neighbours (a
    /// sender's cost model needs only how many symbols it XORs).
    #[inline]
    pub fn degree(&mut self, start: u32, span: u32, seed: u32) -> Result<u32> {
        self.ensure(span)?;
        let dist = self.dists[span as usize].as_ref().expect("ensured");
        let mut rng = crate::rng::SplitMix64::for_key(start, seed);
        Ok(dist.sample(&mut rng).min(span))
    }
}

/// Checks that `start..start + span` is a non-empty window inside an object
/// of `symbols` source symbols.
pub(crate) fn check_window(start: u32, span: u32, symbols: u32) -> Result<()> {
    if span == 0 || u64::from(start) + u64::from(span) > u64::from(symbols) {
        return Err(CodingError::WindowOutOfRange {
            start,
            len: span,
            limit_start: 0,
            limit_len: symbols,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_reproducible_and_inside_the_window() {
        let spec = DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 };
        let (mut a, mut b) = (WindowSampler::new(spec.clone()), WindowSampler::new(spec));
        for (start, span) in [(0u32, 1u32), (7, 16), (100, 3), (5, 64)] {
            for seed in 0..200 {
                let x = a.neighbours(start, span, seed).unwrap().to_vec();
                assert!(!x.is_empty() && x.iter().all(|&i| i < span));
                assert_eq!(b.neighbours(start, span, seed).unwrap(), &x[..]);
                assert_eq!(b.degree(start, span, seed).unwrap() as usize, x.len());
            }
        }
        assert!(a.neighbours(0, 0, 1).is_err());
        assert!(check_window(3, 2, 5).is_ok());
        assert!(check_window(4, 2, 5).is_err());
        assert!(check_window(0, 0, 5).is_err());
    }
}
