//! The one error type of the crate.
//!
//! Everything that arrives from the network is untrusted, so every parse and
//! decode path returns one of these instead of panicking.

use std::fmt;

/// Why a symbol, parameter or request was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodingError {
    /// The byte string ended before the field `what` was complete.
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    /// The first byte does not name the expected symbol type.
    WrongKind { expected: u8, found: u8 },
    /// The wire-format version byte is not one this build understands.
    UnsupportedVersion(u8),
    /// A mode or reserved field holds a value that has no meaning.
    InvalidField { field: &'static str, value: u32 },
    /// The byte string is longer than its header says.
    TrailingBytes { expected: usize, found: usize },
    /// The payload length differs from the configured symbol size.
    PayloadLength { expected: usize, found: usize },
    /// An LT symbol names a generation the object does not have.
    GenerationOutOfRange { generation: u32, generations: u32 },
    /// An RLNC coding window that is empty, overflows, or exceeds what the
    /// decoder can hold.
    WindowOutOfRange {
        start: u32,
        len: u32,
        limit_start: u32,
        limit_len: u32,
    },
    /// An explicit coefficient vector whose size differs from the window.
    CoefficientCount { expected: usize, found: usize },
    /// A source packet longer than the configured packet size.
    PacketTooLong { len: usize, max: usize },
    /// The encoder's coding window is full; slide it before pushing more.
    WindowFull { capacity: usize },
    /// An index that is not (or no longer) held.
    IndexOutOfRange { index: u64, start: u64, end: u64 },
    /// A constructor argument outside its domain.
    InvalidParameter(String),
}

impl fmt::Display for CodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated {
                what,
                needed,
                available,
            } => write!(
                f,
                "truncated symbol: {what} needs {needed} bytes but only {available} remain"
            ),
            Self::WrongKind { expected, found } => write!(
                f,
                "wrong symbol type: expected tag {expected:#04x}, found {found:#04x}"
            ),
            Self::UnsupportedVersion(v) => write!(f, "unsupported wire-format version {v}"),
            Self::InvalidField { field, value } => {
                write!(f, "invalid value {value} in header field `{field}`")
            }
            Self::TrailingBytes { expected, found } => write!(
                f,
                "wrong symbol length: header describes {expected} bytes but {found} were given"
            ),
            Self::PayloadLength { expected, found } => write!(
                f,
                "wrong payload length: expected {expected} bytes, found {found}"
            ),
            Self::GenerationOutOfRange {
                generation,
                generations,
            } => write!(
                f,
                "generation id {generation} out of range (object has {generations} generations)"
            ),
            Self::WindowOutOfRange {
                start,
                len,
                limit_start,
                limit_len,
            } => write!(
                f,
                "coding window [{start}, {start}+{len}) is empty, overflows, or exceeds the \
                 decoder's capacity [{limit_start}, {limit_start}+{limit_len})"
            ),
            Self::CoefficientCount { expected, found } => write!(
                f,
                "coefficient vector has {found} entries but the coding window has {expected}"
            ),
            Self::PacketTooLong { len, max } => {
                write!(f, "packet of {len} bytes exceeds the packet size {max}")
            }
            Self::WindowFull { capacity } => write!(
                f,
                "coding window is full ({capacity} packets); slide it before pushing"
            ),
            Self::IndexOutOfRange { index, start, end } => {
                write!(f, "index {index} outside the held range [{start}, {end})")
            }
            Self::InvalidParameter(msg) => write!(f, "invalid parameter: {msg}"),
        }
    }
}

impl std::error::Error for CodingError {}

/// A zero-filled buffer, or an error instead of aborting when a
/// caller-supplied size cannot be allocated (sizes come from untrusted
/// configuration, e.g. an object length given from Python).
pub(crate) fn zeroed(len: usize) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| CodingError::InvalidParameter(format!("cannot allocate {len} bytes")))?;
    v.resize(len, 0);
    Ok(v)
}

/// Shorthand used throughout the crate.
pub type Result<T> = std::result::Result<T, CodingError>;
