//! TCP's messages in the UDP driver's wire format (docs/wire-format.md): the fixed parts
//! of DATA and ACK after the driver's common header, and the two options only TCP
//! carries (SACK blocks, the endpoint's RFC 7323 timestamps).

use super::{SackBlock, Timestamps, MAX_SACK_BLOCKS};
use crate::codec::{CodecError, Reader, Writer};

/// Message type codes (the common header's type byte).
pub const DATA_TYPE: u8 = 3;
pub const ACK_TYPE: u8 = 4;
/// DATA fixed part: sequence number.
pub const DATA_FIXED: usize = 8;
/// ACK fixed part: ack, window (8 each).
pub const ACK_FIXED: usize = 16;

/// Option kinds (the driver's options area; kind, length, value).
pub const OPT_SACK: u8 = 2;
/// The endpoint's own RFC 7323 timestamps (`timestamps = true`), distinct from the
/// driver's nanosecond TIMESTAMP option.
pub const OPT_TCP_TIMESTAMP: u8 = 3;
/// Option header: kind (1), length of the value (1).
const OPTION_HEADER: usize = 2;
/// TCP timestamp option value: tsval (4), tsecr (4), as RFC 7323's 32-bit fields.
pub const TCP_TIMESTAMP_LEN: usize = 8;
/// SACK blocks one ACK may carry (RFC 2018's four; the endpoints send up to
/// [`MAX_SACK_BLOCKS`]).
pub const MAX_SACK: usize = 4;
const _: () = assert!(MAX_SACK_BLOCKS <= MAX_SACK);
/// Bytes per SACK block: start, end (8 each).
const SACK_BLOCK: usize = 16;

/// Bytes the TCP timestamp option takes.
pub fn tcp_ts_len(ts: &Option<Timestamps>) -> usize {
    ts.map_or(0, |_| OPTION_HEADER + TCP_TIMESTAMP_LEN)
}

/// Writes the TCP timestamp option, if any.
pub fn put_tcp_ts(w: &mut Writer<'_>, ts: &Option<Timestamps>) {
    if let Some(t) = ts {
        w.u8(OPT_TCP_TIMESTAMP);
        w.u8(TCP_TIMESTAMP_LEN as u8);
        w.u32(t.val);
        w.u32(t.ecr);
    }
}

/// Reads a TCP timestamp option's value (`seen`: one was read already).
pub fn get_tcp_ts(value: &[u8], seen: bool) -> Result<Timestamps, CodecError> {
    if value.len() != TCP_TIMESTAMP_LEN || seen {
        return Err(bad(OPT_TCP_TIMESTAMP, value));
    }
    let mut v = Reader::new(value);
    Ok(Timestamps {
        val: v.u32("TCP tsval")?,
        ecr: v.u32("TCP tsecr")?,
    })
}

/// Bytes the SACK option takes for `n` blocks (none without blocks).
pub fn sack_len(n: usize) -> usize {
    if n > 0 {
        OPTION_HEADER + SACK_BLOCK * n
    } else {
        0
    }
}

/// Writes the SACK option for `blocks`, if any.
pub fn put_sack(w: &mut Writer<'_>, blocks: &[SackBlock]) {
    if !blocks.is_empty() {
        w.u8(OPT_SACK);
        w.u8((SACK_BLOCK * blocks.len()) as u8);
        for b in blocks {
            w.u64(b.start);
            w.u64(b.end);
        }
    }
}

/// Reads a SACK option's value into `out`; returns the number of blocks (`seen`: one
/// was read already).
pub fn get_sack(
    value: &[u8],
    seen: bool,
    out: &mut [SackBlock; MAX_SACK],
) -> Result<u8, CodecError> {
    let len = value.len();
    if len % SACK_BLOCK != 0 || len > SACK_BLOCK * MAX_SACK || seen {
        return Err(bad(OPT_SACK, value));
    }
    let n = len / SACK_BLOCK;
    let mut v = Reader::new(value);
    for b in out.iter_mut().take(n) {
        let start = v.u64("SACK start")?;
        let end = v.u64("SACK end")?;
        if end <= start {
            return Err(CodecError::Invalid("SACK block (end <= start)"));
        }
        *b = SackBlock { start, end };
    }
    Ok(n as u8)
}

fn bad(kind: u8, value: &[u8]) -> CodecError {
    CodecError::BadOption {
        kind,
        len: value.len() as u8,
    }
}

/// Whether a decoded data segment at `seq` with `payload_len` bytes is possible.
pub fn check_data(seq: u64, payload_len: usize) -> Result<(), CodecError> {
    if payload_len == 0 {
        return Err(CodecError::Invalid("data without payload"));
    }
    if seq.checked_add(payload_len as u64).is_none() {
        return Err(CodecError::Invalid("sequence number (wraps)"));
    }
    Ok(())
}
