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
pub mod mac;
mod message;

pub use decode::decode;
pub use encode::{encode, encode_data_header};
pub use error::WireError;
pub use mac::{Key, TAG_LEN};
pub use message::{Message, MessageType, Timestamps, TransportCode, MAX_SACK};

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
/// SYMBOL: sent by loss recovery (TCP-Forward's Diff_p repair symbols).
pub const FLAG_REPAIR: u8 = 0x04;
/// CLOSE: the sender was stopped (Ctrl-C) before its transfer ended.
pub const FLAG_INTERRUPTED: u8 = 0x08;
/// Any type: the datagram ends in a [`mac::TAG_LEN`]-byte MAC (a pre-shared key).
pub const FLAG_MAC: u8 = 0x80;

/// DATAGRAM fixed part: seq (8), sent_at (8).
pub const DATAGRAM_FIXED: usize = 16;
/// SYMBOL fixed part: code (1), reserved (3), start, span, seed, base, newest (4 each),
/// entered (8).
pub const SYMBOL_FIXED: usize = 32;
/// TACK_DATA fixed part: seq, pn, pn_floor, sent_at, rtt_min (8 each).
pub const TACK_DATA_FIXED: usize = 40;
/// TACK_ACK fixed part before its gaps: kind (1), gap count (1), reserved (2), tack_seq,
/// wnd, delivery_rate (4 each), rcv_nxt, largest, base (8 each), covered, min_owd_back,
/// min_owd_delay, largest_delay (4 each).
pub const TACK_ACK_FIXED: usize = 56;

/// Option kinds.
pub const OPT_PAD: u8 = 0;
pub const OPT_TIMESTAMP: u8 = 1;
pub const OPT_SACK: u8 = 2;
/// The endpoint's own RFC 7323 timestamps (`timestamps = true`), distinct from the
/// driver's nanosecond TIMESTAMP option above (which PAWS and the driver's RTT use).
pub const OPT_TCP_TIMESTAMP: u8 = 3;
/// TCP timestamp option value: tsval (4), tsecr (4), as RFC 7323's 32-bit fields.
pub const TCP_TIMESTAMP_LEN: usize = 8;
/// HELLO_ACK with a pre-shared key: the receiver's session nonce (8 bytes).
pub const OPT_NONCE: u8 = 4;
pub const NONCE_LEN: usize = 8;

#[cfg(test)]
mod tests;
