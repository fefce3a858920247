//! Encoding into a caller's buffer (no allocation).

use super::error::WireError;
use super::message::{Message, Timestamps};
use super::{
    COMMON_HEADER, DATA_FIXED, FLAG_FIN, FLAG_INTERRUPTED, FLAG_REPAIR, FLAG_RETX, MAGIC,
    NONCE_LEN, OPTION_HEADER, OPT_NONCE, OPT_SACK, OPT_TCP_TIMESTAMP, OPT_TIMESTAMP, SYMBOL_FIXED,
    TACK_ACK_FIXED, TACK_DATA_FIXED, TCP_TIMESTAMP_LEN, TIMESTAMP_LEN, VERSION,
};
use tcplab_transport::coded::Code;
use tcplab_transport::tack::AckKind;
use tcplab_transport::Timestamps as TcpTimestamps;

/// The code byte of a SYMBOL (1: RLNC, 2: LT).
pub(super) fn code_byte(c: Code) -> u8 {
    match c {
        Code::Rlnc => 1,
        Code::Lt => 2,
    }
}

struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl Writer<'_> {
    fn put(&mut self, b: &[u8]) {
        self.buf[self.pos..self.pos + b.len()].copy_from_slice(b);
        self.pos += b.len();
    }
    fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    fn u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_be_bytes());
    }
}

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

fn tcp_ts_len(ts: &Option<TcpTimestamps>) -> usize {
    ts.map_or(0, |_| OPTION_HEADER + TCP_TIMESTAMP_LEN)
}

fn put_tcp_ts(w: &mut Writer<'_>, ts: &Option<TcpTimestamps>) {
    if let Some(t) = ts {
        w.u8(OPT_TCP_TIMESTAMP);
        w.u8(TCP_TIMESTAMP_LEN as u8);
        w.u32(t.val);
        w.u32(t.ecr);
    }
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
    let opt = ts_len(&ts) + tcp_ts_len(&tcp_ts);
    let n = COMMON_HEADER + DATA_FIXED + opt;
    check(buf, n)?;
    let mut w = Writer { buf, pos: 0 };
    let flags = if fin { FLAG_FIN } else { 0 } | if retransmission { FLAG_RETX } else { 0 };
    common(&mut w, super::MessageType::Data as u8, flags, opt, conn);
    w.u64(seq);
    put_ts(&mut w, &ts);
    put_tcp_ts(&mut w, &tcp_ts);
    Ok(w.pos)
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
            let sack_len = if n_sack > 0 {
                OPTION_HEADER + 16 * n_sack
            } else {
                0
            };
            let opt = ts_len(&ts) + tcp_ts_len(&tcp_ts) + sack_len;
            check(buf, COMMON_HEADER + 16 + opt)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, opt, conn);
            w.u64(ack);
            w.u64(wnd);
            put_ts(&mut w, &ts);
            put_tcp_ts(&mut w, &tcp_ts);
            if n_sack > 0 {
                w.u8(OPT_SACK);
                w.u8((16 * n_sack) as u8);
                for b in &sack[..n_sack] {
                    w.u64(b.start);
                    w.u64(b.end);
                }
            }
            Ok(w.pos)
        }
        Message::Hello {
            mss,
            total,
            transport,
            flow,
            ..
        } => {
            check(buf, COMMON_HEADER + 16 + flow.len())?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, 0, conn);
            w.u32(mss);
            w.u8(transport as u8);
            w.put(&[0, 0, 0]);
            w.u64(total.unwrap_or(u64::MAX));
            w.put(flow);
            Ok(w.pos)
        }
        Message::Datagram {
            seq,
            sent_at_ns,
            payload,
            ..
        } => {
            check(buf, COMMON_HEADER + 16 + payload.len())?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, 0, conn);
            w.u64(seq);
            w.u64(sent_at_ns);
            w.put(payload);
            Ok(w.pos)
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
            check(buf, COMMON_HEADER + SYMBOL_FIXED + payload.len())?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, if repair { FLAG_REPAIR } else { 0 }, 0, conn);
            w.u8(code_byte(code));
            w.put(&[0, 0, 0]);
            w.u32(start);
            w.u32(span);
            w.u32(seed);
            w.u32(base);
            w.u32(newest);
            w.u64(entered_ns);
            w.put(payload);
            Ok(w.pos)
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
            check(buf, COMMON_HEADER + TACK_DATA_FIXED + payload.len())?;
            let mut w = Writer { buf, pos: 0 };
            let flags = if fin { FLAG_FIN } else { 0 } | if retransmission { FLAG_RETX } else { 0 };
            common(&mut w, ty, flags, 0, conn);
            w.u64(seq);
            w.u64(pn);
            w.u64(pn_floor);
            w.u64(sent_at_ns);
            w.u64(rtt_min_ns);
            w.put(payload);
            Ok(w.pos)
        }
        Message::TackAck { ack: a, ts, .. } => {
            let n = a.n_gaps as usize;
            if n > a.gaps.len() {
                return Err(WireError::Invalid("TACK gap count"));
            }
            let opt = ts_len(&ts);
            check(buf, COMMON_HEADER + TACK_ACK_FIXED + 4 * n + opt)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, opt, conn);
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
            put_ts(&mut w, &ts);
            Ok(w.pos)
        }
        Message::CodedAck {
            index,
            cum,
            echo,
            ts,
            ..
        } => {
            let opt = ts_len(&ts);
            check(buf, COMMON_HEADER + 16 + opt)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, opt, conn);
            w.u32(index);
            w.u32(cum);
            w.u32(echo);
            w.u32(0);
            put_ts(&mut w, &ts);
            Ok(w.pos)
        }
        Message::HelloAck {
            mss,
            rcv_buf,
            nonce,
            ..
        } => {
            let opt = nonce.map_or(0, |_| OPTION_HEADER + NONCE_LEN);
            check(buf, COMMON_HEADER + 16 + opt)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, opt, conn);
            w.u32(mss);
            w.u32(0);
            w.u64(rcv_buf);
            if let Some(n) = nonce {
                w.u8(OPT_NONCE);
                w.u8(NONCE_LEN as u8);
                w.u64(n);
            }
            Ok(w.pos)
        }
        Message::Close {
            end, interrupted, ..
        } => {
            check(buf, COMMON_HEADER + 8)?;
            let mut w = Writer { buf, pos: 0 };
            let flags = if interrupted { FLAG_INTERRUPTED } else { 0 };
            common(&mut w, ty, flags, 0, conn);
            w.u64(end);
            Ok(w.pos)
        }
        Message::CloseAck {
            delivered,
            acks_sent,
            segments_received,
            duplicate_segments,
            ..
        } => {
            check(buf, COMMON_HEADER + 32)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, 0, conn);
            w.u64(delivered);
            w.u64(acks_sent);
            w.u64(segments_received);
            w.u64(duplicate_segments);
            Ok(w.pos)
        }
        Message::Reset { reason, .. } => {
            check(buf, COMMON_HEADER + 1)?;
            let mut w = Writer { buf, pos: 0 };
            common(&mut w, ty, 0, 0, conn);
            w.u8(reason);
            Ok(w.pos)
        }
    }
}
