//! tcplab's wire format, version 1: how the sans-IO endpoints' segments and ACKs travel
//! in UDP datagrams. The normative description is `docs/wire-format.md`; this module is
//! its one implementation.
//!
//! Every datagram starts with a 16-byte common header (magic, version, type, flags,
//! options length, connection id), then a fixed part per type, then TLV options (the
//! driver's timestamps and nonce, then the transport's own, such as TCP's SACK blocks;
//! unknown kinds are skipped), then the payload (data only).
//! Decoding never panics and never allocates: every read is bounds-checked and every
//! failure is a [`WireError`] naming the field.
//!
//! This module is the framing and the driver's own messages (HELLO, HELLO_ACK, CLOSE,
//! CLOSE_ACK, RESET). A transport's packets travel as [`Message::Packet`]: their type
//! bytes, fixed parts and options are laid out by the header's
//! `tcplab_transport::WirePacket`, implemented in the transport's folder (`<t>/wire.rs`),
//! over the sans-IO reader and writer of `tcplab_transport::codec`. Nothing here names a
//! transport.

mod decode;
mod encode;
mod error;
pub mod mac;
mod message;

pub use decode::decode;
pub use encode::{encode, encode_packet_header};
pub use error::WireError;
pub use mac::{Key, TAG_LEN};
pub use message::{Message, MessageType, Timestamps, TransportCode};

/// "TL"
pub const MAGIC: u16 = 0x544c;
pub const VERSION: u8 = 1;
/// Common header: magic (2), version (1), type (1), flags (1), options length (1),
/// reserved (2), connection id (8).
pub use tcplab_transport::COMMON_HEADER;
/// Option header: kind (1), length of the value (1).
pub const OPTION_HEADER: usize = 2;
/// Timestamp option value: tsval (8), tsecr (8).
pub const TIMESTAMP_LEN: usize = 16;
const _: () = assert!(OPTION_HEADER + TIMESTAMP_LEN == tcplab_transport::TIMESTAMP_OPTION);

/// Flag bits a transport's packets use (FIN, retransmission, repair) are its own
/// (`tcplab_transport::{FLAG_FIN, FLAG_RETX, FLAG_REPAIR}`); these are the driver's.
/// CLOSE: the sender was stopped (Ctrl-C) before its transfer ended.
pub const FLAG_INTERRUPTED: u8 = 0x08;
/// Any type: the datagram ends in a [`mac::TAG_LEN`]-byte MAC (a pre-shared key).
pub const FLAG_MAC: u8 = 0x80;

/// Option kinds the driver itself uses (any other kind belongs to the transport: TCP's
/// SACK (2) and RFC 7323 timestamps (3) are in `tcplab_transport::tcp::wire`).
pub const OPT_PAD: u8 = 0;
/// The driver's nanosecond timestamps (PAWS and the driver's RTT use them).
pub const OPT_TIMESTAMP: u8 = 1;
/// HELLO_ACK with a pre-shared key: the receiver's session nonce (8 bytes).
pub const OPT_NONCE: u8 = 4;
pub const NONCE_LEN: usize = 8;

#[cfg(test)]
mod tests;
