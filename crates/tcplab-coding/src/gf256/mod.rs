//! Arithmetic in GF(2^8) and the bulk kernels both codes spend their time in.
//!
//! The free functions ([`xor_into`], [`mul_acc`], [`mul_in_place`]) use the
//! fastest [`Backend`] the CPU supports, detected once at first use.
//! [`Backend`] values can also be called directly, which is how the property
//! tests check every SIMD path against the scalar reference.

mod scalar;
pub mod tables;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::OnceLock;

/// Product of two field elements.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    tables::MUL[a as usize][b as usize]
}

/// Multiplicative inverse; `None` for zero, which has none.
#[inline]
pub fn inv(a: u8) -> Option<u8> {
    (a != 0).then(|| tables::EXP[255 - tables::LOG[a as usize] as usize])
}

/// An implementation of the bulk kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Portable table lookups; available everywhere.
    Scalar,
    /// 128-bit `pshufb` split-nibble lookups (x86-64 with SSSE3).
    Ssse3,
    /// 256-bit `vpshufb` split-nibble lookups (x86-64 with AVX2).
    Avx2,
}

impl Backend {
    /// All backends, slowest first.
    pub const ALL: [Backend; 3] = [Backend::Scalar, Backend::Ssse3, Backend::Avx2];

    /// Whether this CPU can run the backend.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3 => std::arch::is_x86_feature_detected!("ssse3"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The backends this CPU can run.
    pub fn available() -> Vec<Backend> {
        Self::ALL.into_iter().filter(|b| b.is_available()).collect()
    }

    /// The fastest backend this CPU can run.
    pub fn detect() -> Backend {
        Self::ALL
            .into_iter()
            .rev()
            .find(|b| b.is_available())
            .unwrap_or(Backend::Scalar)
    }

    /// The backend the free functions use (detected once).
    pub fn active() -> Backend {
        static ACTIVE: OnceLock<Backend> = OnceLock::new();
        *ACTIVE.get_or_init(Backend::detect)
    }

    /// `dst ^= src`. Falls back to scalar if this backend is unavailable.
    ///
    /// # Panics
    /// If the slices differ in length (a caller bug, never input-driven).
    pub fn xor_into(self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "xor_into: length mismatch");
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `checked` returned Avx2 only after detecting AVX2, and
            // the lengths were asserted equal above.
            Backend::Avx2 => unsafe { x86::xor_into_avx2(dst, src) },
            #[cfg(target_arch = "x86_64")]
            Backend::Ssse3 => x86::xor_into_sse2(dst, src),
            _ => scalar::xor_into(dst, src),
        }
    }

    /// `dst ^= c · src`. Falls back to scalar if this backend is unavailable.
    ///
    /// # Panics
    /// If the slices differ in length (a caller bug, never input-driven).
    pub fn mul_acc(self, dst: &mut [u8], src: &[u8], c: u8) {
        assert_eq!(dst.len(), src.len(), "mul_acc: length mismatch");
        match c {
            0 => return,
            1 => return self.xor_into(dst, src),
            _ => {}
        }
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 was detected by `checked`; lengths asserted equal.
            Backend::Avx2 => unsafe { x86::mul_acc_avx2(dst, src, c) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSSE3 was detected by `checked`; lengths asserted equal.
            Backend::Ssse3 => unsafe { x86::mul_acc_ssse3(dst, src, c) },
            _ => scalar::mul_acc(dst, src, c),
        }
    }

    /// `dst ^= Σ_j coeffs[j] · rows[j]` where `rows` is `coeffs.len()`
    /// consecutive rows of `dst.len()` bytes: one pass over `dst` for many
    /// sources (the AVX2 path keeps `dst` in registers).
    ///
    /// # Panics
    /// If `rows.len() != coeffs.len() * dst.len()` (a caller bug).
    pub fn mul_acc_rows(self, dst: &mut [u8], rows: &[u8], coeffs: &[u8]) {
        assert_eq!(
            rows.len(),
            coeffs.len() * dst.len(),
            "mul_acc_rows: shape mismatch"
        );
        if dst.is_empty() {
            return;
        }
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 was detected by `checked`; shape asserted above.
            Backend::Avx2 => unsafe { x86::mul_acc_rows_avx2(dst, rows, coeffs) },
            b => {
                for (row, &c) in rows.chunks_exact(dst.len()).zip(coeffs) {
                    b.mul_acc(dst, row, c);
                }
            }
        }
    }

    /// `buf = c · buf`. Falls back to scalar if this backend is unavailable.
    pub fn mul_in_place(self, buf: &mut [u8], c: u8) {
        match c {
            0 => return buf.fill(0),
            1 => return,
            _ => {}
        }
        match self.checked() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 was detected by `checked`.
            Backend::Avx2 => unsafe { x86::mul_in_place_avx2(buf, c) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSSE3 was detected by `checked`.
            Backend::Ssse3 => unsafe { x86::mul_in_place_ssse3(buf, c) },
            _ => scalar::mul_in_place(buf, c),
        }
    }

    /// This backend if the CPU supports it, else the scalar one. The active
    /// backend skips the (cached, but not free) feature check.
    #[inline]
    fn checked(self) -> Backend {
        if self == Backend::active() || self.is_available() {
            self
        } else {
            Backend::Scalar
        }
    }
}

/// Below this many bytes the free functions use the scalar loop: for the simulator's
/// description-mode symbols (one byte) and TCP/NC's coefficient rows (a few dozen) the
/// backend dispatch and SIMD set-up cost more than the work. Same results (exact field
/// arithmetic); the `Backend` methods still run the backend they name.
const SHORT: usize = 32;

/// `dst ^= src` with the active backend.
///
/// # Panics
/// If the slices differ in length.
#[inline]
pub fn xor_into(dst: &mut [u8], src: &[u8]) {
    if dst.len() < SHORT {
        assert_eq!(dst.len(), src.len(), "xor_into: length mismatch");
        for (a, b) in dst.iter_mut().zip(src) {
            *a ^= *b;
        }
        return;
    }
    Backend::active().xor_into(dst, src);
}

/// `dst ^= c · src` with the active backend.
///
/// # Panics
/// If the slices differ in length.
#[inline]
pub fn mul_acc(dst: &mut [u8], src: &[u8], c: u8) {
    if dst.len() < SHORT {
        assert_eq!(dst.len(), src.len(), "mul_acc: length mismatch");
        match c {
            0 => {}
            1 => dst.iter_mut().zip(src).for_each(|(a, b)| *a ^= *b),
            _ => scalar::mul_acc(dst, src, c),
        }
        return;
    }
    Backend::active().mul_acc(dst, src, c);
}

/// `dst ^= Σ_j coeffs[j] · rows[j]` with the active backend; see
/// [`Backend::mul_acc_rows`].
///
/// # Panics
/// If `rows.len() != coeffs.len() * dst.len()`.
#[inline]
pub fn mul_acc_rows(dst: &mut [u8], rows: &[u8], coeffs: &[u8]) {
    Backend::active().mul_acc_rows(dst, rows, coeffs);
}

/// `buf = c · buf` with the active backend.
#[inline]
pub fn mul_in_place(buf: &mut [u8], c: u8) {
    if buf.len() < SHORT && c > 1 {
        return scalar::mul_in_place(buf, c);
    }
    Backend::active().mul_in_place(buf, c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_agree_with_the_defining_product() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), tables::mul_slow(a, b));
                let [lo, hi] = &tables::NIBBLES[a as usize];
                assert_eq!(lo[(b & 15) as usize] ^ hi[(b >> 4) as usize], mul(a, b));
            }
        }
    }

    #[test]
    fn field_axioms_hold() {
        for a in 1..=255u8 {
            let ia = inv(a).expect("non-zero has an inverse");
            assert_eq!(mul(a, ia), 1);
        }
        assert_eq!(inv(0), None);
        // Distributivity over XOR on a sample.
        for a in (0..=255u8).step_by(7) {
            for b in (0..=255u8).step_by(5) {
                for c in (0..=255u8).step_by(11) {
                    assert_eq!(mul(a, b ^ c), mul(a, b) ^ mul(a, c));
                }
            }
        }
        // 2 generates the multiplicative group (order 255).
        let mut x = 1u8;
        for i in 1..=255 {
            x = mul(x, 2);
            assert_eq!(x == 1, i == 255, "order of 2 must be 255");
        }
    }

    #[test]
    fn detect_returns_an_available_backend() {
        assert!(Backend::detect().is_available());
        assert!(Backend::available().contains(&Backend::Scalar));
    }

    /// The free functions' short-slice path and the backend path agree with the
    /// definition at every length around the switch-over.
    #[test]
    fn short_and_long_slices_give_the_defined_results() {
        for len in [0, 1, 2, 7, 8, 9, SHORT - 1, SHORT, SHORT + 1, 100] {
            let src: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let dst0: Vec<u8> = (0..len).map(|i| (i * 101 + 3) as u8).collect();
            for c in [0u8, 1, 2, 29, 255] {
                let mut d = dst0.clone();
                mul_acc(&mut d, &src, c);
                let want: Vec<u8> = dst0.iter().zip(&src).map(|(a, b)| a ^ mul(c, *b)).collect();
                assert_eq!(d, want, "mul_acc len {len} c {c}");
                let mut d = dst0.clone();
                mul_in_place(&mut d, c);
                let want: Vec<u8> = dst0.iter().map(|a| mul(c, *a)).collect();
                assert_eq!(d, want, "mul_in_place len {len} c {c}");
            }
            let mut d = dst0.clone();
            xor_into(&mut d, &src);
            let want: Vec<u8> = dst0.iter().zip(&src).map(|(a, b)| a ^ b).collect();
            assert_eq!(d, want, "xor_into len {len}");
        }
    }
}
