//! The Internet checksum (RFC 1071): ones'-complement sum of 16-bit big-endian words.
//!
//! Kept as an unfolded 64-bit accumulator so a header can be summed in pieces (pseudo
//! header, then header, then payload) and folded once.

/// A running ones'-complement sum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Checksum(u64);

impl Checksum {
    /// Adds `bytes` as big-endian 16-bit words; an odd final byte is padded with zero.
    /// Pieces other than the last must have even length.
    pub fn add(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(2);
        for w in &mut words {
            self.0 += u64::from(u16::from_be_bytes([w[0], w[1]]));
        }
        if let [last] = words.remainder() {
            self.0 += u64::from(*last) << 8;
        }
    }

    pub fn add_u16(&mut self, v: u16) {
        self.0 += u64::from(v);
    }

    /// The checksum field: the complement of the folded sum.
    pub fn finish(self) -> u16 {
        let mut s = self.0;
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        let mut c = Checksum::default();
        c.add(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]);
        assert_eq!(c.finish(), !0xddf2);
    }

    #[test]
    fn a_header_with_its_checksum_sums_to_zero() {
        // A real IPv4 header (checksum 0xb861 at bytes 10..12).
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        let mut c = Checksum::default();
        c.add(&h);
        assert_eq!(c.finish(), 0);
        let mut z = h;
        z[10] = 0;
        z[11] = 0;
        let mut c = Checksum::default();
        c.add(&z);
        assert_eq!(c.finish(), 0xb861);
    }

    #[test]
    fn odd_length_pads_with_zero() {
        let mut a = Checksum::default();
        a.add(&[0x12, 0x34, 0x56]);
        let mut b = Checksum::default();
        b.add(&[0x12, 0x34, 0x56, 0x00]);
        assert_eq!(a.finish(), b.finish());
    }
}
