//! LT wire format.
//!
//! ```text
//! offset size field
//!      0    1 tag 'L' (0x4c)
//!      1    1 version (1)
//!      2    4 generation id (big-endian)
//!      6    4 seed: degree and neighbours are regenerated from it
//!     10    2 payload length (must equal the configured symbol size)
//!     12    n payload: XOR of the neighbours (zero-padded source symbols)
//! ```
//!
//! Twelve bytes of header instead of a neighbour list: the receiver runs the
//! same [`NeighbourSampler`](super::neighbours::NeighbourSampler) procedure.

use crate::error::{CodingError, Result};
use crate::wire::Reader;

/// First byte of every LT symbol.
pub const LT_TAG: u8 = b'L';
/// Wire-format version this build writes and accepts.
pub const LT_VERSION: u8 = 1;
/// Header bytes before the payload.
pub const LT_HEADER_LEN: usize = 12;

/// A parsed LT symbol borrowing its payload from the input bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LtSymbolRef<'a> {
    pub generation: u32,
    pub seed: u32,
    pub payload: &'a [u8],
}

impl<'a> LtSymbolRef<'a> {
    /// Parse one symbol; the input must be exactly one symbol long.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(LT_TAG, LT_VERSION)?;
        let generation = r.u32("generation id")?;
        let seed = r.u32("seed")?;
        let len = r.u16("payload length")?;
        let payload = r.bytes(usize::from(len), "payload")?;
        r.finish()?;
        Ok(Self {
            generation,
            seed,
            payload,
        })
    }

    /// Append the wire form to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        write_header(out, self.generation, self.seed, self.payload.len() as u16);
        out.extend_from_slice(self.payload);
    }

    /// Owned copy.
    pub fn to_owned(&self) -> LtSymbol {
        LtSymbol {
            generation: self.generation,
            seed: self.seed,
            payload: self.payload.to_vec(),
        }
    }
}

/// An owned LT symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LtSymbol {
    generation: u32,
    seed: u32,
    payload: Vec<u8>,
}

impl LtSymbol {
    /// A symbol; fails if the payload cannot be described by the header.
    pub fn new(generation: u32, seed: u32, payload: Vec<u8>) -> Result<Self> {
        if payload.len() > usize::from(u16::MAX) {
            return Err(CodingError::PayloadLength {
                expected: usize::from(u16::MAX),
                found: payload.len(),
            });
        }
        Ok(Self {
            generation,
            seed,
            payload,
        })
    }

    pub fn generation(&self) -> u32 {
        self.generation
    }

    pub fn seed(&self) -> u32 {
        self.seed
    }

    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Borrowed view.
    pub fn as_ref(&self) -> LtSymbolRef<'_> {
        LtSymbolRef {
            generation: self.generation,
            seed: self.seed,
            payload: &self.payload,
        }
    }

    /// Wire form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(LT_HEADER_LEN + self.payload.len());
        self.as_ref().write_to(&mut out);
        out
    }

    /// Parse the wire form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        LtSymbolRef::from_bytes(bytes).map(|s| s.to_owned())
    }
}

pub(crate) fn write_header(out: &mut Vec<u8>, generation: u32, seed: u32, payload_len: u16) {
    out.push(LT_TAG);
    out.push(LT_VERSION);
    out.extend_from_slice(&generation.to_be_bytes());
    out.extend_from_slice(&seed.to_be_bytes());
    out.extend_from_slice(&payload_len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let s = LtSymbol::new(7, 0xdead_beef, vec![1, 2, 3]).unwrap();
        let bytes = s.to_bytes();
        assert_eq!(bytes.len(), LT_HEADER_LEN + 3);
        assert_eq!(&bytes[..2], b"L\x01");
        assert_eq!(LtSymbol::from_bytes(&bytes).unwrap(), s);
    }

    #[test]
    fn rejects_malformed_bytes() {
        let good = LtSymbol::new(1, 2, vec![9; 4]).unwrap().to_bytes();
        for cut in 0..good.len() {
            assert!(matches!(
                LtSymbolRef::from_bytes(&good[..cut]),
                Err(CodingError::Truncated { .. })
            ));
        }
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(
            LtSymbolRef::from_bytes(&long),
            Err(CodingError::TrailingBytes { .. })
        ));
        let mut wrong = good.clone();
        wrong[0] = b'R';
        assert!(matches!(
            LtSymbolRef::from_bytes(&wrong),
            Err(CodingError::WrongKind { .. })
        ));
        let mut version = good;
        version[1] = 9;
        assert_eq!(
            LtSymbolRef::from_bytes(&version),
            Err(CodingError::UnsupportedVersion(9))
        );
    }
}
