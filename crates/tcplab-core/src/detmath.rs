//! Platform-independent `ln` and `exp`.
//!
//! Results must be identical on every machine, and `f64::ln`/`f64::exp` call the platform
//! libm, which is not required to be correctly rounded: two hosts could disagree in the
//! last bit. The Robust Soliton distribution (its CDF decides which degree a seed maps to
//! on *both* ends of a link) and random periods drawn from exponential and Pareto laws
//! therefore use these versions, built only from IEEE-754 `+ - * /`, which are exactly
//! specified, so every platform computes the same bits.

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

/// e^x for finite `x`, accurate to a few ulps; 0 below about -745, +inf above about 709.
///
/// x = k·ln2 + r with |r| ≤ ln2/2 (ln 2 split in two parts so k·ln2 is exact enough),
/// e^r by its Taylor series to 1e-19, then scaled by 2^k through the exponent bits.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 709.78 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    // fdlibm's split of ln 2: the high part has trailing zero bits, so k·LN2_HI is exact.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    let k = (x / LN_2 + if x < 0.0 { -0.5 } else { 0.5 }) as i32;
    let r = (x - f64::from(k) * LN2_HI) - f64::from(k) * LN2_LO;
    let mut sum = 1.0;
    let mut term = 1.0;
    for i in 1..=18 {
        term = term * r / f64::from(i);
        sum += term;
    }
    // 2^k may fall outside the normal range: apply it in two exact steps.
    let half = k / 2;
    sum * pow2(half) * pow2(k - half)
}

/// 2^k for k in the normal exponent range, built from its bits (exact).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
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
    fn exp_agrees_with_libm_to_a_few_ulps() {
        let mut x = -744.0;
        while x < 709.0 {
            let ours = exp(x);
            let libm = x.exp();
            assert!(
                (ours - libm).abs() <= 4.0 * f64::EPSILON * libm,
                "x={x} ours={ours} libm={libm}"
            );
            x += 0.731;
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert!((exp(ln(7.5)) - 7.5).abs() < 1e-14);
    }

    #[test]
    fn rejects_non_positive() {
        assert!(ln(0.0).is_nan());
        assert!(ln(-1.0).is_nan());
        assert!(ln(f64::INFINITY).is_nan());
    }
}
