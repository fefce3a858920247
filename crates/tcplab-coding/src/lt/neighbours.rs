//! Regenerating an encoded symbol's degree and neighbours from its key.
//!
//! The symbol header carries only (generation, seed); sender and receiver
//! run this same procedure, so the neighbour list never crosses the wire.
//! Procedure (part of the wire format): seed SplitMix64 with
//! `for_key(generation, seed)`, draw the degree d from the distribution
//! (capped at the generation size), then draw d distinct positions with
//! Floyd's algorithm, which needs exactly d bounded draws.

use super::distribution::DegreeDistribution;
use crate::rng::SplitMix64;

/// Reusable scratch space so sampling allocates nothing per symbol.
#[derive(Debug, Clone, Default)]
pub struct NeighbourSampler {
    marks: Vec<u64>,
    picked: Vec<u32>,
}

impl NeighbourSampler {
    pub fn new(span: u32) -> Self {
        Self {
            marks: vec![0; (span as usize).div_ceil(64)],
            picked: Vec::new(),
        }
    }

    /// Positions (0..span, relative to the generation start) XORed into
    /// symbol `seed` of `generation`.
    pub fn sample(
        &mut self,
        dist: &DegreeDistribution,
        span: u32,
        generation: u32,
        seed: u32,
    ) -> &[u32] {
        let mut picked = std::mem::take(&mut self.picked);
        picked.clear();
        self.sample_into(dist, span, generation, seed, &mut picked);
        self.picked = picked;
        &self.picked
    }

    /// [`sample`](Self::sample), appending the positions to `out` (a decoder
    /// fills its own scratch list instead of copying this sampler's).
    #[inline]
    pub fn sample_into(
        &mut self,
        dist: &DegreeDistribution,
        span: u32,
        generation: u32,
        seed: u32,
        out: &mut Vec<u32>,
    ) {
        let mut rng = SplitMix64::for_key(generation, seed);
        let degree = dist.sample(&mut rng).min(span);
        let from = out.len();
        if span <= 64 {
            // Small windows (TCP-Forward's): the marks fit one register, so there
            // is nothing to clear afterwards. Same draws, same picks.
            let mut marks = 0u64;
            for j in span - degree..span {
                let t = rng.below(j + 1);
                let pick = if marks >> t & 1 != 0 { j } else { t };
                marks |= 1 << pick;
                out.push(pick);
            }
            return;
        }
        let words = (span as usize).div_ceil(64);
        if self.marks.len() < words {
            self.marks.resize(words, 0);
        }
        for j in span - degree..span {
            let t = rng.below(j + 1);
            let pick = if self.is_marked(t) { j } else { t };
            self.marks[(pick / 64) as usize] |= 1 << (pick % 64);
            out.push(pick);
        }
        for &p in &out[from..] {
            self.marks[(p / 64) as usize] = 0;
        }
    }

    #[inline]
    fn is_marked(&self, i: u32) -> bool {
        self.marks[(i / 64) as usize] & (1 << (i % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_distinct_in_range_and_reproducible() {
        let dist = DegreeDistribution::robust_soliton(100, 0.1, 0.5).unwrap();
        let mut a = NeighbourSampler::new(100);
        let mut b = NeighbourSampler::new(100);
        for seed in 0..2000 {
            let x = a.sample(&dist, 100, 3, seed).to_vec();
            assert!(!x.is_empty());
            let mut sorted = x.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), x.len(), "distinct");
            assert!(x.iter().all(|&i| i < 100));
            assert_eq!(b.sample(&dist, 100, 3, seed), &x[..]);
        }
    }

    /// The one-register path for spans up to 64 picks exactly what the
    /// general marks-array procedure picks.
    #[test]
    fn small_span_fast_path_matches_the_general_procedure() {
        fn reference(dist: &DegreeDistribution, span: u32, g: u32, seed: u32) -> Vec<u32> {
            let mut rng = SplitMix64::for_key(g, seed);
            let degree = dist.sample(&mut rng).min(span);
            let mut marks = vec![false; span as usize];
            let mut out = Vec::new();
            for j in span - degree..span {
                let t = rng.below(j + 1);
                let pick = if marks[t as usize] { j } else { t };
                marks[pick as usize] = true;
                out.push(pick);
            }
            out
        }
        for span in [1u32, 2, 16, 63, 64, 65, 130] {
            let dist = DegreeDistribution::robust_soliton(span, 0.1, 0.5).unwrap();
            let mut s = NeighbourSampler::default();
            let mut into = vec![7];
            for seed in 0..500 {
                let want = reference(&dist, span, 9, seed);
                assert_eq!(s.sample(&dist, span, 9, seed), &want[..]);
                into.truncate(1);
                s.sample_into(&dist, span, 9, seed, &mut into);
                assert_eq!(into[0], 7);
                assert_eq!(&into[1..], &want[..]);
            }
        }
    }

    #[test]
    fn every_position_is_equally_likely() {
        // Degree-2-only distribution over 10 positions: each position should
        // be picked with probability 2/10.
        let dist = DegreeDistribution::from_weights(&[0.0, 1.0]).unwrap();
        let mut s = NeighbourSampler::new(10);
        let mut counts = [0u32; 10];
        let n = 50_000;
        for seed in 0..n {
            for &i in s.sample(&dist, 10, 0, seed) {
                counts[i as usize] += 1;
            }
        }
        let mean = 2.0 * f64::from(n) / 10.0;
        let sd = (f64::from(n) * 0.2 * 0.8).sqrt();
        for c in counts {
            assert!((f64::from(c) - mean).abs() < 5.0 * sd, "{counts:?}");
        }
    }
}
