//! Bounds-checked big-endian reading for symbol headers.
//!
//! Every read names the field it wanted, so a truncated symbol produces an
//! error that says where it was cut, and no input can index out of bounds.

use crate::error::{CodingError, Result};

/// A cursor over an untrusted byte string.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// The next `n` bytes, or `Truncated` naming `what`.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let available = self.buf.len() - self.pos;
        if n > available {
            return Err(CodingError::Truncated {
                what,
                needed: n,
                available,
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Succeeds only if every byte was consumed: a symbol longer than its
    /// header describes is malformed, not silently truncated.
    pub fn finish(self) -> Result<()> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(CodingError::TrailingBytes {
                expected: self.pos,
                found: self.buf.len(),
            })
        }
    }

    /// Check the type tag and version that open every symbol.
    pub fn expect_tag(&mut self, tag: u8, version: u8) -> Result<()> {
        let found = self.u8("type tag")?;
        if found != tag {
            return Err(CodingError::WrongKind {
                expected: tag,
                found,
            });
        }
        let v = self.u8("version")?;
        if v != version {
            return Err(CodingError::UnsupportedVersion(v));
        }
        Ok(())
    }
}
