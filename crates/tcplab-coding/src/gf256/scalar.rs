//! Portable kernels: the reference every SIMD path is tested against, and
//! the fallback on CPUs without SSSE3.

use super::tables::MUL;

/// `dst ^= src`, eight bytes per step (the compiler vectorises this further
/// when it may).
pub fn xor_into(dst: &mut [u8], src: &[u8]) {
    let mut d = dst.chunks_exact_mut(8);
    let mut s = src.chunks_exact(8);
    for (dc, sc) in (&mut d).zip(&mut s) {
        let x = u64::from_ne_bytes(dc.try_into().expect("8-byte chunk"))
            ^ u64::from_ne_bytes(sc.try_into().expect("8-byte chunk"));
        dc.copy_from_slice(&x.to_ne_bytes());
    }
    for (a, b) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *a ^= *b;
    }
}

/// `dst ^= c · src` over GF(2^8).
pub fn mul_acc(dst: &mut [u8], src: &[u8], c: u8) {
    let row = &MUL[c as usize];
    for (a, &b) in dst.iter_mut().zip(src) {
        *a ^= row[b as usize];
    }
}

/// `buf = c · buf` over GF(2^8).
pub fn mul_in_place(buf: &mut [u8], c: u8) {
    let row = &MUL[c as usize];
    for a in buf.iter_mut() {
        *a = row[*a as usize];
    }
}
