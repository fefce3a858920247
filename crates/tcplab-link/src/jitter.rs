//! Per-packet extra delay: its distribution and how one draw is made.
//!
//! Draws come from the link direction's own seeded stream and are computed here (Box–Muller
//! on [`Rng::next_f64`], not a library sampler), so a seed gives the same delays on every
//! platform and release.

use tcplab_core::{Dur, Rng};

/// The distribution of a packet's extra one-way delay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Jitter {
    /// Uniform in `[0, max]` (whole nanoseconds); `max = 0` is no jitter and draws nothing.
    Uniform { max: Dur },
    /// Normal with this mean and standard deviation, negative draws clamped to 0 (a packet
    /// cannot leave before it was sent). Two uniforms per packet; `sd = 0` draws nothing.
    Normal { mean: Dur, sd: Dur },
}

impl Jitter {
    pub const NONE: Jitter = Jitter::Uniform { max: Dur::ZERO };

    /// One packet's extra delay.
    pub fn draw(&self, rng: &mut Rng) -> Dur {
        match *self {
            Jitter::Uniform { max } if max.0 == 0 => Dur::ZERO,
            // Kept exactly as the original uniform jitter so recorded runs stay valid.
            Jitter::Uniform { max } => Dur(rng.below(max.0 + 1)),
            Jitter::Normal { mean, sd } if sd.0 == 0 => mean,
            Jitter::Normal { mean, sd } => {
                let x = mean.0 as f64 + sd.0 as f64 * standard_normal(rng);
                Dur(x.max(0.0).round() as u64)
            }
        }
    }
}

impl Default for Jitter {
    fn default() -> Jitter {
        Jitter::NONE
    }
}

/// A fixed bound `d` means uniform in `[0, d]` (the `jitter = "2ms"` form).
impl From<Dur> for Jitter {
    fn from(max: Dur) -> Jitter {
        Jitter::Uniform { max }
    }
}

/// Box–Muller (cosine branch; the sine half is discarded so each packet costs exactly two
/// uniforms, which keeps streams aligned when parameters change mid-run).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.next_f64(); // (0, 1]: ln is finite
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(j: Jitter, n: usize) -> (f64, f64, f64) {
        let mut rng = Rng::from_seed(11);
        let xs: Vec<f64> = (0..n).map(|_| j.draw(&mut rng).0 as f64 / 1e6).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let zeros = xs.iter().filter(|&&x| x == 0.0).count() as f64 / n as f64;
        (mean, var.sqrt(), zeros)
    }

    #[test]
    fn normal_sample_mean_and_sd() {
        // mean 5 ms, sd 2 ms: clamping moves the mean by < 0.005 ms and the sd by < 0.02 ms.
        let (m, s, _) = moments(
            Jitter::Normal {
                mean: Dur::from_millis(5),
                sd: Dur::from_millis(2),
            },
            200_000,
        );
        assert!((m - 5.0).abs() < 0.03, "mean {m} ms");
        assert!((s - 2.0).abs() < 0.04, "sd {s} ms");
    }

    #[test]
    fn normal_is_clamped_at_zero() {
        // mean 0: half the draws clamp to 0; the rest form a half-normal, mean sd·√(2/π)/2.
        let (m, _, zeros) = moments(
            Jitter::Normal {
                mean: Dur::ZERO,
                sd: Dur::from_millis(2),
            },
            200_000,
        );
        assert!((zeros - 0.5).abs() < 0.01, "fraction at 0: {zeros}");
        let expect = 2.0 / (2.0 * std::f64::consts::PI).sqrt();
        assert!((m - expect).abs() < 0.02, "mean {m} vs {expect}");
    }

    #[test]
    fn uniform_covers_its_range() {
        let (m, s, _) = moments(Dur::from_millis(4).into(), 200_000);
        assert!((m - 2.0).abs() < 0.02, "mean {m}");
        assert!((s - 4.0 / 12f64.sqrt()).abs() < 0.02, "sd {s}");
    }

    #[test]
    fn degenerate_forms_draw_nothing() {
        let mut a = Rng::from_seed(3);
        let b = a.clone();
        assert_eq!(Jitter::NONE.draw(&mut a), Dur::ZERO);
        let fixed = Jitter::Normal {
            mean: Dur::from_millis(3),
            sd: Dur::ZERO,
        };
        assert_eq!(fixed.draw(&mut a), Dur::from_millis(3));
        assert_eq!(a.next_u64(), b.clone().next_u64());
    }
}
