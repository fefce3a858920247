//! Loss processes: which packets the channel destroys.

use tcplab_core::Rng;

/// A loss model as configured.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Independent losses with packet error rate `p`.
    Bernoulli {
        p: f64,
    },
    /// Two-state Markov chain (Gilbert–Elliott): per packet, move Good→Bad with `p_gb`,
    /// Bad→Good with `p_bg`, then lose the packet with the current state's loss rate.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Drop exactly these packets, numbered from 1 in the order offered (for tests).
    List {
        drop: Vec<u64>,
    },
}

impl LossModel {
    /// Long-run loss rate, for reports and theory checks.
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossModel::None | LossModel::List { .. } => 0.0,
            LossModel::Bernoulli { p } => *p,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let s = p_gb + p_bg;
                if s == 0.0 {
                    *loss_good
                } else {
                    (p_bg * loss_good + p_gb * loss_bad) / s
                }
            }
        }
    }
}

/// An explicit drop list sorted and without repeats, so `lose_next` can walk it once.
fn normalized(mut model: LossModel) -> LossModel {
    if let LossModel::List { drop } = &mut model {
        drop.sort_unstable();
        drop.dedup();
    }
    model
}

/// The Bernoulli loss rate `p` as an integer bound on the 53 random bits that
/// [`Rng::chance`] compares: `chance(p)` is `p > 0 && k·2⁻⁵³ < p` for the draw's top 53
/// bits `k`, and since scaling by a power of two is exact, that is `k < ⌈p·2⁵³⌉` (0 when
/// `p` is not above 0, or NaN: no draw, as `chance` makes none). One integer comparison
/// per packet instead of a conversion, a multiplication and a float comparison.
fn bernoulli_bound(p: f64) -> u64 {
    if p > 0.0 {
        // Saturates for p·2⁵³ ≥ 2⁶⁴ (p ≥ 2048): every draw is below.
        (p * (1u64 << 53) as f64).ceil() as u64
    } else {
        0
    }
}

/// The bound [`LossProcess::lose_next`] compares for `model` (0 unless Bernoulli).
fn bound_of(model: &LossModel) -> u64 {
    match model {
        LossModel::Bernoulli { p } => bernoulli_bound(*p),
        _ => 0,
    }
}

/// A loss model with its running state and its own random stream.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    rng: Rng,
    bad: bool,
    offered: u64,
    cursor: usize,
    /// A Bernoulli model's [`bernoulli_bound`].
    bound: u64,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: Rng) -> LossProcess {
        let model = normalized(model);
        LossProcess {
            bound: bound_of(&model),
            model,
            rng,
            bad: false,
            offered: 0,
            cursor: 0,
        }
    }

    /// Swaps the model, keeping the random stream and the packet count.
    pub fn set_model(&mut self, model: LossModel) {
        let model = normalized(model);
        if model != self.model {
            self.cursor = 0;
            self.bad = false;
            self.bound = bound_of(&model);
            self.model = model;
        }
    }

    /// Counts `n` packets as offered under no loss model (what a process made late has
    /// missed), so a drop list still numbers packets from the link's first.
    pub fn skip(&mut self, n: u64) {
        self.offered += n;
    }

    pub fn model(&self) -> &LossModel {
        &self.model
    }

    /// Decides the fate of the next packet: true means lost. The Bernoulli model (a
    /// configured packet error rate, the common one) and no loss are decided inline in the
    /// link's admission, the others out of line.
    #[inline(always)]
    pub fn lose_next(&mut self) -> bool {
        self.offered += 1;
        // One test for both: without loss the bound is 0 (`bound_of`).
        if let LossModel::None | LossModel::Bernoulli { .. } = self.model {
            // `self.rng.chance(p)`, exactly (see `bernoulli_bound`).
            return self.bound != 0 && (self.rng.next_u64() >> 11) < self.bound;
        }
        self.lose_next_other()
    }

    /// [`LossProcess::lose_next`] for the models other than Bernoulli.
    #[inline(never)]
    fn lose_next_other(&mut self) -> bool {
        match &self.model {
            LossModel::None | LossModel::Bernoulli { .. } => unreachable!("decided in `lose_next`"),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let flip = if self.bad { *p_bg } else { *p_gb };
                if self.rng.chance(flip) {
                    self.bad = !self.bad;
                }
                let p = if self.bad { *loss_bad } else { *loss_good };
                self.rng.chance(p)
            }
            LossModel::List { drop } => {
                while self.cursor < drop.len() && drop[self.cursor] < self.offered {
                    self.cursor += 1;
                }
                self.cursor < drop.len() && drop[self.cursor] == self.offered
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(model: LossModel, n: usize) -> f64 {
        let mut lp = LossProcess::new(model, Rng::from_seed(3));
        (0..n).filter(|_| lp.lose_next()).count() as f64 / n as f64
    }

    #[test]
    fn bernoulli_rate() {
        let r = rate(LossModel::Bernoulli { p: 0.02 }, 500_000);
        assert!((r - 0.02).abs() < 0.001, "{r}");
    }

    #[test]
    fn gilbert_elliott_rate_and_burstiness() {
        let m = LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.2,
            loss_good: 0.0,
            loss_bad: 0.5,
        };
        let expect = m.mean_loss();
        let r = rate(m.clone(), 1_000_000);
        assert!((r - expect).abs() < 0.003, "{r} vs {expect}");
        // Bursty: P(loss | previous lost) is much larger than the mean.
        let mut lp = LossProcess::new(m, Rng::from_seed(9));
        let (mut prev, mut both, mut lost) = (false, 0u64, 0u64);
        for _ in 0..1_000_000 {
            let l = lp.lose_next();
            if prev && l {
                both += 1;
            }
            if l {
                lost += 1;
            }
            prev = l;
        }
        let cond = both as f64 / lost as f64;
        assert!(cond > 4.0 * expect, "conditional {cond} vs mean {expect}");
    }

    #[test]
    fn bernoulli_bound_decides_as_chance_does() {
        let ps = [
            0.0,
            -0.5,
            f64::NAN,
            f64::MIN_POSITIVE,
            1e-300,
            1e-17,
            0.005,
            0.1,
            1.0 / 3.0,
            0.5,
            1.0 - f64::EPSILON,
            1.0,
            1.5,
            f64::INFINITY,
        ];
        for p in ps {
            let mut lp = LossProcess::new(LossModel::Bernoulli { p }, Rng::from_seed(11));
            let mut r = Rng::from_seed(11);
            for i in 0..20_000 {
                assert_eq!(lp.lose_next(), r.chance(p), "p = {p}, packet {i}");
            }
            // The same draws were taken (none when p is not above 0).
            assert_eq!(lp.rng.next_u64(), r.next_u64(), "p = {p}");
        }
        // Draws on both sides of the bound: k = ⌈p·2⁵³⌉ − 1 is lost, k = ⌈p·2⁵³⌉ is not.
        let p = 0.1;
        let b = bernoulli_bound(p);
        assert!(((b - 1) as f64) * (1.0 / (1u64 << 53) as f64) < p);
        assert!((b as f64) * (1.0 / (1u64 << 53) as f64) >= p);
    }

    #[test]
    fn list_drops_exactly() {
        let mut lp = LossProcess::new(
            LossModel::List {
                drop: vec![5, 2, 5],
            },
            Rng::from_seed(0),
        );
        let lost: Vec<u64> = (1..=8).filter(|_| lp.lose_next()).collect();
        assert_eq!(lost, vec![2, 5]);
    }
}
