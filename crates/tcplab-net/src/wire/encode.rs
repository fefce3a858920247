//! Encoding into a caller's buffer (no allocation).

use super::error::WireError;
use super::message::{Message, MessageType, Timestamps};
use super::{
    COMMON_HEADER, FLAG_INTERRUPTED, MAGIC, NONCE_LEN, OPTION_HEADER, OPT_NONCE, OPT_TIMESTAMP,
    TIMESTAMP_LEN, VERSION,
};
use tcplab_transport::codec::Writer;
use tcplab_transport::Packet;

fn check(buf: &[u8], needed: usize) -> Result<(), WireError> {
    if buf.len() < needed {
        return Err(WireError::BufferTooSmall {
            needed,
            available: buf.len(),
        });
    }
    Ok(())
}

fn common(w: &mut Writer<'_>, ty: u8, flags: u8, opt_len: usize, conn: u64) {
    w.u16(MAGIC);
    w.u8(VERSION);
    w.u8(ty);
    w.u8(flags);
    w.u8(opt_len as u8);
    w.u16(0);
    w.u64(conn);
}

fn ts_len(ts: &Option<Timestamps>) -> usize {
    ts.map_or(0, |_| OPTION_HEADER + TIMESTAMP_LEN)
}

fn put_ts(w: &mut Writer<'_>, ts: &Option<Timestamps>) {
    if let Some(t) = ts {
        w.u8(OPT_TIMESTAMP);
        w.u8(TIMESTAMP_LEN as u8);
        w.u64(t.val);
        w.u64(t.ecr);
    }
}

/// Writes a transport packet's header (common header, fixed part, the driver's
/// timestamps if its header carries them, its own options) at the start of `buf` and
/// returns its length; the caller writes the payload right after it.
pub fn encode_packet_header(
    buf: &mut [u8],
    conn: u64,
    pkt: &Packet,
    ts: Option<Timestamps>,
) -> Result<usize, WireError> {
    let ty = pkt
        .wire_type()
        .ok_or(WireError::Invalid("a packet without a message type"))?;
    let ts = if pkt.carries_timestamp() { ts } else { None };
    let (fixed, own) = pkt.wire_fixed_and_options();
    let opt = ts_len(&ts) + own;
    if opt > usize::from(u8::MAX) {
        return Err(WireError::Invalid("options length"));
    }
    check(buf, COMMON_HEADER + fixed + opt)?;
    let mut w = Writer::new(buf);
    common(&mut w, ty, pkt.wire_flags(), opt, conn);
    pkt.put_wire_fixed(&mut w)?;
    put_ts(&mut w, &ts);
    pkt.put_wire_options(&mut w);
    debug_assert_eq!(w.pos(), COMMON_HEADER + fixed + opt);
    Ok(w.pos())
}

/// Encodes `msg` into `buf`; returns the datagram's length. A packet encoded with an
/// empty payload gives its header alone: the caller then writes the payload bytes right
/// after it (no copy).
pub fn encode(msg: &Message<'_>, buf: &mut [u8]) -> Result<usize, WireError> {
    let conn = msg.conn();
    match *msg {
        Message::Packet {
            pkt, ts, payload, ..
        } => {
            let h = encode_packet_header(buf, conn, &pkt, ts)?;
            check(buf, h + payload.len())?;
            buf[h..h + payload.len()].copy_from_slice(payload);
            Ok(h + payload.len())
        }
        Message::Hello {
            mss,
            total,
            transport,
            flow,
            ..
        } => {
            check(buf, COMMON_HEADER + 16 + flow.len())?;
            let mut w = Writer::new(buf);
            common(&mut w, MessageType::Hello as u8, 0, 0, conn);
            w.u32(mss);
            w.u8(transport.code());
            w.put(&[0, 0, 0]);
            w.u64(total.unwrap_or(u64::MAX));
            w.put(flow);
            Ok(w.pos())
        }
        Message::HelloAck {
            mss,
            rcv_buf,
            nonce,
            ..
        } => {
            let opt = nonce.map_or(0, |_| OPTION_HEADER + NONCE_LEN);
            check(buf, COMMON_HEADER + 16 + opt)?;
            let mut w = Writer::new(buf);
            common(&mut w, MessageType::HelloAck as u8, 0, opt, conn);
            w.u32(mss);
            w.u32(0);
            w.u64(rcv_buf);
            if let Some(n) = nonce {
                w.u8(OPT_NONCE);
                w.u8(NONCE_LEN as u8);
                w.u64(n);
            }
            Ok(w.pos())
        }
        Message::Close {
            end, interrupted, ..
        } => {
            check(buf, COMMON_HEADER + 8)?;
            let mut w = Writer::new(buf);
            let flags = if interrupted { FLAG_INTERRUPTED } else { 0 };
            common(&mut w, MessageType::Close as u8, flags, 0, conn);
            w.u64(end);
            Ok(w.pos())
        }
        Message::CloseAck {
            delivered,
            acks_sent,
            segments_received,
            duplicate_segments,
            ..
        } => {
            check(buf, COMMON_HEADER + 32)?;
            let mut w = Writer::new(buf);
            common(&mut w, MessageType::CloseAck as u8, 0, 0, conn);
            w.u64(delivered);
            w.u64(acks_sent);
            w.u64(segments_received);
            w.u64(duplicate_segments);
            Ok(w.pos())
        }
        Message::Reset { reason, .. } => {
            check(buf, COMMON_HEADER + 1)?;
            let mut w = Writer::new(buf);
            common(&mut w, MessageType::Reset as u8, 0, 0, conn);
            w.u8(reason);
            Ok(w.pos())
        }
    }
}
