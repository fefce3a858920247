//! Platform-independent natural logarithm.
//!
//! The Robust Soliton distribution needs `ln`, and its CDF decides which
//! degree a seed maps to on *both* ends of a link. `f64::ln` calls the
//! platform libm, which is not required to be correctly rounded, so two
//! hosts could disagree in the last bit and, for an unlucky seed, pick
//! different degrees. This version uses only IEEE-754 `+ - * /`, which are
//! exactly specified, so every platform computes the same bits.

const LN_2: f64 = std::f64::consts::LN_2;

/// Natural logarithm of a positive, finite `x`; NaN otherwise.
///
/// Accurate to a few ulps: x = 2^e · m with m in [√½, √2), and
/// ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716, summed to 1e-20.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return f64::NAN;
    }
    let mut x = x;
    let mut exp: i32 = 0;
    if x < f64::MIN_POSITIVE {
        // Subnormal: scale into the normal range first (exact).
        x *= 2f64.powi(54);
        exp -= 54;
    }
    let bits = x.to_bits();
    exp += ((bits >> 52) & 0x7ff) as i32 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        exp += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    // atanh(s)/s = Σ s^(2i) / (2i + 1), Horner from the smallest term.
    let mut series = 0.0;
    for i in (0..14).rev() {
        series = series * s2 + 1.0 / f64::from(2 * i + 1);
    }
    f64::from(exp) * LN_2 + 2.0 * s * series
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_libm_to_a_few_ulps() {
        let mut x = 1e-310;
        while x < 1e300 {
            let ours = ln(x);
            let libm = x.ln();
            let tol = 4.0 * f64::EPSILON * libm.abs().max(1.0);
            assert!((ours - libm).abs() <= tol, "x={x} ours={ours} libm={libm}");
            x *= 1.37;
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn rejects_non_positive() {
        assert!(ln(0.0).is_nan());
        assert!(ln(-1.0).is_nan());
        assert!(ln(f64::INFINITY).is_nan());
    }
}
