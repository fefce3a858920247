//! SplitMix64: the one implementation of this generator in tcplab.
//!
//! It seeds the simulator's xoshiro256++ streams ([`crate::rng`]) and is the coding
//! crate's generator: receivers regenerate degrees, neighbours and coefficients from a
//! seed in the symbol header, so it must produce the same values on every platform and
//! in every future build (`tcplab-coding`'s `wire_stability` test pins them). SplitMix64 (Steele, Lea & Flood,
//! OOPSLA 2014) is defined by 64-bit integer arithmetic alone, is fast to
//! seed (one word of state) and passes BigCrush, which is plenty for choosing
//! neighbours.

/// The SplitMix64 increment (2^64 / golden ratio, odd).
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function: a strong 64-bit avalanche mix.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64 generator. Its output sequence is part of the coding wire format.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fully determined by `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A generator for a header key made of two 32-bit fields.
    ///
    /// The key is mixed once so that neighbouring keys (seed 7 and seed 8 of
    /// the same generation) start from unrelated states.
    pub const fn for_key(high: u32, low: u32) -> Self {
        Self::new(mix64(((high as u64) << 32) | low as u64))
    }

    /// Next 64 uniformly distributed bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix64(self.state)
    }

    /// Next 32 uniformly distributed bits (the high half, the better mixed).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform integer in `0..n` without modulo bias (Lemire, 2019).
    ///
    /// `n` must be non-zero; callers only ever pass a window or degree size.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let mut m = u64::from(self.next_u32()) * u64::from(n);
        if (m as u32) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u32) < threshold {
                m = u64::from(self.next_u32()) * u64::from(n);
            }
        }
        (m >> 32) as u32
    }

    /// Fill `out` with uniform bytes, eight per step in little-endian order.
    pub fn fill_bytes(&mut self, out: &mut [u8]) {
        let mut chunks = out.chunks_exact_mut(8);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let word = self.next_u64().to_le_bytes();
            rest.copy_from_slice(&word[..rest.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_splitmix64_sequence() {
        // Seed 1234567 through Vigna's public-domain splitmix64.c (compiled
        // with gcc); the same vector is used by other SplitMix64 ports.
        let mut rng = SplitMix64::new(1_234_567);
        let expected = [
            6_457_827_717_110_365_317u64,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for want in expected {
            assert_eq!(rng.next_u64(), want);
        }
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(9);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let x = rng.below(7);
            assert!(x < 7);
            seen[x as usize] += 1;
        }
        // Each bucket expects 1000; 5 sigma is about 150.
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }

    #[test]
    fn fill_bytes_handles_uneven_tails() {
        let mut a = SplitMix64::new(3);
        let mut b = SplitMix64::new(3);
        let mut long = [0u8; 16];
        let mut short = [0u8; 11];
        a.fill_bytes(&mut long);
        b.fill_bytes(&mut short);
        assert_eq!(&long[..11], &short[..]);
    }
}
