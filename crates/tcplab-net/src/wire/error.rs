//! Why a datagram is not a valid tcplab message.

use std::fmt;
use tcplab_transport::codec::CodecError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than `what` needs.
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    BadMagic(u16),
    UnsupportedVersion(u8),
    UnknownType(u8),
    /// An option whose length does not fit its kind or the options area.
    BadOption {
        kind: u8,
        len: u8,
    },
    /// A field with an impossible value (e.g. a SACK block that ends before it starts).
    Invalid(&'static str),
    /// The encoder's buffer is too small.
    BufferTooSmall {
        needed: usize,
        available: usize,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated at {what}: needs {needed} bytes, {available} left"
            ),
            WireError::BadMagic(m) => write!(f, "not a tcplab datagram (magic {m:#06x})"),
            WireError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "wire format version {v} (this build speaks {})",
                    super::VERSION
                )
            }
            WireError::UnknownType(t) => write!(f, "unknown message type {t}"),
            WireError::BadOption { kind, len } => {
                write!(f, "option kind {kind} with impossible length {len}")
            }
            WireError::Invalid(what) => write!(f, "invalid {what}"),
            WireError::BufferTooSmall { needed, available } => {
                write!(
                    f,
                    "encoding needs {needed} bytes, the buffer has {available}"
                )
            }
        }
    }
}

impl std::error::Error for WireError {}

impl From<CodecError> for WireError {
    fn from(e: CodecError) -> WireError {
        match e {
            CodecError::Truncated {
                what,
                needed,
                available,
            } => WireError::Truncated {
                what,
                needed,
                available,
            },
            CodecError::Invalid(what) => WireError::Invalid(what),
            CodecError::BadOption { kind, len } => WireError::BadOption { kind, len },
        }
    }
}

impl WireError {
    /// A short label for counting rejected datagrams by cause.
    pub fn label(&self) -> &'static str {
        match self {
            WireError::Truncated { .. } => "truncated",
            WireError::BadMagic(_) => "bad_magic",
            WireError::UnsupportedVersion(_) => "bad_version",
            WireError::UnknownType(_) => "unknown_type",
            WireError::BadOption { .. } => "bad_option",
            WireError::Invalid(_) => "invalid_field",
            WireError::BufferTooSmall { .. } => "buffer_too_small",
        }
    }
}
