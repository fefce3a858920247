//! The coded transports' messages in the UDP driver's wire format
//! (docs/wire-format.md): the fixed parts of SYMBOL (TCP/NC's RLNC, TCP-Forward's LT)
//! and of TCP-Forward's CODED_ACK after the driver's common header. TCP/NC's
//! acknowledgements are TCP ACKs.

use super::{
    Code, CodedAck, CodedPacket, Symbol, FORWARD_HEADER_BYTES, FORWARD_IP_UDP_BYTES,
    NC_FRAMING_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES,
};
use crate::codec::{CodecError, Reader, Writer};
use crate::forward::{ForwardSpec, ForwardTransport};
use crate::nc::{NcSpec, NcTransport};
use crate::packet::Packet;
use crate::tcp::wire as tcp_wire;
use crate::wire_flow::{Resize, WireFlow, WireTransport};
use crate::wire_packet::{WireClaim, WirePacket, COMMON_HEADER, FLAG_REPAIR, IP_UDP};
use tcplab_core::Time;

/// Message type codes (the common header's type byte).
pub const SYMBOL_TYPE: u8 = 16;
pub const ACK_TYPE: u8 = 19;
/// SYMBOL fixed part: code (1), reserved (3), start, span, seed, base, newest (4 each),
/// entered (8).
pub const SYMBOL_FIXED: usize = 32;
/// CODED_ACK fixed part: index, cum, echo, reserved (4 each).
pub const ACK_FIXED: usize = 16;

/// The code byte of a SYMBOL (1: RLNC, 2: LT).
pub fn code_byte(c: Code) -> u8 {
    match c {
        Code::Rlnc => 1,
        Code::Lt => 2,
    }
}

/// Writes `s`'s fixed part (`entered` already in the clock the peer expects).
pub fn put_symbol(w: &mut Writer<'_>, s: &Symbol) {
    w.u8(code_byte(s.code));
    w.put(&[0, 0, 0]);
    w.u32(s.start);
    w.u32(s.span);
    w.u32(s.seed);
    w.u32(s.base);
    w.u32(s.newest);
    w.u64(s.entered.0);
}

/// Reads a symbol's fixed part; `payload`, `repair` and `flow` are the driver's to fill
/// in (payload length, header flag, connection).
pub fn get_symbol(r: &mut Reader<'_>) -> Result<Symbol, CodecError> {
    let code = match r.u8("code")? {
        1 => Code::Rlnc,
        2 => Code::Lt,
        _ => return Err(CodecError::Invalid("symbol code")),
    };
    let _ = r.take(3, "reserved")?;
    Ok(Symbol {
        flow: 0,
        code,
        start: r.u32("window start")?,
        span: r.u32("window length")?,
        seed: r.u32("seed")?,
        base: r.u32("base")?,
        newest: r.u32("newest entered")?,
        entered: Time(r.u64("entry time")?),
        payload: 0,
        repair: false,
    })
}

/// Whether a decoded symbol with `payload_len` bytes is possible.
pub fn check_symbol(s: &Symbol, payload_len: usize) -> Result<(), CodecError> {
    if s.span == 0 || s.start.checked_add(s.span).is_none() {
        return Err(CodecError::Invalid("symbol window"));
    }
    if payload_len == 0 {
        return Err(CodecError::Invalid("symbol without payload"));
    }
    Ok(())
}

/// Writes a TCP-Forward ACK's fixed part.
pub fn put_ack(w: &mut Writer<'_>, a: &CodedAck) {
    w.u32(a.index);
    w.u32(a.cum);
    w.u32(a.echo);
    w.u32(0);
}

/// Reads a TCP-Forward ACK's fixed part (`flow` is the driver's to fill in).
pub fn get_ack(r: &mut Reader<'_>) -> Result<CodedAck, CodecError> {
    let a = CodedAck {
        flow: 0,
        index: r.u32("index")?,
        cum: r.u32("cumulative")?,
        echo: r.u32("echo")?,
    };
    let _ = r.u32("reserved")?;
    Ok(a)
}

/// The coded transports in the driver's datagrams: SYMBOL (its fixed part, then the
/// symbol's bytes) and TCP-Forward's CODED_ACK (its fixed part, then the driver's
/// timestamps).
impl WirePacket for CodedPacket {
    const TYPES: &'static [u8] = &[SYMBOL_TYPE, ACK_TYPE];

    fn wire_type(&self) -> Option<u8> {
        Some(match self {
            CodedPacket::Symbol(_) => SYMBOL_TYPE,
            CodedPacket::Ack(_) => ACK_TYPE,
        })
    }
    fn wire_flags(&self) -> u8 {
        match self {
            CodedPacket::Symbol(s) if s.repair => FLAG_REPAIR,
            _ => 0,
        }
    }
    fn carries_timestamp(&self) -> bool {
        matches!(self, CodedPacket::Ack(_))
    }
    fn fixed_len(&self) -> usize {
        match self {
            CodedPacket::Symbol(_) => SYMBOL_FIXED,
            CodedPacket::Ack(_) => ACK_FIXED,
        }
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        match self {
            CodedPacket::Symbol(s) => put_symbol(w, s),
            CodedPacket::Ack(a) => put_ack(w, a),
        }
        Ok(())
    }
    fn get_fixed(ty: u8, flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(if ty == SYMBOL_TYPE {
            CodedPacket::Symbol(Symbol {
                repair: flags & FLAG_REPAIR != 0,
                ..get_symbol(r)?
            })
        } else {
            CodedPacket::Ack(get_ack(r)?)
        })
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        match self {
            CodedPacket::Symbol(s) => {
                check_symbol(s, len)?;
                s.payload =
                    u32::try_from(len).map_err(|_| CodecError::Invalid("payload length"))?;
            }
            CodedPacket::Ack(_) if len != 0 => {
                return Err(CodecError::Invalid("trailing bytes after a coded ACK"))
            }
            CodedPacket::Ack(_) => {}
        }
        Ok(())
    }
    fn map_times(&mut self, f: &mut dyn FnMut(Time) -> Time) {
        if let CodedPacket::Symbol(s) = self {
            s.entered = f(s.entered);
        }
    }
    fn claim(&self) -> WireClaim {
        match self {
            CodedPacket::Symbol(s) => WireClaim::Symbol {
                end: u64::from(s.start) + u64::from(s.span),
                seed: s.seed,
                framing: NC_FRAMING_BYTES,
            },
            CodedPacket::Ack(a) => WireClaim::AckSegments {
                cum: u64::from(a.cum),
                highest: u64::from(a.index) + 1,
            },
        }
    }
}

/// The bytes a SYMBOL datagram (IPv4, UDP, the driver's common header, the fixed part)
/// has beyond a simulated symbol's headers (`sim`).
const fn symbol_extra(sim: u32) -> u32 {
    (IP_UDP + COMMON_HEADER + SYMBOL_FIXED) as u32 - sim
}

fn rlnc_or_ack(p: &Packet) -> bool {
    !matches!(p, Packet::Coded(CodedPacket::Symbol(s)) if s.code != Code::Rlnc)
}

fn lt_or_ack(p: &Packet) -> bool {
    !matches!(p, Packet::Coded(CodedPacket::Symbol(s)) if s.code != Code::Lt)
}

/// TCP/NC: RLNC symbols one way, TCP's ACKs (`tcp::wire`) the other.
impl WireTransport for NcTransport {
    const WIRE_CODE: Option<u8> = Some(3);

    fn wire(spec: &Box<NcSpec>) -> Option<WireFlow> {
        let mss = spec.tcp.sender.mss;
        Some(WireFlow {
            mss,
            rcv_buf: u64::from(spec.coding.buffer) * u64::from(mss),
            reliable: true,
            source_types: &[SYMBOL_TYPE],
            sink_types: &[tcp_wire::ACK_TYPE],
            accepts: rlnc_or_ack,
            symbol_bytes: spec.coding.payload,
            resize: Some(Resize {
                key: "flow.mss",
                extra: symbol_extra(NC_IP_TCP_BYTES + NC_HEADER_BYTES),
            }),
            refuse: tcp_wire::ecn_refusal(&spec.tcp),
        })
    }

    fn set_wire_payload(spec: &mut Box<NcSpec>, payload: u32) {
        tcp_wire::set_payload(&mut spec.tcp, payload);
    }
}

/// TCP-Forward: LT symbols one way, CODED_ACKs the other.
impl WireTransport for ForwardTransport {
    const WIRE_CODE: Option<u8> = Some(4);

    fn wire(spec: &Box<ForwardSpec>) -> Option<WireFlow> {
        Some(WireFlow {
            mss: spec.mss,
            rcv_buf: u64::MAX,
            reliable: true,
            source_types: &[SYMBOL_TYPE],
            sink_types: &[ACK_TYPE],
            accepts: lt_or_ack,
            symbol_bytes: spec.coding.payload,
            resize: Some(Resize {
                key: "flow.mss",
                extra: symbol_extra(FORWARD_IP_UDP_BYTES + FORWARD_HEADER_BYTES),
            }),
            refuse: None,
        })
    }

    fn set_wire_payload(spec: &mut Box<ForwardSpec>, payload: u32) {
        spec.mss = payload;
    }
}
