//! RLNC wire format.
//!
//! ```text
//! offset size field
//!      0    1 tag 'R' (0x52)
//!      1    1 version (1)
//!      2    1 coefficient mode: 0 = seeded, 1 = explicit
//!      3    1 reserved, must be 0
//!      4    4 window start: absolute index of the first packet combined
//!      8    2 window length n (>= 1)
//!     10    2 payload length (must equal packet size + 2)
//! seeded:
//!     12    4 seed; coefficients = SplitMix64::for_key(start, seed) bytes
//! explicit:
//!     12    2 coefficient count (must equal n)
//!     14    n coefficients, one GF(2^8) element per packet
//! then      payload: Σ cᵢ · unitᵢ, unit = [length u16 | data | zero pad]
//! ```
//!
//! Seeded symbols cost 16 header bytes whatever the window; explicit ones
//! are needed after recoding, when coefficients are no longer a PRNG stream.

use crate::error::{CodingError, Result};
use crate::rng::SplitMix64;
use crate::wire::Reader;

/// First byte of every RLNC symbol.
pub const RLNC_TAG: u8 = b'R';
/// Wire-format version this build writes and accepts.
pub const RLNC_VERSION: u8 = 1;
/// Header bytes of a seeded symbol.
pub const RLNC_SEEDED_HEADER_LEN: usize = 16;

const MODE_SEEDED: u8 = 0;
const MODE_EXPLICIT: u8 = 1;

/// How a symbol's coefficients are conveyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoefficientsRef<'a> {
    /// Regenerate with [`seeded_coefficients`].
    Seeded(u32),
    /// One coefficient per packet of the window.
    Explicit(&'a [u8]),
}

/// Fill `out` with the coefficients of seed `seed` for a window starting at
/// `start` (part of the wire format).
pub fn seeded_coefficients(start: u32, seed: u32, out: &mut [u8]) {
    SplitMix64::for_key(start, seed).fill_bytes(out);
}

/// A parsed RLNC symbol borrowing from the input bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RlncSymbolRef<'a> {
    /// Absolute index of the first packet in the coding window.
    pub start: u32,
    /// Packets in the coding window (>= 1).
    pub window_len: u16,
    pub coefficients: CoefficientsRef<'a>,
    pub payload: &'a [u8],
}

impl<'a> RlncSymbolRef<'a> {
    /// Parse one symbol; the input must be exactly one symbol long.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(RLNC_TAG, RLNC_VERSION)?;
        let mode = r.u8("coefficient mode")?;
        let reserved = r.u8("reserved")?;
        if reserved != 0 {
            return Err(CodingError::InvalidField {
                field: "reserved",
                value: u32::from(reserved),
            });
        }
        let start = r.u32("window start")?;
        let window_len = r.u16("window length")?;
        check_window(start, u32::from(window_len))?;
        let payload_len = r.u16("payload length")?;
        let coefficients = match mode {
            MODE_SEEDED => CoefficientsRef::Seeded(r.u32("seed")?),
            MODE_EXPLICIT => {
                let count = r.u16("coefficient count")?;
                if count != window_len {
                    return Err(CodingError::CoefficientCount {
                        expected: usize::from(window_len),
                        found: usize::from(count),
                    });
                }
                CoefficientsRef::Explicit(r.bytes(usize::from(count), "coefficients")?)
            }
            other => {
                return Err(CodingError::InvalidField {
                    field: "coefficient mode",
                    value: u32::from(other),
                })
            }
        };
        let payload = r.bytes(usize::from(payload_len), "payload")?;
        r.finish()?;
        Ok(Self {
            start,
            window_len,
            coefficients,
            payload,
        })
    }

    /// Append the wire form to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        match self.coefficients {
            CoefficientsRef::Seeded(seed) => write_seeded_header(
                out,
                self.start,
                self.window_len,
                self.payload.len() as u16,
                seed,
            ),
            CoefficientsRef::Explicit(c) => {
                write_explicit_header(out, self.start, self.payload.len() as u16, c)
            }
        }
        out.extend_from_slice(self.payload);
    }

    /// Owned copy.
    pub fn to_owned(&self) -> RlncSymbol {
        RlncSymbol {
            start: self.start,
            window_len: self.window_len,
            coefficients: match self.coefficients {
                CoefficientsRef::Seeded(s) => Coefficients::Seeded(s),
                CoefficientsRef::Explicit(c) => Coefficients::Explicit(c.to_vec()),
            },
            payload: self.payload.to_vec(),
        }
    }
}

/// Owned form of [`CoefficientsRef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coefficients {
    Seeded(u32),
    Explicit(Vec<u8>),
}

/// An owned RLNC symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RlncSymbol {
    start: u32,
    window_len: u16,
    coefficients: Coefficients,
    payload: Vec<u8>,
}

impl RlncSymbol {
    /// A symbol whose fields are checked to fit the wire format.
    pub fn new(
        start: u32,
        window_len: u16,
        coefficients: Coefficients,
        payload: Vec<u8>,
    ) -> Result<Self> {
        check_window(start, u32::from(window_len))?;
        if let Coefficients::Explicit(c) = &coefficients {
            if c.len() != usize::from(window_len) {
                return Err(CodingError::CoefficientCount {
                    expected: usize::from(window_len),
                    found: c.len(),
                });
            }
        }
        if payload.len() > usize::from(u16::MAX) {
            return Err(CodingError::PayloadLength {
                expected: usize::from(u16::MAX),
                found: payload.len(),
            });
        }
        Ok(Self {
            start,
            window_len,
            coefficients,
            payload,
        })
    }

    pub fn start(&self) -> u32 {
        self.start
    }

    pub fn window_len(&self) -> u16 {
        self.window_len
    }

    pub fn coefficients(&self) -> &Coefficients {
        &self.coefficients
    }

    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// Borrowed view.
    pub fn as_ref(&self) -> RlncSymbolRef<'_> {
        RlncSymbolRef {
            start: self.start,
            window_len: self.window_len,
            coefficients: match &self.coefficients {
                Coefficients::Seeded(s) => CoefficientsRef::Seeded(*s),
                Coefficients::Explicit(c) => CoefficientsRef::Explicit(c),
            },
            payload: &self.payload,
        }
    }

    /// Wire form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.as_ref().write_to(&mut out);
        out
    }

    /// Parse the wire form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        RlncSymbolRef::from_bytes(bytes).map(|s| s.to_owned())
    }
}

/// A window must be non-empty and addressable with u32 indices.
fn check_window(start: u32, len: u32) -> Result<()> {
    if len == 0 || u64::from(start) + u64::from(len) > u64::from(u32::MAX) + 1 {
        return Err(CodingError::WindowOutOfRange {
            start,
            len,
            limit_start: 0,
            limit_len: u32::MAX,
        });
    }
    Ok(())
}

pub(crate) fn write_seeded_header(
    out: &mut Vec<u8>,
    start: u32,
    window_len: u16,
    payload_len: u16,
    seed: u32,
) {
    out.extend_from_slice(&[RLNC_TAG, RLNC_VERSION, MODE_SEEDED, 0]);
    out.extend_from_slice(&start.to_be_bytes());
    out.extend_from_slice(&window_len.to_be_bytes());
    out.extend_from_slice(&payload_len.to_be_bytes());
    out.extend_from_slice(&seed.to_be_bytes());
}

pub(crate) fn write_explicit_header(
    out: &mut Vec<u8>,
    start: u32,
    payload_len: u16,
    coefficients: &[u8],
) {
    let n = coefficients.len() as u16;
    out.extend_from_slice(&[RLNC_TAG, RLNC_VERSION, MODE_EXPLICIT, 0]);
    out.extend_from_slice(&start.to_be_bytes());
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(&payload_len.to_be_bytes());
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(coefficients);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_both_modes() {
        for coefficients in [
            Coefficients::Seeded(77),
            Coefficients::Explicit(vec![1, 0, 255]),
        ] {
            let s = RlncSymbol::new(1000, 3, coefficients, vec![5; 9]).unwrap();
            let bytes = s.to_bytes();
            assert_eq!(RlncSymbol::from_bytes(&bytes).unwrap(), s);
        }
        let seeded = RlncSymbol::new(0, 3, Coefficients::Seeded(1), vec![0; 4]).unwrap();
        assert_eq!(seeded.to_bytes().len(), RLNC_SEEDED_HEADER_LEN + 4);
    }

    #[test]
    fn rejects_malformed_bytes() {
        let good = RlncSymbol::new(4, 2, Coefficients::Explicit(vec![3, 4]), vec![1; 5])
            .unwrap()
            .to_bytes();
        for cut in 0..good.len() {
            assert!(matches!(
                RlncSymbolRef::from_bytes(&good[..cut]),
                Err(CodingError::Truncated { .. })
            ));
        }
        let mut bad_count = good.clone();
        bad_count[13] = 3; // coefficient count 3 for a window of 2
        assert_eq!(
            RlncSymbolRef::from_bytes(&bad_count),
            Err(CodingError::CoefficientCount {
                expected: 2,
                found: 3
            })
        );
        let mut empty = good.clone();
        empty[8..10].copy_from_slice(&[0, 0]);
        assert!(matches!(
            RlncSymbolRef::from_bytes(&empty),
            Err(CodingError::WindowOutOfRange { .. })
        ));
        let mut mode = good.clone();
        mode[2] = 7;
        assert!(matches!(
            RlncSymbolRef::from_bytes(&mode),
            Err(CodingError::InvalidField { .. })
        ));
        let mut long = good;
        long.push(1);
        assert!(matches!(
            RlncSymbolRef::from_bytes(&long),
            Err(CodingError::TrailingBytes { .. })
        ));
        assert!(RlncSymbol::new(u32::MAX, 2, Coefficients::Seeded(0), vec![]).is_err());
        assert!(RlncSymbol::new(0, 2, Coefficients::Explicit(vec![1]), vec![]).is_err());
    }
}
