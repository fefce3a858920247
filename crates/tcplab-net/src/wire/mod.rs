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
//!
//! This module is the framing; each transport's messages are laid out by its folder's
//! `wire.rs` in `tcplab-transport` (`tcp::wire`, `datagram::wire`, `tack::wire`,
//! `coded::wire`), over the sans-IO reader and writer of `tcplab_transport::codec`.

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
// The transports' fixed parts and TCP's options, from their folders.
pub use tcplab_transport::coded::wire::SYMBOL_FIXED;
pub use tcplab_transport::datagram::wire::DATAGRAM_FIXED;
pub use tcplab_transport::tack::wire::{TACK_ACK_FIXED, TACK_DATA_FIXED};
pub use tcplab_transport::tcp::wire::{DATA_FIXED, OPT_SACK, OPT_TCP_TIMESTAMP, TCP_TIMESTAMP_LEN};
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

/// Option kinds the driver itself uses (TCP's SACK (2) and RFC 7323 timestamps (3) are
/// in `tcplab_transport::tcp::wire`).
pub const OPT_PAD: u8 = 0;
/// The driver's nanosecond timestamps (PAWS and the driver's RTT use them).
pub const OPT_TIMESTAMP: u8 = 1;
/// HELLO_ACK with a pre-shared key: the receiver's session nonce (8 bytes).
pub const OPT_NONCE: u8 = 4;
pub const NONCE_LEN: usize = 8;

#[cfg(test)]
mod tests;
