//! Exact reception-overhead analysis of LT peeling decoding.
//!
//! Question: how many encoded symbols N does the (online) peeling decoder
//! need before all k source symbols are recovered? Peeling's final state does
//! not depend on processing order, so N > n exactly when the first n symbols
//! do not decode, and E[N] = Σ_n P(fail with n symbols).
//!
//! **Poissonisation.** Let the number of received symbols be Poisson(λ).
//! Then the numbers of symbols with each particular neighbour set are
//! independent Poisson variables, and the decoder state collapses to one
//! number, the ripple size r (unrecovered source symbols that have a reduced
//! degree-one symbol). Process one ripple member x while u source symbols
//! are unrecovered: for each other unrecovered y, the symbols released onto
//! y are those whose unrecovered neighbours are exactly {x, y}; their count
//! is Poisson(λ·a(u)) with
//!
//! a(u) = Σ_{d≥2} Ω(d) · C(k − u, d − 2) / C(k, d),
//!
//! independent of the history (the history only involved symbols of other
//! neighbour sets). Hence r' = r − 1 + Binomial(u − r, 1 − e^{−λ a(u)}),
//! starting from r ~ Binomial(k, 1 − e^{−λ Ω(1)/k}); decoding fails when
//! r = 0 while u > 0. This is the Karp–Luby–Shokrollahi ("Finite length
//! analysis of LT codes", ISIT 2004) ripple process in Poissonised form and
//! costs O(k · support) per λ.
//!
//! **De-Poissonisation.** With S(λ) the success probability at Poisson mean
//! λ and s_n the one at exactly n symbols, ∫₀^∞ e^{−λ}λⁿ/n! dλ = 1 gives
//! E[N] = Σ_n (1 − s_n) = ∫₀^∞ (1 − S(λ)) dλ, and likewise
//! Σ_n (n + 1)(1 − s_n) = ∫₀^∞ λ(1 − S(λ)) dλ, which yields Var[N]. Both
//! integrals are evaluated with adaptive Simpson quadrature.

use super::distribution::DegreeDistribution;

/// Moments of N, the number of symbols needed to decode one generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReceptionMoments {
    pub mean: f64,
    pub variance: f64,
}

impl ReceptionMoments {
    /// Mean reception overhead factor E[N]/k.
    pub fn overhead(&self, k: u32) -> f64 {
        self.mean / f64::from(k)
    }
}

/// Probability that peeling recovers all `k` source symbols from a
/// Poisson(`lambda`) number of received symbols. Degrees above `k` are
/// treated as degree `k`, as the encoder does.
pub fn poisson_success_probability(dist: &DegreeDistribution, k: u32, lambda: f64) -> f64 {
    RippleChain::new(dist, k).run(lambda).0
}

/// E[N] and Var[N] for one generation of `k` source symbols.
pub fn reception_moments(dist: &DegreeDistribution, k: u32) -> ReceptionMoments {
    reception_moments_with(dist, k, 1e-7)
}

/// As [`reception_moments`], integrating to an absolute error of about
/// `rel_tol · k` symbols (adaptive Simpson).
pub fn reception_moments_with(dist: &DegreeDistribution, k: u32, rel_tol: f64) -> ReceptionMoments {
    let chain = RippleChain::new(dist, k);
    let kf = f64::from(k.max(1));
    // The failure probability F(λ) is 1 below `lo` to 1e-13 (bisection on
    // the success probability), so ∫₀^lo F ≈ lo and ∫₀^lo λF ≈ lo²/2.
    let (mut a, mut b) = (0.0, kf);
    for _ in 0..30 {
        let mid = 0.5 * (a + b);
        if chain.run(mid).0 < 1e-13 {
            a = mid;
        } else {
            b = mid;
        }
    }
    let lo = a;
    // Beyond `hi` the failure probability is negligible. Failure mass is
    // accumulated directly (not as 1 − success), so it is accurate even
    // where it is tiny.
    let mut hi = lo + kf;
    while chain.run(hi).1 > 1e-12 && hi < 1e7 {
        hi += hi - lo;
    }
    let f = |x: f64| {
        let fail = chain.run(x).1;
        [fail, x * fail]
    };
    let fa = f(lo);
    let fb = f(hi);
    let m = 0.5 * (lo + hi);
    let fm = f(m);
    let whole = simpson(lo, hi, fa, fm, fb);
    let tol = rel_tol * kf;
    let [i0, i1] = adaptive_simpson(&f, lo, hi, fa, fm, fb, whole, tol, 40);
    let mean = lo + i0;
    let second = 0.5 * lo * lo + i1; // Σ (n + 1) P(N > n) = ∫ λ F(λ) dλ
    let variance = (2.0 * second - mean - mean * mean).max(0.0);
    ReceptionMoments { mean, variance }
}

fn simpson(a: f64, b: f64, fa: [f64; 2], fm: [f64; 2], fb: [f64; 2]) -> [f64; 2] {
    let h = (b - a) / 6.0;
    [
        h * (fa[0] + 4.0 * fm[0] + fb[0]),
        h * (fa[1] + 4.0 * fm[1] + fb[1]),
    ]
}

/// Adaptive Simpson on a pair of integrands; the error test uses the first
/// component and the second scaled by the interval's right end.
#[allow(clippy::too_many_arguments)]
fn adaptive_simpson(
    f: &dyn Fn(f64) -> [f64; 2],
    a: f64,
    b: f64,
    fa: [f64; 2],
    fm: [f64; 2],
    fb: [f64; 2],
    whole: [f64; 2],
    tol: f64,
    depth: u32,
) -> [f64; 2] {
    let m = 0.5 * (a + b);
    let flm = f(0.5 * (a + m));
    let frm = f(0.5 * (m + b));
    let left = simpson(a, m, fa, flm, fm);
    let right = simpson(m, b, fm, frm, fb);
    let e0 = left[0] + right[0] - whole[0];
    let e1 = (left[1] + right[1] - whole[1]) / b.max(1.0);
    if depth == 0 || (e0.abs() <= 15.0 * tol && e1.abs() <= 15.0 * tol) {
        return [
            left[0] + right[0] + e0 / 15.0,
            left[1] + right[1] + (left[1] + right[1] - whole[1]) / 15.0,
        ];
    }
    let l = adaptive_simpson(f, a, m, fa, flm, fm, left, tol / 2.0, depth - 1);
    let r = adaptive_simpson(f, m, b, fm, frm, fb, right, tol / 2.0, depth - 1);
    [l[0] + r[0], l[1] + r[1]]
}

/// Precomputed per-step quantities of the ripple process.
struct RippleChain {
    k: usize,
    /// Ω(1)/k: Poisson rate of degree-one symbols per source, per unit λ.
    single_rate: f64,
    /// a(u) for u = 0..=k (index u).
    release_rate: Vec<f64>,
    ln_fact: Vec<f64>,
}

impl RippleChain {
    fn new(dist: &DegreeDistribution, k: u32) -> Self {
        let k = k as usize;
        let mut ln_fact = vec![0.0; k + 2];
        for i in 1..ln_fact.len() {
            ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
        }
        let ln_choose = |n: usize, r: usize| ln_fact[n] - ln_fact[r] - ln_fact[n - r];
        // Fold degrees above k into k, as the encoder caps them.
        let mut omega = vec![0.0; k + 1];
        for d in 1..=dist.max_degree() as usize {
            omega[d.min(k)] += dist.probability(d as u32);
        }
        let mut release_rate = vec![0.0; k + 1];
        for (u, rate) in release_rate.iter_mut().enumerate().skip(1) {
            let processed = k - u;
            let mut a = 0.0;
            for (d, &p) in omega.iter().enumerate().skip(2) {
                if p == 0.0 || d - 2 > processed {
                    continue;
                }
                a += p * (ln_choose(processed, d - 2) - ln_choose(k, d)).exp();
            }
            *rate = a;
        }
        Self {
            k,
            single_rate: if k == 0 { 0.0 } else { omega[1] / k as f64 },
            release_rate,
            ln_fact,
        }
    }

    /// (success, failure) probabilities at Poisson mean `lambda`. They sum
    /// to 1 minus the (negligible) mass trimmed from the tails.
    fn run(&self, lambda: f64) -> (f64, f64) {
        let k = self.k;
        if k == 0 {
            return (1.0, 0.0);
        }
        let mut p = vec![0.0; k + 1];
        let mut q = vec![0.0; k + 1];
        let mut binom = Vec::with_capacity(k + 1);
        let first = self.binomial(k, -(-lambda * self.single_rate).exp_m1(), &mut binom);
        p[first..first + binom.len()].copy_from_slice(&binom);
        let (mut lo, mut hi) = (first, first + binom.len() - 1);
        let mut failure = 0.0;
        for u in (1..=k).rev() {
            // An empty ripple with u > 0 unrecovered is a decoding failure.
            if lo == 0 {
                failure += p[0];
            }
            let pi = -(-lambda * self.release_rate[u]).exp_m1();
            q[..u].fill(0.0);
            let (mut nlo, mut nhi) = (u, 0);
            let (from, to) = (lo.max(1), hi.min(u));
            for (r, &mass) in p.iter().enumerate().take(to + 1).skip(from) {
                if mass < 1e-20 {
                    continue;
                }
                let first = self.binomial(u - r, pi, &mut binom);
                let base = r - 1 + first;
                for (j, &b) in binom.iter().enumerate() {
                    q[base + j] += mass * b;
                }
                nlo = nlo.min(base);
                nhi = nhi.max(base + binom.len() - 1);
            }
            std::mem::swap(&mut p, &mut q);
            if nlo > nhi {
                return (0.0, failure);
            }
            lo = nlo;
            hi = nhi;
        }
        (p[0], failure)
    }

    /// Binomial(n, p) probabilities over its numerically relevant support:
    /// returns the first index and fills `out` with consecutive values,
    /// trimmed where they fall below 1e-18 of the mode (negligible mass).
    /// Work is proportional to the support, not to n.
    fn binomial(&self, n: usize, p: f64, out: &mut Vec<f64>) -> usize {
        out.clear();
        if p <= 0.0 || n == 0 {
            out.push(1.0);
            return 0;
        }
        if p >= 1.0 {
            out.push(1.0);
            return n;
        }
        let mode = (((n + 1) as f64) * p).floor().min(n as f64) as usize;
        let ln_mode = self.ln_fact[n] - self.ln_fact[mode] - self.ln_fact[n - mode]
            + mode as f64 * p.ln()
            + (n - mode) as f64 * (-p).ln_1p();
        let odds = p / (1.0 - p);
        let floor = 1e-18;
        let peak = ln_mode.exp();
        // Walk down from the mode (stored reversed), then up.
        let mut v = peak;
        let mut j = mode;
        while j > 0 {
            v *= j as f64 / (n - j + 1) as f64 / odds;
            if v < floor * peak {
                break;
            }
            out.push(v);
            j -= 1;
        }
        let first = mode - out.len();
        out.reverse();
        out.push(peak);
        let mut v = peak;
        for j in mode..n {
            v *= (n - j) as f64 / (j + 1) as f64 * odds;
            if v < floor * peak {
                break;
            }
            out.push(v);
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact E[N] by brute force for tiny k: track the distribution over
    /// *sets of distinct neighbour sets received*, which is all peeling
    /// depends on, adding one symbol at a time.
    fn brute_force_mean(dist: &DegreeDistribution, k: usize) -> f64 {
        // Neighbour sets as bitmasks over k sources, with their probability.
        // Degrees above k are sent as degree k.
        let p_degree = |d: u32| {
            if d < k as u32 {
                dist.probability(d)
            } else {
                (d..=dist.max_degree().max(d))
                    .map(|e| dist.probability(e))
                    .sum()
            }
        };
        let mut types = Vec::new();
        for mask in 1u32..(1 << k) {
            let d = mask.count_ones();
            let choose = (0..d).fold(1.0, |acc, i| {
                acc * f64::from(k as u32 - i) / f64::from(i + 1)
            });
            types.push((mask, p_degree(d) / choose));
        }
        let decodes = |set: u64| {
            let mut known = 0u32;
            loop {
                let mut progress = false;
                for (t, &(mask, _)) in types.iter().enumerate() {
                    if set & (1 << t) != 0 {
                        let rest = mask & !known;
                        if rest.count_ones() == 1 {
                            known |= rest;
                            progress = true;
                        }
                    }
                }
                if !progress {
                    return known == (1 << k) - 1;
                }
            }
        };
        let states = 1usize << types.len();
        let ok: Vec<bool> = (0..states as u64).map(decodes).collect();
        let mut prob = vec![0.0; states];
        prob[0] = 1.0;
        let mut mean = 0.0;
        for _n in 0..2000 {
            let fail: f64 = prob
                .iter()
                .zip(&ok)
                .filter(|(_, &o)| !o)
                .map(|(p, _)| p)
                .sum();
            mean += fail;
            if fail < 1e-15 {
                break;
            }
            let mut next = vec![0.0; states];
            for (s, &ps) in prob.iter().enumerate() {
                if ps == 0.0 {
                    continue;
                }
                for (t, &(_, pt)) in types.iter().enumerate() {
                    next[s | (1 << t)] += ps * pt;
                }
            }
            prob = next;
        }
        mean
    }

    #[test]
    fn matches_brute_force_for_tiny_generations() {
        for k in 2..=4u32 {
            for dist in [
                DegreeDistribution::robust_soliton(k, 0.3, 0.5).unwrap(),
                DegreeDistribution::ideal_soliton(k).unwrap(),
                DegreeDistribution::from_weights(&[0.3, 0.5, 0.2]).unwrap(),
            ] {
                let exact = brute_force_mean(&dist, k as usize);
                let ours = reception_moments_with(&dist, k, 1e-9).mean;
                assert!(
                    (ours - exact).abs() < 1e-6 * exact,
                    "k={k}: analysis {ours} vs brute force {exact}"
                );
            }
        }
    }

    #[test]
    fn quadrature_has_converged() {
        let dist = DegreeDistribution::robust_soliton(256, 0.1, 0.05).unwrap();
        let a = reception_moments_with(&dist, 256, 1e-5);
        let b = reception_moments_with(&dist, 256, 1e-8);
        assert!((a.mean - b.mean).abs() < 1e-4 * b.mean, "{a:?} vs {b:?}");
        assert!((a.variance - b.variance).abs() < 1e-3 * b.variance);
    }

    #[test]
    fn success_probability_is_monotone_and_bounded() {
        let dist = DegreeDistribution::robust_soliton(64, 0.1, 0.5).unwrap();
        let mut last = 0.0;
        for lambda in (0..400).map(f64::from) {
            let s = poisson_success_probability(&dist, 64, lambda);
            assert!((0.0..=1.0 + 1e-12).contains(&s));
            assert!(s + 1e-12 >= last, "S must grow with lambda");
            last = s;
        }
        assert!(last > 0.999);
    }
}
