//! LT encoder/decoder properties over random objects, symbol sizes (down to
//! one byte, with an uneven last symbol), layouts and erasure patterns.

use proptest::prelude::*;
use std::collections::HashSet;
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams};
use tcplab_coding::rng::SplitMix64;

fn robust() -> DegreeSpec {
    DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 }
}

/// Feed symbols (round-robin over generations, seeds 0..) through an erasure
/// pattern, checking every claim the decoder makes against the source.
/// Returns the decoder after it completes or gives up.
fn run(
    params: LtParams,
    data: &[u8],
    loss: f64,
    duplicate: f64,
    pattern_seed: u64,
) -> Result<LtDecoder, TestCaseError> {
    let mut enc = LtEncoder::new(params.clone(), data).unwrap();
    let mut dec = LtDecoder::new(params.clone(), data.len() as u64).unwrap();
    let layout = enc.layout().clone();
    let t = params.symbol_size;
    let mut rng = SplitMix64::new(pattern_seed);
    let mut reported = HashSet::new();
    let mut buf = Vec::new();
    let limit = 100 * layout.symbols + 1000;
    for seed in 0..limit {
        if dec.is_complete() {
            break;
        }
        let g = seed % layout.generations;
        enc.encode_into(g, seed, &mut buf).unwrap();
        if (rng.next_u32() as f64) < loss * 4_294_967_296.0 {
            continue; // erased
        }
        let copies = if (rng.next_u32() as f64) < duplicate * 4_294_967_296.0 {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let before = dec.recovered_count();
            let newly = dec.receive(&buf).unwrap().to_vec();
            prop_assert_eq!(dec.recovered_count(), before + newly.len() as u32);
            for i in newly {
                prop_assert!(reported.insert(i), "index {} reported twice", i);
                let start = i as usize * t;
                let end = (start + t).min(data.len());
                prop_assert_eq!(dec.source(i).unwrap(), &data[start..end], "symbol {}", i);
            }
        }
    }
    // Never claims a symbol it has not reported, and vice versa.
    for i in 0..layout.symbols {
        prop_assert_eq!(dec.is_recovered(i), reported.contains(&i));
        prop_assert_eq!(dec.source(i).is_some(), reported.contains(&i));
    }
    Ok(dec)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn single_generation_decodes_exactly(
        data in proptest::collection::vec(any::<u8>(), 1..600),
        symbol_size in 1usize..40,
        loss in 0.0f64..0.6,
        pattern in any::<u64>(),
        ideal in any::<bool>(),
    ) {
        let degrees = if ideal { DegreeSpec::IdealSoliton } else { robust() };
        let k = data.len().div_ceil(symbol_size) as u32;
        let params = LtParams::single_generation(symbol_size, k, degrees).unwrap();
        let dec = run(params, &data, loss, 0.0, pattern)?;
        prop_assert!(dec.is_complete());
        prop_assert_eq!(dec.data().unwrap(), &data[..]);
    }

    #[test]
    fn sliding_generations_decode_exactly(
        data in proptest::collection::vec(any::<u8>(), 1..1500),
        symbol_size in 1usize..24,
        window in 1u32..40,
        loss in 0.0f64..0.5,
        duplicate in 0.0f64..0.3,
        pattern in any::<u64>(),
    ) {
        let params = LtParams::tcp_forward(symbol_size, window, robust()).unwrap();
        let dec = run(params, &data, loss, duplicate, pattern)?;
        prop_assert!(dec.is_complete());
        prop_assert_eq!(dec.data().unwrap(), &data[..]);
    }

    #[test]
    fn custom_distributions_work(
        data in proptest::collection::vec(any::<u8>(), 1..300),
        weights in proptest::collection::vec(0.0f64..1.0, 1..12),
        pattern in any::<u64>(),
    ) {
        // Degree 1 must have some mass or nothing can ever start peeling.
        let mut weights = weights;
        weights[0] += 0.05;
        let params = LtParams::tcp_forward(7, 16, DegreeSpec::Custom(weights)).unwrap();
        let dec = run(params, &data, 0.2, 0.1, pattern)?;
        prop_assert!(dec.is_complete());
        prop_assert_eq!(dec.data().unwrap(), &data[..]);
    }
}

#[test]
fn decoder_accepts_symbols_spanning_sources_it_already_holds() {
    // TCP-Forward: window 8 sliding by 4. Decode generation 0 completely,
    // then generation 1 (sources 4..12) must finish using only its own
    // symbols although half of their neighbours are already known.
    let data: Vec<u8> = (0..16 * 5).map(|i| i as u8).collect();
    let params = LtParams::tcp_forward(5, 8, robust()).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let mut dec = LtDecoder::new(params, data.len() as u64).unwrap();
    assert_eq!(enc.generation_range(1).unwrap(), 4..12);
    let mut buf = Vec::new();
    let mut seed = 0;
    while !(0..8).all(|i| dec.is_recovered(i)) {
        enc.encode_into(0, seed, &mut buf).unwrap();
        dec.receive(&buf).unwrap();
        seed += 1;
    }
    let mut spanning = 0;
    while !(4..12).all(|i| dec.is_recovered(i)) {
        let nb = enc.neighbours(1, seed).unwrap();
        assert!(nb.iter().all(|i| (4..12).contains(i)));
        if nb.iter().any(|&i| i < 8) {
            spanning += 1;
        }
        enc.encode_into(1, seed, &mut buf).unwrap();
        for i in dec.receive(&buf).unwrap() {
            assert!(
                (8..12).contains(i),
                "only new symbols can be newly recovered"
            );
        }
        seed += 1;
    }
    assert!(spanning > 0);
    for i in 0..12 {
        assert_eq!(
            dec.source(i).unwrap(),
            &data[i as usize * 5..i as usize * 5 + 5]
        );
    }
}

#[test]
fn decoding_is_online() {
    // Source symbols are released while symbols arrive, not all at the end:
    // with k = 256 the first recovery comes long before the last.
    let k = 256u32;
    let data: Vec<u8> = (0..k * 4).map(|i| (i * 7) as u8).collect();
    let params = LtParams::single_generation(4, k, robust()).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let mut dec = LtDecoder::new(params, data.len() as u64).unwrap();
    let mut buf = Vec::new();
    let (mut first, mut half) = (None, None);
    let mut seed = 0;
    while !dec.is_complete() {
        enc.encode_into(0, seed, &mut buf).unwrap();
        let n = dec.receive(&buf).unwrap().len();
        seed += 1;
        if n > 0 && first.is_none() {
            first = Some(seed);
        }
        if dec.recovered_count() >= k / 2 && half.is_none() {
            half = Some(seed);
        }
    }
    let (first, half) = (first.unwrap(), half.unwrap());
    // A degree-one symbol releases a source at once; P(none among the first
    // m symbols) = (1 − μ(1))^m, below 1e-6 for this m.
    let mu1 = enc.distribution().probability(1);
    let m = (1e-6f64.ln() / (1.0 - mu1).ln()).ceil() as u32;
    assert!(
        first <= m,
        "first symbol after {first} receptions (bound {m})"
    );
    assert!(
        half < seed,
        "half recovered ({half}) before the end ({seed})"
    );
}

#[test]
fn estimate_tracks_progress() {
    let k = 128u32;
    let data = vec![3u8; k as usize * 10];
    let params = LtParams::single_generation(10, k, robust()).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let mut dec = LtDecoder::new(params, data.len() as u64).unwrap();
    let fresh = dec.symbols_needed_estimate();
    assert!(fresh > u64::from(k) && fresh < 2 * u64::from(k), "{fresh}");
    let mut buf = Vec::new();
    let mut seed = 0;
    let mut last = fresh;
    let mut decreased = false;
    while !dec.is_complete() {
        assert!(dec.symbols_needed_estimate() >= 1);
        enc.encode_into(0, seed, &mut buf).unwrap();
        dec.receive(&buf).unwrap();
        seed += 1;
        let now = dec.symbols_needed_estimate();
        decreased |= now < last;
        last = now;
    }
    assert!(decreased);
    assert_eq!(dec.symbols_needed_estimate(), 0);
}

#[test]
fn reset_allows_reuse() {
    let data: Vec<u8> = (0..500).map(|i| i as u8).collect();
    let params = LtParams::tcp_forward(9, 12, robust()).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let mut dec = LtDecoder::new(params, 500).unwrap();
    let mut buf = Vec::new();
    for round in 0..3u32 {
        dec.reset();
        let mut seed = round * 100_000;
        while !dec.is_complete() {
            enc.encode_into(seed % enc.num_generations(), seed, &mut buf)
                .unwrap();
            dec.receive(&buf).unwrap();
            seed += 1;
        }
        assert_eq!(dec.data().unwrap(), &data[..]);
    }
}

/// A stream decoded through a sliding window while its recovered prefix is forgotten:
/// every recovered byte is right, per-source memory stays about one window however
/// long the object, and a symbol reaching below the forgotten point is refused.
#[test]
fn a_forgetting_decoder_holds_one_window_of_a_long_stream() {
    use tcplab_coding::lt::LtStreamEncoder;
    let (t, n, k) = (8usize, 16u32, 20_000u32);
    let byte = |i: u32, j: usize| (i as usize * 7 + j * 13) as u8;
    // Declared far longer than what is sent: nothing is sized by it.
    let params = LtParams::tcp_forward(t, n, robust()).unwrap();
    let mut dec = LtDecoder::new(params, u64::from(u32::MAX) * t as u64).unwrap();
    assert_eq!(dec.held_sources(), 0, "nothing allocated up front");
    let mut enc = LtStreamEncoder::new(t, robust()).unwrap();
    let mut rng = SplitMix64::new(5);
    let (mut lo, mut seed, mut cum) = (0u32, 0u32, 0u32);
    let mut buf = Vec::new();
    let mut most = 0;
    while cum < k {
        while enc.end() < (lo + n).min(k) {
            let i = enc.end();
            let src: Vec<u8> = (0..t).map(|j| byte(i, j)).collect();
            enc.push(&src).unwrap();
        }
        let span = enc.end() - lo;
        enc.encode_window_into(lo, span, seed, &mut buf).unwrap();
        seed += 1;
        if rng.next_u64() % 10 != 0 {
            let newly = dec
                .receive_window(lo, span, seed - 1, &buf)
                .unwrap()
                .to_vec();
            for i in newly {
                let want: Vec<u8> = (0..t).map(|j| byte(i, j)).collect();
                assert_eq!(dec.source(i).unwrap(), &want[..], "source {i}");
            }
        }
        while cum < k && dec.is_recovered(cum) {
            cum += 1;
        }
        // The sender slides by half a window once its first half is decoded.
        while lo + n / 2 <= cum && lo + n < k {
            lo += n / 2;
        }
        enc.drop_below(lo);
        dec.forget_below(lo);
        most = most.max(dec.held_sources());
    }
    assert!(most <= 4 * n as usize, "held up to {most} sources");
    assert!(enc.held() <= 2 * n as usize);
    assert_eq!(dec.forgotten(), lo);
    assert!(dec.source(lo - 1).is_none(), "forgotten");
    assert!(dec.is_recovered(lo - 1));
    let e = dec.receive_window(lo - 1, 2, 0, &buf[..t]).unwrap_err();
    assert!(e.to_string().contains("window"), "{e}");
}
