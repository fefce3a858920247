//! Degree distributions for LT codes (Luby 2002; seed 004, Defs. IV.1–IV.2).
//!
//! A distribution is stored as cumulative 32-bit thresholds, and the
//! probabilities reported by [`DegreeDistribution::pmf`] are the ones those
//! thresholds realise. The sampler and the overhead analysis therefore use
//! the very same numbers, and the thresholds are computed with
//! platform-independent arithmetic so both ends of a link agree bit for bit.

use crate::error::{CodingError, Result};
use crate::rng::SplitMix64;
use tcplab_core::detmath;

/// Which degree distribution an LT code uses; instantiated per generation
/// size by [`DegreeSpec::build`].
#[derive(Debug, Clone, PartialEq)]
pub enum DegreeSpec {
    /// ρ(1) = 1/k, ρ(i) = 1/(i(i−1)) for i = 2..k.
    IdealSoliton,
    /// (ρ + τ)/β with R = c·ln(k/δ)·√k (seed 004, Def. IV.2).
    RobustSoliton { c: f64, delta: f64 },
    /// Any distribution: `weights[d − 1]` is the relative weight of degree
    /// d. Mass on degrees above the generation size is moved to degree k.
    Custom(Vec<f64>),
}

impl DegreeSpec {
    /// The distribution for generations of `k` source symbols.
    pub fn build(&self, k: u32) -> Result<DegreeDistribution> {
        match self {
            DegreeSpec::IdealSoliton => DegreeDistribution::ideal_soliton(k),
            DegreeSpec::RobustSoliton { c, delta } => {
                DegreeDistribution::robust_soliton(k, *c, *delta)
            }
            DegreeSpec::Custom(w) => {
                if k == 0 {
                    return Err(CodingError::InvalidParameter(
                        "generation size must be at least 1".into(),
                    ));
                }
                let k = k as usize;
                let mut folded: Vec<f64> = w.iter().copied().take(k).collect();
                let excess: f64 = w.iter().skip(k).sum();
                if let Some(last) = folded.last_mut() {
                    if w.len() > k {
                        *last += excess;
                    }
                }
                DegreeDistribution::from_weights(&folded)
            }
        }
    }
}

/// A probability distribution over degrees `1..=max_degree()`.
#[derive(Debug, Clone, PartialEq)]
pub struct DegreeDistribution {
    /// `thresholds[d − 1]` = P(degree ≤ d) · 2^32, rounded; the last is 2^32.
    thresholds: Vec<u64>,
    /// `guide[b]` = how many thresholds are ≤ b·2^24 (b = 0..=256): a draw whose top
    /// byte is b has its degree index in `guide[b]..=guide[b + 1]`, so sampling
    /// searches that short stretch instead of the whole table (same result).
    guide: Vec<u32>,
}

const SCALE: f64 = 4_294_967_296.0; // 2^32

impl DegreeDistribution {
    /// Ideal Soliton over `k` source symbols (seed 004, Def. IV.1).
    pub fn ideal_soliton(k: u32) -> Result<Self> {
        if k == 0 {
            return Err(CodingError::InvalidParameter(
                "Ideal Soliton needs k >= 1".into(),
            ));
        }
        Self::from_weights(&ideal_weights(k))
    }

    /// Robust Soliton over `k` source symbols (seed 004, Def. IV.2).
    ///
    /// R = c·ln(k/δ)·√k; τ(i) = R/(ik) for i < m, τ(m) = R·ln(R/δ)/k, zero
    /// above, with the spike at m = ⌊k/R⌋ clamped to 1..=k (the definition
    /// assumes k/R is an integer). τ(m) is clamped at 0 when R < δ, which
    /// only happens for tiny k. μ = (ρ + τ)/β.
    pub fn robust_soliton(k: u32, c: f64, delta: f64) -> Result<Self> {
        if k == 0 {
            return Err(CodingError::InvalidParameter(
                "Robust Soliton needs k >= 1".into(),
            ));
        }
        if !(c.is_finite() && c > 0.0) {
            return Err(CodingError::InvalidParameter(format!(
                "Robust Soliton needs c > 0, got {c}"
            )));
        }
        if !(delta.is_finite() && delta > 0.0 && delta < 1.0) {
            return Err(CodingError::InvalidParameter(format!(
                "Robust Soliton needs 0 < delta < 1, got {delta}"
            )));
        }
        let kf = f64::from(k);
        let r = c * detmath::ln(kf / delta) * kf.sqrt();
        // Float-to-int `as` saturates, so a huge k/R cannot wrap.
        let spike = ((kf / r).floor() as u64).clamp(1, u64::from(k)) as usize;
        let mut w = ideal_weights(k);
        for (idx, wi) in w.iter_mut().enumerate().take(spike) {
            let i = (idx + 1) as f64;
            let tau = if idx + 1 < spike {
                r / (i * kf)
            } else {
                (r * detmath::ln(r / delta) / kf).max(0.0)
            };
            *wi += tau;
        }
        Self::from_weights(&w)
    }

    /// Any distribution given by non-negative weights, `weights[d − 1]` for
    /// degree d; they are normalised (dividing by their sum, β).
    pub fn from_weights(weights: &[f64]) -> Result<Self> {
        if weights.is_empty() || weights.len() > u32::MAX as usize {
            return Err(CodingError::InvalidParameter(
                "degree weights must cover at least degree 1".into(),
            ));
        }
        if weights.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(CodingError::InvalidParameter(
                "degree weights must be finite and non-negative".into(),
            ));
        }
        let total: f64 = weights.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Err(CodingError::InvalidParameter(
                "degree weights must have a positive finite sum".into(),
            ));
        }
        let mut cum = 0.0;
        let mut thresholds: Vec<u64> = weights
            .iter()
            .map(|w| {
                cum += w / total;
                ((cum * SCALE).round() as u64).min(1 << 32)
            })
            .collect();
        // Drop trailing degrees that rounded to zero probability, and make
        // the last threshold exact so every draw maps to a degree.
        while thresholds.len() > 1 && thresholds[thresholds.len() - 2] >= 1 << 32 {
            thresholds.pop();
        }
        *thresholds.last_mut().expect("non-empty") = 1 << 32;
        let guide = (0..=256u64)
            .map(|b| thresholds.partition_point(|&t| t <= b << 24) as u32)
            .collect();
        Ok(Self { thresholds, guide })
    }

    /// Largest degree with non-zero probability (or the declared maximum).
    pub fn max_degree(&self) -> u32 {
        self.thresholds.len() as u32
    }

    /// P(degree = d) as realised by the sampler.
    pub fn probability(&self, d: u32) -> f64 {
        if d == 0 || d > self.max_degree() {
            return 0.0;
        }
        let i = d as usize - 1;
        let below = if i == 0 { 0 } else { self.thresholds[i - 1] };
        (self.thresholds[i] - below) as f64 / SCALE
    }

    /// The probability mass function, index `d − 1` for degree d.
    pub fn pmf(&self) -> Vec<f64> {
        (1..=self.max_degree())
            .map(|d| self.probability(d))
            .collect()
    }

    /// Expected degree (the mean number of XORs per encoded symbol).
    pub fn mean(&self) -> f64 {
        (1..=self.max_degree())
            .map(|d| f64::from(d) * self.probability(d))
            .sum()
    }

    /// Draw a degree with 32 random bits.
    #[inline]
    pub fn sample(&self, rng: &mut SplitMix64) -> u32 {
        let x = u64::from(rng.next_u32());
        let b = (x >> 24) as usize;
        let (lo, hi) = (self.guide[b] as usize, self.guide[b + 1] as usize);
        (lo + self.thresholds[lo..hi].partition_point(|&t| t <= x)) as u32 + 1
    }
}

/// Unnormalised Ideal Soliton weights (they already sum to 1).
fn ideal_weights(k: u32) -> Vec<f64> {
    let kf = f64::from(k);
    (1..=k)
        .map(|i| {
            if i == 1 {
                1.0 / kf
            } else {
                let i = f64::from(i);
                1.0 / (i * (i - 1.0))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn ideal_soliton_matches_definition() {
        let d = DegreeDistribution::ideal_soliton(10).unwrap();
        assert!(close(d.probability(1), 0.1));
        for i in 2..=10u32 {
            let i_f = f64::from(i);
            assert!(close(d.probability(i), 1.0 / (i_f * (i_f - 1.0))));
        }
        assert!(close(d.pmf().iter().sum(), 1.0));
        assert_eq!(d.probability(11), 0.0);
    }

    #[test]
    fn robust_soliton_matches_definition() {
        // k = 100, c = 0.1, delta = 0.05: R = 0.1·ln(2000)·10 ≈ 7.6009,
        // spike at ⌊100/7.6009⌋ = 13.
        let (k, c, delta) = (100u32, 0.1, 0.05);
        let d = DegreeDistribution::robust_soliton(k, c, delta).unwrap();
        let kf = 100.0f64;
        let r = c * (kf / delta).ln() * kf.sqrt();
        assert_eq!((kf / r).floor(), 13.0);
        let rho = |i: f64| {
            if i == 1.0 {
                1.0 / kf
            } else {
                1.0 / (i * (i - 1.0))
            }
        };
        let tau = |i: f64| {
            if i < 13.0 {
                r / (i * kf)
            } else if i == 13.0 {
                r * (r / delta).ln() / kf
            } else {
                0.0
            }
        };
        let beta: f64 = (1..=k).map(|i| rho(f64::from(i)) + tau(f64::from(i))).sum();
        for i in 1..=k {
            let i_f = f64::from(i);
            let want = (rho(i_f) + tau(i_f)) / beta;
            assert!(
                (d.probability(i) - want).abs() < 1e-9,
                "degree {i}: {} vs {want}",
                d.probability(i)
            );
        }
    }

    /// The guided search gives what a search of the whole table gives.
    #[test]
    fn guided_sampling_matches_a_full_search() {
        for k in [1u32, 2, 16, 64, 1000, 20_000] {
            let d = DegreeDistribution::robust_soliton(k, 0.1, 0.5).unwrap();
            let mut a = SplitMix64::new(u64::from(k));
            let mut b = a.clone();
            for _ in 0..20_000 {
                let x = u64::from(b.next_u32());
                let full = d.thresholds.partition_point(|&t| t <= x) as u32 + 1;
                assert_eq!(d.sample(&mut a), full);
            }
            // Draws exactly on bucket edges and thresholds.
            for &t in d.thresholds.iter().chain(&[0, 1 << 24, (1 << 32) - 1]) {
                for x in [t.saturating_sub(1), t] {
                    if x < 1 << 32 {
                        let full = d.thresholds.partition_point(|&u| u <= x);
                        let bk = (x >> 24) as usize;
                        let (lo, hi) = (d.guide[bk] as usize, d.guide[bk + 1] as usize);
                        assert_eq!(lo + d.thresholds[lo..hi].partition_point(|&u| u <= x), full);
                    }
                }
            }
        }
    }

    #[test]
    fn sampler_frequencies_follow_pmf() {
        let d = DegreeDistribution::robust_soliton(64, 0.1, 0.5).unwrap();
        let mut rng = SplitMix64::new(5);
        let n = 200_000;
        let mut counts = vec![0u32; 65];
        for _ in 0..n {
            counts[d.sample(&mut rng) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for deg in 1..=64u32 {
            let p = d.probability(deg);
            let mean = p * f64::from(n);
            let sd = (mean * (1.0 - p)).sqrt();
            let got = f64::from(counts[deg as usize]);
            assert!(
                (got - mean).abs() <= 5.0 * sd + 1.0,
                "degree {deg}: {got} vs {mean}"
            );
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(DegreeDistribution::ideal_soliton(0).is_err());
        assert!(DegreeDistribution::robust_soliton(10, 0.0, 0.5).is_err());
        assert!(DegreeDistribution::robust_soliton(10, 0.1, 1.0).is_err());
        assert!(DegreeDistribution::robust_soliton(10, f64::NAN, 0.5).is_err());
        assert!(DegreeDistribution::from_weights(&[]).is_err());
        assert!(DegreeDistribution::from_weights(&[0.0, 0.0]).is_err());
        assert!(DegreeDistribution::from_weights(&[1.0, -1.0]).is_err());
    }

    #[test]
    fn custom_weights_fold_into_small_generations() {
        let spec = DegreeSpec::Custom(vec![1.0, 1.0, 1.0, 1.0]);
        let d = spec.build(2).unwrap();
        assert_eq!(d.max_degree(), 2);
        assert!(close(d.probability(1), 0.25));
        assert!(close(d.probability(2), 0.75));
        let tiny = DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 }
            .build(1)
            .unwrap();
        assert_eq!(tiny.max_degree(), 1);
    }
}
