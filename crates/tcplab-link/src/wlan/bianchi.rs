//! Bianchi's model of saturated DCF (G. Bianchi, "Performance analysis of the IEEE 802.11
//! distributed coordination function", IEEE JSAC 18(3), 2000), with a retry limit.
//!
//! Each of `n` always-busy stations is a Markov chain over (backoff stage i, counter k):
//! stage i draws k uniformly from [0, W_i − 1] with W_i = min(2^i·W, CWmax + 1),
//! W = CWmin + 1; it transmits when k = 0. With a collision probability p that is the same
//! for every attempt, a station transmits in a slot with probability
//!
//!   τ = Σ_{i<R} p^i / Σ_{i<R} p^i·(W_i + 1)/2,          (R = attempts before a drop)
//!
//! (Bianchi's eq. 7 when R → ∞), and p = 1 − (1 − τ)^(n−1). The fixed point gives p; the
//! saturation throughput follows from the slot-length average (Bianchi's eq. 13).
//! The medium model's collision rate is tested against this; docs/wlan.md ("UDP ceilings
//! of the presets") derives the presets' UDP ceilings from the n = 1 case.

use tcplab_core::Dur;

/// τ for collision probability `p` (see the module docs).
pub fn tau(p: f64, cw_min: u32, cw_max: u32, attempts: u32) -> f64 {
    let (mut num, mut den, mut pi) = (0.0, 0.0, 1.0);
    let w = (cw_min as f64) + 1.0;
    for i in 0..attempts {
        let wi = (w * 2f64.powi(i as i32)).min(cw_max as f64 + 1.0);
        num += pi;
        den += pi * (wi + 1.0) / 2.0;
        pi *= p;
    }
    num / den
}

/// The fixed point (τ, p) for `n` saturated stations.
pub fn fixed_point(n: u32, cw_min: u32, cw_max: u32, attempts: u32) -> (f64, f64) {
    if n <= 1 {
        return (tau(0.0, cw_min, cw_max, attempts), 0.0);
    }
    // g(p) = 1 − (1 − τ(p))^(n−1) − p decreases in p: bisect.
    let g = |p: f64| 1.0 - (1.0 - tau(p, cw_min, cw_max, attempts)).powi(n as i32 - 1) - p;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let p = 0.5 * (lo + hi);
    (tau(p, cw_min, cw_max, attempts), p)
}

/// Saturation throughput in payload bit/s (Bianchi's eq. 13): `payload_bits` per
/// successful exchange, `ts` the duration of a success and `tc` of a collision (both
/// including the DIFS that follows), `slot` an idle slot.
pub fn throughput(n: u32, tau: f64, payload_bits: f64, slot: Dur, ts: Dur, tc: Dur) -> f64 {
    let n = n as i32;
    let p_tr = 1.0 - (1.0 - tau).powi(n);
    let p_s = n as f64 * tau * (1.0 - tau).powi(n - 1) / p_tr;
    let mean_slot = (1.0 - p_tr) * slot.as_secs_f64()
        + p_tr * p_s * ts.as_secs_f64()
        + p_tr * (1.0 - p_s) * tc.as_secs_f64();
    p_s * p_tr * payload_bits / mean_slot
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With unlimited retries and the cap at CWmax, τ is Bianchi's closed form (eq. 7):
    /// 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)).
    #[test]
    fn matches_the_closed_form() {
        let (w, m) = (32.0, 5); // CWmin 31, CWmax 1023
        for p in [0.05, 0.2, 0.35] {
            let closed = 2.0 * (1.0 - 2.0 * p)
                / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0f64 * p).powi(m)));
            let ours = tau(p, 31, 1023, 200);
            assert!((ours - closed).abs() < 1e-9, "p={p}: {ours} vs {closed}");
        }
        // One station never collides and transmits every (W + 1)/2 slots on average.
        assert_eq!(fixed_point(1, 15, 1023, 7), (2.0 / 17.0, 0.0));
    }

    /// Bianchi's Table/Figure values grow with n: more stations, more collisions.
    #[test]
    fn collision_probability_grows_with_n() {
        let ps: Vec<f64> = [2, 5, 10, 20, 50]
            .iter()
            .map(|&n| fixed_point(n, 15, 1023, 7).1)
            .collect();
        assert!(ps.windows(2).all(|w| w[0] < w[1]), "{ps:?}");
        assert!(ps[0] > 0.05 && ps[4] < 0.7, "{ps:?}");
    }
}
