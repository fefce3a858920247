//! Runs the cargo-fuzz entry points on stable: random byte strings, and
//! valid symbols with random mutations (which reach deeper than pure noise).

use tcplab_coding::fuzzing::{lt_decoder_input, rlnc_decoder_input, Exercised};
use tcplab_coding::lt::{DegreeSpec, LtEncoder, LtParams};
use tcplab_coding::rlnc::RlncEncoder;
use tcplab_coding::rng::SplitMix64;

fn random_bytes(rng: &mut SplitMix64, max: u32) -> Vec<u8> {
    let mut v = vec![0; rng.below(max) as usize];
    rng.fill_bytes(&mut v);
    v
}

/// A valid symbol, length-prefixed as the entry points expect, with a few
/// random byte flips or truncation.
fn mutated(rng: &mut SplitMix64, mut sym: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.below(3) {
        let i = rng.below(sym.len() as u32) as usize;
        sym[i] ^= 1 << rng.below(8);
    }
    if rng.below(4) == 0 {
        let keep = rng.below(sym.len() as u32 + 1) as usize;
        sym.truncate(keep);
    }
    let mut out = vec![sym.len().min(47) as u8];
    out.extend_from_slice(&sym[..sym.len().min(47)]);
    out
}

#[test]
fn lt_entry_survives_garbage() {
    let mut rng = SplitMix64::new(1);
    let mut ex = Exercised::default();
    for _ in 0..3000 {
        ex += lt_decoder_input(&random_bytes(&mut rng, 200));
    }
    for round in 0..1000u32 {
        // Mirror the entry's parameter derivation so the symbols fit it.
        let mut input = vec![rng.below(8) as u8, rng.below(6) as u8, rng.below(256) as u8];
        let params = LtParams::tcp_forward(
            1 + usize::from(input[0]),
            1 + u32::from(input[1]),
            DegreeSpec::RobustSoliton { c: 0.2, delta: 0.5 },
        )
        .unwrap();
        let len = 1 + usize::from(input[2] % 40);
        let mut enc = LtEncoder::new(params, &vec![0; len]).unwrap();
        for s in 0..rng.below(6) {
            let g = rng
                .below(enc.num_generations() + 1)
                .min(enc.num_generations() - 1);
            let sym = enc.encode(g, round * 10 + s).unwrap().to_bytes();
            input.extend(mutated(&mut rng, sym));
        }
        ex += lt_decoder_input(&input);
    }
    assert!(ex.accepted > 100 && ex.rejected > 1000, "{ex:?}");
}

#[test]
fn rlnc_entry_survives_garbage() {
    let mut rng = SplitMix64::new(2);
    let mut ex = Exercised::default();
    for _ in 0..3000 {
        ex += rlnc_decoder_input(&random_bytes(&mut rng, 200));
    }
    for round in 0..1000u32 {
        let (size, cap) = (1 + rng.below(8), 1 + rng.below(6));
        let mut input = vec![(size - 1) as u8, (cap - 1) as u8, 0];
        let mut enc = RlncEncoder::new(size as usize, cap as usize).unwrap();
        for i in 0..1 + rng.below(cap) {
            enc.push(&[i as u8]).unwrap();
        }
        for s in 0..rng.below(6) {
            let mut sym = Vec::new();
            if rng.below(2) == 0 {
                enc.encode_into(round * 10 + s, &mut sym).unwrap();
            } else {
                let c: Vec<u8> = (0..enc.window().len())
                    .map(|_| rng.below(256) as u8)
                    .collect();
                enc.encode_with_coefficients_into(&c, &mut sym).unwrap();
            }
            input.extend(mutated(&mut rng, sym));
        }
        ex += rlnc_decoder_input(&input);
    }
    assert!(ex.accepted > 100 && ex.rejected > 1000, "{ex:?}");
}
