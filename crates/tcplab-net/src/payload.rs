//! Deterministic payload bytes: byte `i` of a transfer is a function of a key and `i`,
//! so a receiver checks every byte it gets without the sender shipping a checksum, and
//! bytes from another transfer (another key) or another offset do not verify.

/// Key and offset of datagram `seq`'s bytes (its own stream, 64 KiB per datagram: no
/// datagram's bytes equal another's).
pub fn datagram_key(conn: u64, seq: u64) -> (u64, u64) {
    (conn ^ 0xd47a_6a4d_0000_0001, seq << 16)
}

/// Key and offset of coded symbol `seed`'s bytes (a symbol's seed is unique in its flow).
pub fn symbol_key(conn: u64, seed: u32) -> (u64, u64) {
    (conn ^ 0x5e3b_0150_0000_0002, u64::from(seed) << 16)
}

#[inline]
fn word(key: u64, index: u64) -> u64 {
    // SplitMix64's finaliser over (key, word index): cheap and well mixed.
    let mut z = key ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline]
fn byte(key: u64, offset: u64) -> u8 {
    word(key, offset / 8).to_le_bytes()[(offset % 8) as usize]
}

/// Fills `buf` with bytes `offset .. offset + buf.len()` of transfer `key`.
pub fn fill(key: u64, offset: u64, buf: &mut [u8]) {
    let head = ((8 - offset % 8) % 8).min(buf.len() as u64) as usize;
    for (i, b) in buf[..head].iter_mut().enumerate() {
        *b = byte(key, offset + i as u64);
    }
    let mut o = offset + head as u64;
    let mut chunks = buf[head..].chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&word(key, o / 8).to_le_bytes());
        o += 8;
    }
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b = byte(key, o + i as u64);
    }
}

/// Checks `buf` against bytes `offset ..` of transfer `key`; the index of the first
/// wrong byte, if any.
pub fn verify(key: u64, offset: u64, buf: &[u8]) -> Option<usize> {
    let head = ((8 - offset % 8) % 8).min(buf.len() as u64) as usize;
    for (i, &b) in buf[..head].iter().enumerate() {
        if b != byte(key, offset + i as u64) {
            return Some(i);
        }
    }
    let mut o = offset + head as u64;
    let mut at = head;
    let mut chunks = buf[head..].chunks_exact(8);
    for c in &mut chunks {
        if c != word(key, o / 8).to_le_bytes() {
            let w = word(key, o / 8).to_le_bytes();
            return Some(at + c.iter().zip(w).position(|(a, b)| *a != b).unwrap_or(0));
        }
        o += 8;
        at += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b != byte(key, o + i as u64) {
            return Some(at + i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any slice of the stream, filled at any offset, verifies at that offset and
        /// equals the byte-by-byte definition; a flipped byte is found where it is.
        #[test]
        fn fill_matches_bytes_and_verifies(key: u64, offset in 0u64..1_000_000, len in 0usize..100, flip in any::<prop::sample::Index>()) {
            let mut b = vec![0u8; len];
            fill(key, offset, &mut b);
            for (i, &x) in b.iter().enumerate() {
                prop_assert_eq!(x, byte(key, offset + i as u64));
            }
            prop_assert_eq!(verify(key, offset, &b), None);
            if len > 0 {
                let i = flip.index(len);
                b[i] ^= 0x40;
                prop_assert_eq!(verify(key, offset, &b), Some(i));
            }
        }
    }

    #[test]
    fn other_keys_and_offsets_do_not_verify() {
        let mut b = vec![0u8; 64];
        fill(1, 100, &mut b);
        assert!(verify(2, 100, &b).is_some());
        assert!(verify(1, 101, &b).is_some());
    }
}
