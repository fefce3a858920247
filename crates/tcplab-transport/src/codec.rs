//! Sans-IO byte codec for the UDP driver's wire format (docs/wire-format.md): a writer
//! into a caller's buffer and a bounds-checked reader of untrusted bytes. Each transport
//! lays out its own messages' fixed parts with them in its folder's `wire.rs`; the
//! driver (`tcplab-net`) owns the framing around them (common header, options, MAC).
//!
//! Big-endian throughout. Reading never panics and never allocates: every read is
//! bounds-checked and a failure names the field.

/// Why bytes are not a valid message part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodecError {
    /// Fewer bytes than `what` needs.
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    /// A field with an impossible value (e.g. a window that wraps).
    Invalid(&'static str),
    /// An option whose length does not fit its kind, or that appears twice.
    BadOption { kind: u8, len: u8 },
}

/// Writes into a buffer the caller has checked is long enough.
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }
    /// Bytes written so far.
    pub fn pos(&self) -> usize {
        self.pos
    }
    pub fn put(&mut self, b: &[u8]) {
        self.buf[self.pos..self.pos + b.len()].copy_from_slice(b);
        self.pos += b.len();
    }
    pub fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    pub fn u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.put(&v.to_be_bytes());
    }
}

/// Reads untrusted bytes.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }
    /// Bytes read so far.
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// Whether every byte was read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], CodecError> {
        let available = self.buf.len() - self.pos;
        if n > available {
            return Err(CodecError::Truncated {
                what,
                needed: n,
                available,
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub fn u8(&mut self, what: &'static str) -> Result<u8, CodecError> {
        Ok(self.take(1, what)?[0])
    }
    pub fn u16(&mut self, what: &'static str) -> Result<u16, CodecError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub fn u32(&mut self, what: &'static str) -> Result<u32, CodecError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u64(&mut self, what: &'static str) -> Result<u64, CodecError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    /// The unread bytes (all of them are then read).
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }
}
