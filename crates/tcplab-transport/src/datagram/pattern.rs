//! When a datagram source sends: constant bit rate, on/off periods, or a packet trace.

use std::sync::Arc;
use tcplab_core::{detmath, Dur, Rng};

/// The length of an on or off period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Period {
    Constant(Dur),
    /// Exponentially distributed with this mean (ns-3 `ExponentialRandomVariable`).
    Exponential {
        mean: Dur,
    },
    /// Pareto with this mean and shape α > 1 (scale = mean·(α−1)/α, as ns-3's
    /// `ParetoRandomVariable` with its `Mean` attribute): heavy-tailed bursts.
    Pareto {
        mean: Dur,
        shape: f64,
    },
}

impl Period {
    /// Draws one period from `rng` (platform-independent arithmetic: same bits everywhere).
    pub fn draw(&self, rng: &mut Rng) -> Dur {
        match *self {
            Period::Constant(d) => d,
            Period::Exponential { mean } => {
                // 1 − U is in (0, 1], so the logarithm is finite.
                let u = 1.0 - rng.next_f64();
                Dur::from_secs_f64(-mean.as_secs_f64() * detmath::ln(u))
            }
            Period::Pareto { mean, shape } => {
                let scale = mean.as_secs_f64() * (shape - 1.0) / shape;
                let u = 1.0 - rng.next_f64();
                // scale / u^(1/α) = scale · e^(−ln(u)/α)
                Dur::from_secs_f64(scale * detmath::exp(-detmath::ln(u) / shape))
            }
        }
    }

    pub fn mean(&self) -> Dur {
        match *self {
            Period::Constant(d) => d,
            Period::Exponential { mean } | Period::Pareto { mean, .. } => mean,
        }
    }
}

/// When datagrams leave.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Back to back at `rate_bps` (counting bytes on the wire, headers included, like link
    /// rates), from the flow's start.
    Cbr { rate_bps: u64 },
    /// At `rate_bps` during on periods, silent during off periods; starts with an on period.
    OnOff {
        rate_bps: u64,
        on: Period,
        off: Period,
    },
    /// One datagram at each millisecond timestamp (Mahimahi format: a line per packet);
    /// the trace repeats with a period equal to its last timestamp.
    Trace { ms: Arc<[u64]> },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_of(p: Period, n: usize) -> f64 {
        let mut rng = Rng::from_seed(7);
        (0..n).map(|_| p.draw(&mut rng).as_secs_f64()).sum::<f64>() / n as f64
    }

    #[test]
    fn draws_have_the_stated_means() {
        let m = Dur::from_millis(200);
        assert!((mean_of(Period::Constant(m), 10) - 0.2).abs() < 1e-12);
        let e = mean_of(Period::Exponential { mean: m }, 200_000);
        assert!((e - 0.2).abs() < 0.004, "exponential mean {e}");
        // α = 2.5 has a finite variance, so the sample mean converges reasonably fast.
        let p = mean_of(
            Period::Pareto {
                mean: m,
                shape: 2.5,
            },
            400_000,
        );
        assert!((p - 0.2).abs() < 0.006, "pareto mean {p}");
    }

    #[test]
    fn pareto_never_draws_below_its_scale() {
        let mut rng = Rng::from_seed(3);
        let p = Period::Pareto {
            mean: Dur::from_millis(300),
            shape: 1.5,
        };
        let scale = 0.3 * 0.5 / 1.5;
        for _ in 0..10_000 {
            assert!(p.draw(&mut rng).as_secs_f64() >= scale - 1e-9);
        }
    }
}
