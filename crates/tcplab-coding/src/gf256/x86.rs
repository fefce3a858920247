//! x86-64 SIMD kernels (split-nibble table lookup with `pshufb`).
//!
//! Multiplying by a constant c is linear over GF(2), so
//! c·x = c·(x & 0x0f) ^ c·(x & 0xf0): two 16-entry tables, each one
//! `pshufb` per 16 or 32 bytes. This is the only module with `unsafe`.

use super::scalar;
use super::tables::NIBBLES;
use std::arch::x86_64::*;

/// c·x for 32 bytes, given c's nibble tables broadcast to both lanes.
/// A macro (not a function) so it expands inside the caller's AVX2 context.
macro_rules! product256 {
    ($lo:expr, $hi:expr, $mask:expr, $x:expr) => {{
        let l = _mm256_shuffle_epi8($lo, _mm256_and_si256($x, $mask));
        let h = _mm256_shuffle_epi8($hi, _mm256_and_si256(_mm256_srli_epi64($x, 4), $mask));
        _mm256_xor_si256(l, h)
    }};
}

/// `dst ^= src` with 256-bit registers.
///
/// # Safety
/// The CPU must support AVX2 and `dst.len() == src.len()`.
#[target_feature(enable = "avx2")]
pub unsafe fn xor_into_avx2(dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    let n = dst.len();
    let d = dst.as_mut_ptr();
    let s = src.as_ptr();
    let mut i = 0;
    // SAFETY: every access is at offset i..i+128 (or i..i+32) with that end
    // <= n, inside both slices; unaligned loads/stores are used throughout.
    unsafe {
        while i + 128 <= n {
            let a0 = _mm256_loadu_si256(d.add(i).cast());
            let a1 = _mm256_loadu_si256(d.add(i + 32).cast());
            let a2 = _mm256_loadu_si256(d.add(i + 64).cast());
            let a3 = _mm256_loadu_si256(d.add(i + 96).cast());
            let b0 = _mm256_loadu_si256(s.add(i).cast());
            let b1 = _mm256_loadu_si256(s.add(i + 32).cast());
            let b2 = _mm256_loadu_si256(s.add(i + 64).cast());
            let b3 = _mm256_loadu_si256(s.add(i + 96).cast());
            _mm256_storeu_si256(d.add(i).cast(), _mm256_xor_si256(a0, b0));
            _mm256_storeu_si256(d.add(i + 32).cast(), _mm256_xor_si256(a1, b1));
            _mm256_storeu_si256(d.add(i + 64).cast(), _mm256_xor_si256(a2, b2));
            _mm256_storeu_si256(d.add(i + 96).cast(), _mm256_xor_si256(a3, b3));
            i += 128;
        }
        while i + 32 <= n {
            let a = _mm256_loadu_si256(d.add(i).cast());
            let b = _mm256_loadu_si256(s.add(i).cast());
            _mm256_storeu_si256(d.add(i).cast(), _mm256_xor_si256(a, b));
            i += 32;
        }
    }
    scalar::xor_into(&mut dst[i..], &src[i..]);
}

/// `dst ^= src` with 128-bit registers (SSE2 is part of x86-64).
pub fn xor_into_sse2(dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    let n = dst.len().min(src.len());
    let d = dst.as_mut_ptr();
    let s = src.as_ptr();
    let mut i = 0;
    // SAFETY: SSE2 is baseline on x86_64; accesses stay below n, which is
    // within both slices; unaligned loads/stores.
    unsafe {
        while i + 16 <= n {
            let a = _mm_loadu_si128(d.add(i).cast());
            let b = _mm_loadu_si128(s.add(i).cast());
            _mm_storeu_si128(d.add(i).cast(), _mm_xor_si128(a, b));
            i += 16;
        }
    }
    scalar::xor_into(&mut dst[i..n], &src[i..n]);
}

/// `dst ^= c · src` with 256-bit `vpshufb`.
///
/// # Safety
/// The CPU must support AVX2 and `dst.len() == src.len()`.
#[target_feature(enable = "avx2")]
pub unsafe fn mul_acc_avx2(dst: &mut [u8], src: &[u8], c: u8) {
    debug_assert_eq!(dst.len(), src.len());
    let n = dst.len();
    let d = dst.as_mut_ptr();
    let s = src.as_ptr();
    let [lo_tab, hi_tab] = &NIBBLES[c as usize];
    let mut i = 0;
    // SAFETY: table loads read exactly 16 bytes from 16-byte arrays; data
    // accesses stay inside i..i+64 / i..i+32 with that end <= n.
    unsafe {
        let lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(lo_tab.as_ptr().cast()));
        let hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(hi_tab.as_ptr().cast()));
        let mask = _mm256_set1_epi8(0x0f);
        while i + 64 <= n {
            let x0 = _mm256_loadu_si256(s.add(i).cast());
            let x1 = _mm256_loadu_si256(s.add(i + 32).cast());
            let a0 = _mm256_loadu_si256(d.add(i).cast());
            let a1 = _mm256_loadu_si256(d.add(i + 32).cast());
            _mm256_storeu_si256(
                d.add(i).cast(),
                _mm256_xor_si256(a0, product256!(lo, hi, mask, x0)),
            );
            _mm256_storeu_si256(
                d.add(i + 32).cast(),
                _mm256_xor_si256(a1, product256!(lo, hi, mask, x1)),
            );
            i += 64;
        }
        while i + 32 <= n {
            let x = _mm256_loadu_si256(s.add(i).cast());
            let a = _mm256_loadu_si256(d.add(i).cast());
            _mm256_storeu_si256(
                d.add(i).cast(),
                _mm256_xor_si256(a, product256!(lo, hi, mask, x)),
            );
            i += 32;
        }
    }
    // SAFETY: AVX2 implies SSSE3; the remaining slices have equal length.
    unsafe { mul_acc_ssse3(&mut dst[i..], &src[i..], c) };
}

/// `buf = c · buf` with 256-bit `vpshufb`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn mul_in_place_avx2(buf: &mut [u8], c: u8) {
    let n = buf.len();
    let p = buf.as_mut_ptr();
    let [lo_tab, hi_tab] = &NIBBLES[c as usize];
    let mut i = 0;
    // SAFETY: as in `mul_acc_avx2`; accesses stay inside i..i+32 <= n.
    unsafe {
        let lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(lo_tab.as_ptr().cast()));
        let hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(hi_tab.as_ptr().cast()));
        let mask = _mm256_set1_epi8(0x0f);
        while i + 32 <= n {
            let x = _mm256_loadu_si256(p.add(i).cast());
            _mm256_storeu_si256(p.add(i).cast(), product256!(lo, hi, mask, x));
            i += 32;
        }
    }
    // SAFETY: AVX2 implies SSSE3.
    unsafe { mul_in_place_ssse3(&mut buf[i..], c) };
}

/// `dst ^= c · src` with 128-bit `pshufb`.
///
/// # Safety
/// The CPU must support SSSE3 and `dst.len() == src.len()`.
#[target_feature(enable = "ssse3")]
pub unsafe fn mul_acc_ssse3(dst: &mut [u8], src: &[u8], c: u8) {
    debug_assert_eq!(dst.len(), src.len());
    let n = dst.len();
    let d = dst.as_mut_ptr();
    let s = src.as_ptr();
    let [lo_tab, hi_tab] = &NIBBLES[c as usize];
    let mut i = 0;
    // SAFETY: 16-byte table loads from 16-byte arrays; data accesses stay
    // inside i..i+16 <= n.
    unsafe {
        let lo = _mm_loadu_si128(lo_tab.as_ptr().cast());
        let hi = _mm_loadu_si128(hi_tab.as_ptr().cast());
        let mask = _mm_set1_epi8(0x0f);
        while i + 16 <= n {
            let x = _mm_loadu_si128(s.add(i).cast());
            let a = _mm_loadu_si128(d.add(i).cast());
            let l = _mm_shuffle_epi8(lo, _mm_and_si128(x, mask));
            let h = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi64(x, 4), mask));
            _mm_storeu_si128(d.add(i).cast(), _mm_xor_si128(a, _mm_xor_si128(l, h)));
            i += 16;
        }
    }
    scalar::mul_acc(&mut dst[i..], &src[i..], c);
}

/// `buf = c · buf` with 128-bit `pshufb`.
///
/// # Safety
/// The CPU must support SSSE3.
#[target_feature(enable = "ssse3")]
pub unsafe fn mul_in_place_ssse3(buf: &mut [u8], c: u8) {
    let n = buf.len();
    let p = buf.as_mut_ptr();
    let [lo_tab, hi_tab] = &NIBBLES[c as usize];
    let mut i = 0;
    // SAFETY: as in `mul_acc_ssse3`.
    unsafe {
        let lo = _mm_loadu_si128(lo_tab.as_ptr().cast());
        let hi = _mm_loadu_si128(hi_tab.as_ptr().cast());
        let mask = _mm_set1_epi8(0x0f);
        while i + 16 <= n {
            let x = _mm_loadu_si128(p.add(i).cast());
            let l = _mm_shuffle_epi8(lo, _mm_and_si128(x, mask));
            let h = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi64(x, 4), mask));
            _mm_storeu_si128(p.add(i).cast(), _mm_xor_si128(l, h));
            i += 16;
        }
    }
    scalar::mul_in_place(&mut buf[i..], c);
}

/// `dst ^= Σ_j coeffs[j] · rows[j]`, where `rows` holds `coeffs.len()`
/// consecutive rows of `dst.len()` bytes. Keeps 128 bytes of `dst` in
/// registers while all rows stream past, so `dst` is loaded and stored once
/// instead of once per row — the RLNC encoder's inner loop.
///
/// # Safety
/// The CPU must support AVX2 and `rows.len() == coeffs.len() * dst.len()`.
#[target_feature(enable = "avx2")]
pub unsafe fn mul_acc_rows_avx2(dst: &mut [u8], rows: &[u8], coeffs: &[u8]) {
    let n = dst.len();
    debug_assert_eq!(rows.len(), coeffs.len() * n);
    let d = dst.as_mut_ptr();
    let r = rows.as_ptr();
    let mut i = 0;
    // SAFETY: row j's bytes i..i+128 are at r + j·n + i with i + 128 <= n,
    // inside `rows` by the length precondition; dst accesses stay below n;
    // table loads read 16-byte arrays.
    unsafe {
        let mask = _mm256_set1_epi8(0x0f);
        while i + 128 <= n {
            let mut a0 = _mm256_loadu_si256(d.add(i).cast());
            let mut a1 = _mm256_loadu_si256(d.add(i + 32).cast());
            let mut a2 = _mm256_loadu_si256(d.add(i + 64).cast());
            let mut a3 = _mm256_loadu_si256(d.add(i + 96).cast());
            for (j, &c) in coeffs.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let [lo_tab, hi_tab] = &NIBBLES[c as usize];
                let lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(lo_tab.as_ptr().cast()));
                let hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(hi_tab.as_ptr().cast()));
                let s = r.add(j * n + i);
                let x0 = _mm256_loadu_si256(s.cast());
                let x1 = _mm256_loadu_si256(s.add(32).cast());
                let x2 = _mm256_loadu_si256(s.add(64).cast());
                let x3 = _mm256_loadu_si256(s.add(96).cast());
                a0 = _mm256_xor_si256(a0, product256!(lo, hi, mask, x0));
                a1 = _mm256_xor_si256(a1, product256!(lo, hi, mask, x1));
                a2 = _mm256_xor_si256(a2, product256!(lo, hi, mask, x2));
                a3 = _mm256_xor_si256(a3, product256!(lo, hi, mask, x3));
            }
            _mm256_storeu_si256(d.add(i).cast(), a0);
            _mm256_storeu_si256(d.add(i + 32).cast(), a1);
            _mm256_storeu_si256(d.add(i + 64).cast(), a2);
            _mm256_storeu_si256(d.add(i + 96).cast(), a3);
            i += 128;
        }
    }
    // Remaining < 128 bytes: row by row with the single-row kernel.
    for (j, &c) in coeffs.iter().enumerate() {
        if c != 0 {
            // SAFETY: AVX2 is available (this function's precondition) and
            // both slices have length n - i.
            unsafe { mul_acc_avx2(&mut dst[i..], &rows[j * n + i..(j + 1) * n], c) };
        }
    }
}
