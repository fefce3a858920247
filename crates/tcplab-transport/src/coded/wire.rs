//! The coded transports' messages in the UDP driver's wire format
//! (docs/wire-format.md): the fixed parts of SYMBOL (TCP/NC's RLNC, TCP-Forward's LT)
//! and of TCP-Forward's CODED_ACK after the driver's common header. TCP/NC's
//! acknowledgements are TCP ACKs.

use super::{Code, CodedAck, Symbol};
use crate::codec::{CodecError, Reader, Writer};
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
