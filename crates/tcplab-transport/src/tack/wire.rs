//! TACK's messages in the UDP driver's wire format (docs/wire-format.md): the fixed
//! parts of TACK_DATA and TACK_ACK after the driver's common header.

use super::{
    AckKind, Gap, TackAck, TackData, TackPacket, TackSpec, TackTransport, MAX_GAPS,
    TACK_DATA_HEADER_BYTES,
};
use crate::codec::{CodecError, Reader, Writer};
use crate::wire_flow::{any_packet, Resize, WireFlow, WireTransport};
use crate::wire_packet::{WireClaim, WirePacket, COMMON_HEADER, FLAG_FIN, FLAG_RETX, IP_UDP};
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

/// TACK in the driver's datagrams: TACK_DATA (its fixed part, then the payload) and
/// TACK_ACK (its fixed part and gaps, then the driver's timestamps).
impl WirePacket for TackPacket {
    const TYPES: &'static [u8] = &[DATA_TYPE, ACK_TYPE];

    fn wire_type(&self) -> Option<u8> {
        Some(match self {
            TackPacket::Data(_) => DATA_TYPE,
            TackPacket::Ack(_) => ACK_TYPE,
        })
    }
    fn wire_flags(&self) -> u8 {
        match self {
            TackPacket::Data(d) => {
                (if d.fin { FLAG_FIN } else { 0 }) | if d.retransmission { FLAG_RETX } else { 0 }
            }
            TackPacket::Ack(_) => 0,
        }
    }
    fn carries_timestamp(&self) -> bool {
        matches!(self, TackPacket::Ack(_))
    }
    fn fixed_len(&self) -> usize {
        match self {
            TackPacket::Data(_) => TACK_DATA_FIXED,
            TackPacket::Ack(a) => TACK_ACK_FIXED + GAP_BYTES * (a.n_gaps as usize).min(MAX_GAPS),
        }
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        match self {
            TackPacket::Data(d) => put_data(w, d),
            TackPacket::Ack(a) => put_ack(w, a)?,
        }
        Ok(())
    }
    fn get_fixed(ty: u8, flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(if ty == DATA_TYPE {
            TackPacket::Data(TackData {
                fin: flags & FLAG_FIN != 0,
                retransmission: flags & FLAG_RETX != 0,
                ..get_data(r)?
            })
        } else {
            TackPacket::Ack(get_ack(r)?)
        })
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        match self {
            TackPacket::Data(d) => {
                check_data(d, len)?;
                d.len = u32::try_from(len).map_err(|_| CodecError::Invalid("payload length"))?;
            }
            TackPacket::Ack(_) if len != 0 => {
                return Err(CodecError::Invalid("trailing bytes after a TACK"))
            }
            TackPacket::Ack(_) => {}
        }
        Ok(())
    }
    fn map_times(&mut self, f: &mut dyn FnMut(Time) -> Time) {
        if let TackPacket::Data(d) = self {
            d.sent_at = f(d.sent_at);
        }
    }
    fn claim(&self) -> WireClaim {
        match self {
            TackPacket::Data(d) => WireClaim::Stream {
                offset: d.seq,
                pn: Some(d.pn),
            },
            TackPacket::Ack(a) => WireClaim::AckBytes {
                cum: a.rcv_nxt,
                highest: a.rcv_nxt,
            },
        }
    }
}

impl WireTransport for TackTransport {
    const WIRE_CODE: Option<u8> = Some(2);

    fn wire(spec: &TackSpec) -> Option<WireFlow> {
        Some(WireFlow {
            mss: spec.cfg.mss,
            rcv_buf: spec.cfg.rcv_buf,
            reliable: true,
            source_types: &[DATA_TYPE],
            sink_types: &[ACK_TYPE],
            accepts: any_packet,
            symbol_bytes: false,
            resize: Some(Resize {
                key: "flow.mss",
                extra: (IP_UDP + COMMON_HEADER + TACK_DATA_FIXED) as u32 - TACK_DATA_HEADER_BYTES,
            }),
            refuse: None,
        })
    }

    fn set_wire_payload(spec: &mut TackSpec, payload: u32) {
        spec.cfg.mss = payload;
    }
}
