//! TACK's messages in the UDP driver's wire format (docs/wire-format.md): the fixed
//! parts of TACK_DATA and TACK_ACK after the driver's common header.

use super::{AckKind, Gap, TackAck, TackData, MAX_GAPS};
use crate::codec::{CodecError, Reader, Writer};
use tcplab_core::Time;

/// Message type codes (the common header's type byte).
pub const DATA_TYPE: u8 = 17;
pub const ACK_TYPE: u8 = 18;
/// TACK_DATA fixed part: seq, pn, pn_floor, sent_at, rtt_min (8 each).
pub const TACK_DATA_FIXED: usize = 40;
/// TACK_ACK fixed part before its gaps: kind (1), gap count (1), reserved (2), tack_seq,
/// wnd, delivery_rate (4 each), rcv_nxt, largest, base (8 each), covered, min_owd_back,
/// min_owd_delay, largest_delay (4 each).
pub const TACK_ACK_FIXED: usize = 56;
/// Bytes per gap after the fixed part: start, length (2 each).
pub const GAP_BYTES: usize = 4;

/// Writes `d`'s fixed part (`sent_at` already in the clock the peer expects).
pub fn put_data(w: &mut Writer<'_>, d: &TackData) {
    w.u64(d.seq);
    w.u64(d.pn);
    w.u64(d.pn_floor);
    w.u64(d.sent_at.0);
    w.u64(d.rtt_min_ns);
}

/// Reads a data fixed part; `len`, `fin`, `retransmission` and `flow` are the driver's
/// to fill in (payload length, header flags, connection).
pub fn get_data(r: &mut Reader<'_>) -> Result<TackData, CodecError> {
    let d = TackData {
        flow: 0,
        len: 0,
        seq: r.u64("sequence number")?,
        pn: r.u64("packet number")?,
        pn_floor: r.u64("packet number floor")?,
        sent_at: Time(r.u64("send time")?),
        rtt_min_ns: r.u64("rtt_min")?,
        fin: false,
        retransmission: false,
    };
    Ok(d)
}

/// Whether a decoded data packet with `payload_len` bytes is possible.
pub fn check_data(d: &TackData, payload_len: usize) -> Result<(), CodecError> {
    if payload_len == 0 {
        return Err(CodecError::Invalid("data without payload"));
    }
    if d.seq.checked_add(payload_len as u64).is_none() {
        return Err(CodecError::Invalid("sequence number (wraps)"));
    }
    if d.pn_floor > d.pn {
        return Err(CodecError::Invalid(
            "packet number floor (above the packet number)",
        ));
    }
    Ok(())
}

/// Bytes of `a`'s fixed part and gaps.
pub fn ack_len(a: &TackAck) -> usize {
    TACK_ACK_FIXED + GAP_BYTES * a.n_gaps as usize
}

/// Writes `a`'s fixed part and gaps.
pub fn put_ack(w: &mut Writer<'_>, a: &TackAck) -> Result<(), CodecError> {
    if a.n_gaps as usize > a.gaps.len() {
        return Err(CodecError::Invalid("TACK gap count"));
    }
    w.u8(match a.kind {
        AckKind::Tack => 0,
        AckKind::IackLoss => 1,
        AckKind::IackWindow => 2,
    });
    w.u8(a.n_gaps);
    w.u16(0);
    w.u32(a.tack_seq);
    w.u32(a.wnd);
    w.u32(a.delivery_rate);
    w.u64(a.rcv_nxt);
    w.u64(a.largest);
    w.u64(a.base);
    w.u32(a.covered);
    w.u32(a.min_owd_back);
    w.u32(a.min_owd_delay_ns);
    w.u32(a.largest_delay_ns);
    for g in a.gaps() {
        w.u16(g.start);
        w.u16(g.len);
    }
    Ok(())
}

/// Reads an ACK's fixed part and gaps (`flow` is the driver's to fill in).
pub fn get_ack(r: &mut Reader<'_>) -> Result<TackAck, CodecError> {
    let kind = match r.u8("ACK kind")? {
        0 => AckKind::Tack,
        1 => AckKind::IackLoss,
        2 => AckKind::IackWindow,
        _ => return Err(CodecError::Invalid("TACK kind")),
    };
    let n_gaps = r.u8("gap count")?;
    if n_gaps as usize > MAX_GAPS {
        return Err(CodecError::Invalid("TACK gap count"));
    }
    let _ = r.u16("reserved")?;
    let mut a = TackAck {
        kind,
        n_gaps,
        tack_seq: r.u32("tack_seq")?,
        wnd: r.u32("window")?,
        delivery_rate: r.u32("delivery rate")?,
        rcv_nxt: r.u64("rcv_nxt")?,
        largest: r.u64("largest")?,
        base: r.u64("base")?,
        covered: r.u32("covered")?,
        min_owd_back: r.u32("min_owd_back")?,
        min_owd_delay_ns: r.u32("min_owd_delay")?,
        largest_delay_ns: r.u32("largest_delay")?,
        ..TackAck::default()
    };
    for g in a.gaps.iter_mut().take(n_gaps as usize) {
        *g = Gap {
            start: r.u16("gap start")?,
            len: r.u16("gap length")?,
        };
    }
    if a.base > a.largest {
        return Err(CodecError::Invalid("TACK base (above largest)"));
    }
    Ok(a)
}
