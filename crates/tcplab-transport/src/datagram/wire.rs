//! Datagrams in the UDP driver's wire format (docs/wire-format.md): the fixed part of
//! DATAGRAM after the driver's common header.

use super::Datagram;
use crate::codec::{CodecError, Reader, Writer};
use tcplab_core::Time;

/// Message type code (the common header's type byte).
pub const DATAGRAM_TYPE: u8 = 8;
/// DATAGRAM fixed part: seq (8), sent_at (8).
pub const DATAGRAM_FIXED: usize = 16;

/// Writes `d`'s fixed part (`sent_at` already in the clock the peer expects).
pub fn put(w: &mut Writer<'_>, d: &Datagram) {
    w.u64(d.seq);
    w.u64(d.sent_at.0);
}

/// Reads the fixed part; `len` is the driver's to fill in (the payload length).
pub fn get(r: &mut Reader<'_>) -> Result<Datagram, CodecError> {
    Ok(Datagram {
        seq: r.u64("sequence number")?,
        sent_at: Time(r.u64("send time")?),
        len: 0,
    })
}

/// Whether a decoded datagram with `payload_len` bytes is possible.
pub fn check(payload_len: usize) -> Result<(), CodecError> {
    if payload_len == 0 {
        return Err(CodecError::Invalid("datagram without payload"));
    }
    Ok(())
}
