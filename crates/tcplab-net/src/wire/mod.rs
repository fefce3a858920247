//! tcplab's wire format, version 1: how the sans-IO endpoints' segments and ACKs travel
//! in UDP datagrams. The normative description is `docs/wire-format.md`; this module is
//! its one implementation.
//!
//! Every datagram starts with a 16-byte common header (magic, version, type, flags,
//! options length, connection id), then a fixed part per type, then TLV options
//! (timestamps, SACK blocks, the endpoint's RFC 7323 timestamps; unknown kinds are
//! skipped), then the payload (data only).
//! Decoding never panics and never allocates: every read is bounds-checked and every
//! failure is a [`WireError`] naming the field.

mod decode;
mod encode;
mod error;
mod message;

pub use decode::decode;
pub use encode::{encode, encode_data_header};
pub use error::WireError;
pub use message::{Message, MessageType, Timestamps, MAX_SACK};

/// "TL"
pub const MAGIC: u16 = 0x544c;
pub const VERSION: u8 = 1;
/// Common header: magic (2), version (1), type (1), flags (1), options length (1),
/// reserved (2), connection id (8).
pub const COMMON_HEADER: usize = 16;
/// DATA fixed part: sequence number.
pub const DATA_FIXED: usize = 8;
/// Option header: kind (1), length of the value (1).
pub const OPTION_HEADER: usize = 2;
/// Timestamp option value: tsval (8), tsecr (8).
pub const TIMESTAMP_LEN: usize = 16;
/// Header bytes of a DATA datagram with the timestamp option (the driver's layout).
pub const DATA_HEADER_WITH_TS: usize = COMMON_HEADER + DATA_FIXED + OPTION_HEADER + TIMESTAMP_LEN;

/// Flag bits.
pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_RETX: u8 = 0x02;

/// Option kinds.
pub const OPT_PAD: u8 = 0;
pub const OPT_TIMESTAMP: u8 = 1;
pub const OPT_SACK: u8 = 2;
/// The endpoint's own RFC 7323 timestamps (`timestamps = true`), distinct from the
/// driver's nanosecond TIMESTAMP option above (which PAWS and the driver's RTT use).
pub const OPT_TCP_TIMESTAMP: u8 = 3;
/// TCP timestamp option value: tsval (4), tsecr (4), as RFC 7323's 32-bit fields.
pub const TCP_TIMESTAMP_LEN: usize = 8;

#[cfg(test)]
mod tests;
