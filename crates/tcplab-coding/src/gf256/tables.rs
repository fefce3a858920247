//! Compile-time tables for GF(2^8) with the polynomial x^8+x^4+x^3+x^2+1
//! (0x11d, generator 2) — the field used by Reed–Solomon and most RLNC
//! implementations.

/// The reduction polynomial, including the x^8 term.
pub const POLY: u16 = 0x11d;

/// Carry-less "Russian peasant" product; the definition every table is
/// derived from, kept `const` so the tables are built by the compiler.
pub const fn mul_slow(mut a: u8, mut b: u8) -> u8 {
    let mut acc = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            acc ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= (POLY & 0xff) as u8;
        }
        b >>= 1;
    }
    acc
}

const fn build_exp() -> [u8; 512] {
    let mut t = [0u8; 512];
    let mut x = 1u8;
    let mut i = 0;
    while i < 255 {
        t[i] = x;
        t[i + 255] = x;
        x = mul_slow(x, 2);
        i += 1;
    }
    // Entries 510 and 511 are never read (log a + log b <= 508).
    t
}

const fn build_log(exp: &[u8; 512]) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        t[exp[i] as usize] = i as u8;
        i += 1;
    }
    t
}

/// `EXP[i] = 2^i`, doubled so `EXP[log a + log b]` needs no reduction.
pub static EXP: [u8; 512] = build_exp();
/// `LOG[a]` for a != 0 (LOG[0] is unused).
pub static LOG: [u8; 256] = build_log(&build_exp());

const fn build_nibbles() -> [[[u8; 16]; 2]; 256] {
    let mut t = [[[0u8; 16]; 2]; 256];
    let mut c = 0;
    while c < 256 {
        let mut n = 0;
        while n < 16 {
            t[c][0][n] = mul_slow(c as u8, n as u8);
            t[c][1][n] = mul_slow(c as u8, (n as u8) << 4);
            n += 1;
        }
        c += 1;
    }
    t
}

/// Split-nibble tables: `c·x = NIBBLES[c][0][x & 15] ^ NIBBLES[c][1][x >> 4]`.
/// Sixteen entries fit one SSE/AVX register, which `pshufb` indexes.
pub static NIBBLES: [[[u8; 16]; 2]; 256] = build_nibbles();

const fn build_mul() -> [[u8; 256]; 256] {
    let exp = build_exp();
    let log = build_log(&exp);
    let mut t = [[0u8; 256]; 256];
    let mut a = 1;
    while a < 256 {
        let mut b = 1;
        while b < 256 {
            t[a][b] = exp[log[a] as usize + log[b] as usize];
            b += 1;
        }
        a += 1;
    }
    t
}

/// Full product table (64 KiB): one lookup per byte on the scalar path.
pub static MUL: [[u8; 256]; 256] = build_mul();
