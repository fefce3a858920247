//! Encoding into a caller's buffer (no allocation).

use super::error::WireError;
use super::message::{Message, Timestamps};
use super::{
    COMMON_HEADER, FLAG_FIN, FLAG_INTERRUPTED, FLAG_REPAIR, FLAG_RETX, MAGIC, NONCE_LEN,
    OPTION_HEADER, OPT_NONCE, OPT_TIMESTAMP, TIMESTAMP_LEN, VERSION,
};
use tcplab_core::Time;
use tcplab_transport::codec::Writer;
use tcplab_transport::coded::wire as coded_wire;
use tcplab_transport::coded::{CodedAck, Symbol};
use tcplab_transport::datagram::wire as datagram_wire;
use tcplab_transport::datagram::Datagram;
use tcplab_transport::tack::wire as tack_wire;
use tcplab_transport::tack::TackData;
use tcplab_transport::tcp::wire as tcp_wire;
use tcplab_transport::Timestamps as TcpTimestamps;

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

/// Writes a DATA header (common header, sequence number, timestamp options) at the start
/// of `buf` and returns its length; the caller writes the payload right after it.
pub fn encode_data_header(
    buf: &mut [u8],
    conn: u64,
    seq: u64,
    fin: bool,
    retransmission: bool,
    ts: Option<Timestamps>,
    tcp_ts: Option<TcpTimestamps>,
) -> Result<usize, WireError> {
    let opt = ts_len(&ts) + tcp_wire::tcp_ts_len(&tcp_ts);
    let n = COMMON_HEADER + tcp_wire::DATA_FIXED + opt;
    check(buf, n)?;
    let mut w = Writer::new(buf);
    let flags = if fin { FLAG_FIN } else { 0 } | if retransmission { FLAG_RETX } else { 0 };
    common(&mut w, super::MessageType::Data as u8, flags, opt, conn);
    w.u64(seq);
    put_ts(&mut w, &ts);
    tcp_wire::put_tcp_ts(&mut w, &tcp_ts);
    Ok(w.pos())
}

/// Encodes `msg` into `buf`; returns the datagram's length. A data message encoded with
/// an empty payload gives its header alone: the caller then writes the payload bytes
/// right after it (no copy).
pub fn encode(msg: &Message<'_>, buf: &mut [u8]) -> Result<usize, WireError> {
    let conn = msg.conn();
    let ty = msg.kind() as u8;
    match *msg {
        Message::Data {
            seq,
            fin,
            retransmission,
            ts,
            tcp_ts,
            payload,
            ..
        } => {
            let h = encode_data_header(buf, conn, seq, fin, retransmission, ts, tcp_ts)?;
            check(buf, h + payload.len())?;
            buf[h..h + payload.len()].copy_from_slice(payload);
            Ok(h + payload.len())
        }
        Message::Ack {
            ack,
            wnd,
            sack,
            n_sack,
            ts,
            tcp_ts,
            ..
        } => {
            let n_sack = n_sack as usize;
            if n_sack > sack.len() {
                return Err(WireError::Invalid("SACK block count"));
            }
            let opt = ts_len(&ts) + tcp_wire::tcp_ts_len(&tcp_ts) + tcp_wire::sack_len(n_sack);
            check(buf, COMMON_HEADER + tcp_wire::ACK_FIXED + opt)?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, 0, opt, conn);
            w.u64(ack);
            w.u64(wnd);
            put_ts(&mut w, &ts);
            tcp_wire::put_tcp_ts(&mut w, &tcp_ts);
            tcp_wire::put_sack(&mut w, &sack[..n_sack]);
            Ok(w.pos())
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
            common(&mut w, ty, 0, 0, conn);
            w.u32(mss);
            w.u8(transport as u8);
            w.put(&[0, 0, 0]);
            w.u64(total.unwrap_or(u64::MAX));
            w.put(flow);
            Ok(w.pos())
        }
        Message::Datagram {
            seq,
            sent_at_ns,
            payload,
            ..
        } => {
            check(
                buf,
                COMMON_HEADER + datagram_wire::DATAGRAM_FIXED + payload.len(),
            )?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, 0, 0, conn);
            let d = Datagram {
                seq,
                sent_at: Time(sent_at_ns),
                len: payload.len() as u32,
            };
            datagram_wire::put(&mut w, &d);
            w.put(payload);
            Ok(w.pos())
        }
        Message::Symbol {
            code,
            repair,
            start,
            span,
            seed,
            base,
            newest,
            entered_ns,
            payload,
            ..
        } => {
            check(
                buf,
                COMMON_HEADER + coded_wire::SYMBOL_FIXED + payload.len(),
            )?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, if repair { FLAG_REPAIR } else { 0 }, 0, conn);
            let s = Symbol {
                flow: 0,
                code,
                start,
                span,
                seed,
                base,
                payload: payload.len() as u32,
                repair,
                newest,
                entered: Time(entered_ns),
            };
            coded_wire::put_symbol(&mut w, &s);
            w.put(payload);
            Ok(w.pos())
        }
        Message::TackData {
            seq,
            pn,
            pn_floor,
            sent_at_ns,
            rtt_min_ns,
            fin,
            retransmission,
            payload,
            ..
        } => {
            check(
                buf,
                COMMON_HEADER + tack_wire::TACK_DATA_FIXED + payload.len(),
            )?;
            let mut w = Writer::new(buf);
            let flags = if fin { FLAG_FIN } else { 0 } | if retransmission { FLAG_RETX } else { 0 };
            common(&mut w, ty, flags, 0, conn);
            let d = TackData {
                flow: 0,
                len: payload.len() as u32,
                seq,
                pn,
                pn_floor,
                sent_at: Time(sent_at_ns),
                rtt_min_ns,
                fin,
                retransmission,
            };
            tack_wire::put_data(&mut w, &d);
            w.put(payload);
            Ok(w.pos())
        }
        Message::TackAck { ack: a, ts, .. } => {
            if a.n_gaps as usize > a.gaps.len() {
                return Err(WireError::Invalid("TACK gap count"));
            }
            let opt = ts_len(&ts);
            check(buf, COMMON_HEADER + tack_wire::ack_len(&a) + opt)?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, 0, opt, conn);
            tack_wire::put_ack(&mut w, &a)?;
            put_ts(&mut w, &ts);
            Ok(w.pos())
        }
        Message::CodedAck {
            index,
            cum,
            echo,
            ts,
            ..
        } => {
            let opt = ts_len(&ts);
            check(buf, COMMON_HEADER + coded_wire::ACK_FIXED + opt)?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, 0, opt, conn);
            let a = CodedAck {
                flow: 0,
                index,
                cum,
                echo,
            };
            coded_wire::put_ack(&mut w, &a);
            put_ts(&mut w, &ts);
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
            common(&mut w, ty, 0, opt, conn);
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
            common(&mut w, ty, flags, 0, conn);
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
            common(&mut w, ty, 0, 0, conn);
            w.u64(delivered);
            w.u64(acks_sent);
            w.u64(segments_received);
            w.u64(duplicate_segments);
            Ok(w.pos())
        }
        Message::Reset { reason, .. } => {
            check(buf, COMMON_HEADER + 1)?;
            let mut w = Writer::new(buf);
            common(&mut w, ty, 0, 0, conn);
            w.u8(reason);
            Ok(w.pos())
        }
    }
}
