//! Statistical checks against theory (deterministic seeds, so a pass is
//! reproducible; the tolerances are what a correct implementation meets
//! with overwhelming probability).
//!
//! **LT reception overhead.** The expected number of symbols E[N] that
//! peeling needs, and Var[N], are computed exactly (up to quadrature
//! error < 1e-4·E[N], see `lt::analysis`) from the Robust Soliton
//! distribution with the Poissonised Karp–Luby–Shokrollahi ripple process.
//! The Monte-Carlo mean of N over T trials must lie within
//! 4·sqrt(Var[N]/T) + 1e-3·E[N] of E[N] (4 standard errors plus numerical
//! slack); the sample variance within 30 % of Var[N].
//!
//! **RLNC over GF(2^8).** k uniformly random coefficient vectors in
//! GF(256)^k are independent with probability ∏_{i=1..k}(1 − 256^{-i})
//! ≈ 0.99608. The observed success rate from exactly k symbols must be
//! ≥ 0.99 and within 4 binomial standard errors of that value.

use tcplab_coding::lt::{analysis, DegreeSpec, LtDecoder, LtEncoder, LtParams};
use tcplab_coding::rlnc::{RlncDecoder, RlncEncoder};

fn lt_symbols_needed(params: &LtParams, data: &[u8], trial: u32) -> u32 {
    let mut enc = LtEncoder::new(params.clone(), data).unwrap();
    let mut dec = LtDecoder::new(params.clone(), data.len() as u64).unwrap();
    let mut buf = Vec::new();
    let mut n = 0;
    while !dec.is_complete() {
        enc.encode_into(0, trial * 100_000 + n, &mut buf).unwrap();
        dec.receive(&buf).unwrap();
        n += 1;
    }
    n
}

#[test]
fn lt_robust_soliton_overhead_matches_theory() {
    let (c, delta) = (0.1, 0.5);
    for (k, trials) in [(16u32, 3000u32), (64, 1500), (256, 500)] {
        let params =
            LtParams::single_generation(1, k, DegreeSpec::RobustSoliton { c, delta }).unwrap();
        let data: Vec<u8> = (0..k).map(|i| i as u8).collect();
        let dist = params.degrees.build(k).unwrap();
        let theory = analysis::reception_moments(&dist, k);
        let samples: Vec<f64> = (0..trials)
            .map(|t| f64::from(lt_symbols_needed(&params, &data, t)))
            .collect();
        let n = f64::from(trials);
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let tol = 4.0 * (theory.variance / n).sqrt() + 1e-3 * theory.mean;
        eprintln!(
            "k={k}: measured E[N]/k = {:.4} (sd {:.2}), theory {:.4} (sd {:.2}), tolerance ±{:.4}",
            mean / f64::from(k),
            var.sqrt(),
            theory.mean / f64::from(k),
            theory.variance.sqrt(),
            tol / f64::from(k)
        );
        assert!(
            (mean - theory.mean).abs() <= tol,
            "k={k}: mean {mean} vs theory {} (tol {tol})",
            theory.mean
        );
        assert!(
            (var / theory.variance - 1.0).abs() < 0.3,
            "k={k}: variance {var} vs theory {}",
            theory.variance
        );
    }
}

#[test]
fn rlnc_decodes_from_exactly_k_symbols() {
    for (k, trials) in [(8usize, 3000u32), (32, 3000)] {
        let mut enc = RlncEncoder::new(1, k).unwrap();
        for i in 0..k {
            enc.push(&[i as u8]).unwrap();
        }
        let mut buf = Vec::new();
        let mut ok = 0u32;
        for t in 0..trials {
            let mut dec = RlncDecoder::new(1, k).unwrap();
            for j in 0..k as u32 {
                enc.encode_into(t * 1000 + j, &mut buf).unwrap();
                dec.receive(&buf).unwrap();
            }
            if dec.rank() == k {
                ok += 1;
                assert!((0..k as u32).all(|i| dec.packet(i) == Some(&[i as u8][..])));
            }
        }
        let p: f64 = (1..=k as i32).map(|i| 1.0 - 256f64.powi(-i)).product();
        let rate = f64::from(ok) / f64::from(trials);
        let se = (p * (1.0 - p) / f64::from(trials)).sqrt();
        eprintln!("k={k}: decoded from exactly k in {rate:.4} of {trials} trials (theory {p:.5})");
        assert!(rate >= 0.99, "k={k}: success rate {rate}");
        assert!(
            (rate - p).abs() <= 4.0 * se,
            "k={k}: {rate} vs theory {p} (se {se})"
        );
    }
}
