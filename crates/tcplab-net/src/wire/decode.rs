//! Bounds-checked decoding of untrusted datagrams.

use super::error::WireError;
use super::message::{Message, MessageType, Timestamps, TransportCode, MAX_SACK};
use super::{
    COMMON_HEADER, FLAG_FIN, FLAG_INTERRUPTED, FLAG_REPAIR, FLAG_RETX, MAGIC, NONCE_LEN, OPT_NONCE,
    OPT_PAD, OPT_SACK, OPT_TCP_TIMESTAMP, OPT_TIMESTAMP, TCP_TIMESTAMP_LEN, TIMESTAMP_LEN, VERSION,
};
use tcplab_transport::coded::Code;
use tcplab_transport::tack::{AckKind, Gap, TackAck, MAX_GAPS};
use tcplab_transport::{SackBlock, Timestamps as TcpTimestamps};

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        let available = self.buf.len() - self.pos;
        if n > available {
            return Err(WireError::Truncated {
                what,
                needed: n,
                available,
            });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, WireError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, WireError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, WireError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }
}

/// Options found in a datagram's options area.
#[derive(Default)]
struct Options {
    ts: Option<Timestamps>,
    tcp_ts: Option<TcpTimestamps>,
    sack: [SackBlock; MAX_SACK],
    n_sack: u8,
    nonce: Option<u64>,
}

fn options(area: &[u8]) -> Result<Options, WireError> {
    let mut o = Options::default();
    let mut r = Reader { buf: area, pos: 0 };
    while r.pos < area.len() {
        let kind = r.u8("option kind")?;
        if kind == OPT_PAD {
            continue;
        }
        let len = r.u8("option length")?;
        let value = r.take(len as usize, "option value")?;
        let mut v = Reader { buf: value, pos: 0 };
        match kind {
            OPT_TIMESTAMP => {
                if len as usize != TIMESTAMP_LEN {
                    return Err(WireError::BadOption { kind, len });
                }
                o.ts = Some(Timestamps {
                    val: v.u64("tsval")?,
                    ecr: v.u64("tsecr")?,
                });
            }
            OPT_TCP_TIMESTAMP => {
                if len as usize != TCP_TIMESTAMP_LEN || o.tcp_ts.is_some() {
                    return Err(WireError::BadOption { kind, len });
                }
                o.tcp_ts = Some(TcpTimestamps {
                    val: v.u32("TCP tsval")?,
                    ecr: v.u32("TCP tsecr")?,
                });
            }
            OPT_SACK => {
                if len % 16 != 0 || len as usize > 16 * MAX_SACK || o.n_sack != 0 {
                    return Err(WireError::BadOption { kind, len });
                }
                let n = len as usize / 16;
                for b in o.sack.iter_mut().take(n) {
                    let start = v.u64("SACK start")?;
                    let end = v.u64("SACK end")?;
                    if end <= start {
                        return Err(WireError::Invalid("SACK block (end <= start)"));
                    }
                    *b = SackBlock { start, end };
                }
                o.n_sack = n as u8;
            }
            OPT_NONCE => {
                if len as usize != NONCE_LEN || o.nonce.is_some() {
                    return Err(WireError::BadOption { kind, len });
                }
                o.nonce = Some(v.u64("nonce")?);
            }
            // Unknown kinds are skipped: later versions may add options old peers ignore.
            _ => {}
        }
    }
    Ok(o)
}

/// Decodes one datagram. Never panics; a `Data` payload borrows from `buf`.
pub fn decode(buf: &[u8]) -> Result<Message<'_>, WireError> {
    let mut r = Reader { buf, pos: 0 };
    let magic = r.u16("magic")?;
    if magic != MAGIC {
        return Err(WireError::BadMagic(magic));
    }
    let version = r.u8("version")?;
    if version != VERSION {
        return Err(WireError::UnsupportedVersion(version));
    }
    let ty = r.u8("type")?;
    let kind = MessageType::from_u8(ty).ok_or(WireError::UnknownType(ty))?;
    let flags = r.u8("flags")?;
    let opt_len = r.u8("options length")? as usize;
    let _reserved = r.u16("reserved")?;
    let conn = r.u64("connection id")?;
    debug_assert_eq!(r.pos, COMMON_HEADER);
    let msg = match kind {
        MessageType::Hello => {
            let mss = r.u32("mss")?;
            let code = r.u8("transport")?;
            let _ = r.take(3, "reserved")?;
            let total = r.u64("total")?;
            if mss == 0 {
                return Err(WireError::Invalid("mss (0)"));
            }
            let transport =
                TransportCode::from_u8(code).ok_or(WireError::Invalid("transport code"))?;
            options(r.take(opt_len, "options")?)?;
            return Ok(Message::Hello {
                conn,
                mss,
                total: (total != u64::MAX).then_some(total),
                transport,
                flow: r.rest(),
            });
        }
        MessageType::HelloAck => {
            let mss = r.u32("mss")?;
            let _ = r.u32("reserved")?;
            let rcv_buf = r.u64("receive buffer")?;
            let o = options(r.take(opt_len, "options")?)?;
            if !r.rest().is_empty() {
                return Err(WireError::Invalid("trailing bytes after a HELLO_ACK"));
            }
            return Ok(Message::HelloAck {
                conn,
                mss,
                rcv_buf,
                nonce: o.nonce,
            });
        }
        MessageType::Data => {
            let seq = r.u64("sequence number")?;
            let o = options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            if payload.is_empty() {
                return Err(WireError::Invalid("data without payload"));
            }
            if seq.checked_add(payload.len() as u64).is_none() {
                return Err(WireError::Invalid("sequence number (wraps)"));
            }
            return Ok(Message::Data {
                conn,
                seq,
                fin: flags & FLAG_FIN != 0,
                retransmission: flags & FLAG_RETX != 0,
                ts: o.ts,
                tcp_ts: o.tcp_ts,
                payload,
            });
        }
        MessageType::Ack => {
            let ack = r.u64("ack")?;
            let wnd = r.u64("window")?;
            let o = options(r.take(opt_len, "options")?)?;
            if !r.rest().is_empty() {
                return Err(WireError::Invalid("trailing bytes after an ACK"));
            }
            return Ok(Message::Ack {
                conn,
                ack,
                wnd,
                sack: o.sack,
                n_sack: o.n_sack,
                ts: o.ts,
                tcp_ts: o.tcp_ts,
            });
        }
        MessageType::Datagram => {
            let seq = r.u64("sequence number")?;
            let sent_at_ns = r.u64("send time")?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            if payload.is_empty() {
                return Err(WireError::Invalid("datagram without payload"));
            }
            return Ok(Message::Datagram {
                conn,
                seq,
                sent_at_ns,
                payload,
            });
        }
        MessageType::Symbol => {
            let code = match r.u8("code")? {
                1 => Code::Rlnc,
                2 => Code::Lt,
                _ => return Err(WireError::Invalid("symbol code")),
            };
            let _ = r.take(3, "reserved")?;
            let start = r.u32("window start")?;
            let span = r.u32("window length")?;
            let seed = r.u32("seed")?;
            let base = r.u32("base")?;
            let newest = r.u32("newest entered")?;
            let entered_ns = r.u64("entry time")?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            if span == 0 || start.checked_add(span).is_none() {
                return Err(WireError::Invalid("symbol window"));
            }
            if payload.is_empty() {
                return Err(WireError::Invalid("symbol without payload"));
            }
            return Ok(Message::Symbol {
                conn,
                code,
                repair: flags & FLAG_REPAIR != 0,
                start,
                span,
                seed,
                base,
                newest,
                entered_ns,
                payload,
            });
        }
        MessageType::TackData => {
            let seq = r.u64("sequence number")?;
            let pn = r.u64("packet number")?;
            let pn_floor = r.u64("packet number floor")?;
            let sent_at_ns = r.u64("send time")?;
            let rtt_min_ns = r.u64("rtt_min")?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            if payload.is_empty() {
                return Err(WireError::Invalid("data without payload"));
            }
            if seq.checked_add(payload.len() as u64).is_none() {
                return Err(WireError::Invalid("sequence number (wraps)"));
            }
            if pn_floor > pn {
                return Err(WireError::Invalid(
                    "packet number floor (above the packet number)",
                ));
            }
            return Ok(Message::TackData {
                conn,
                seq,
                pn,
                pn_floor,
                sent_at_ns,
                rtt_min_ns,
                fin: flags & FLAG_FIN != 0,
                retransmission: flags & FLAG_RETX != 0,
                payload,
            });
        }
        MessageType::TackAck => {
            let kind = match r.u8("ACK kind")? {
                0 => AckKind::Tack,
                1 => AckKind::IackLoss,
                2 => AckKind::IackWindow,
                _ => return Err(WireError::Invalid("TACK kind")),
            };
            let n_gaps = r.u8("gap count")?;
            if n_gaps as usize > MAX_GAPS {
                return Err(WireError::Invalid("TACK gap count"));
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
                return Err(WireError::Invalid("TACK base (above largest)"));
            }
            let o = options(r.take(opt_len, "options")?)?;
            if !r.rest().is_empty() {
                return Err(WireError::Invalid("trailing bytes after a TACK"));
            }
            return Ok(Message::TackAck {
                conn,
                ack: a,
                ts: o.ts,
            });
        }
        MessageType::CodedAck => {
            let index = r.u32("index")?;
            let cum = r.u32("cumulative")?;
            let echo = r.u32("echo")?;
            let _ = r.u32("reserved")?;
            let o = options(r.take(opt_len, "options")?)?;
            if !r.rest().is_empty() {
                return Err(WireError::Invalid("trailing bytes after a coded ACK"));
            }
            return Ok(Message::CodedAck {
                conn,
                index,
                cum,
                echo,
                ts: o.ts,
            });
        }
        MessageType::Close => Message::Close {
            conn,
            end: r.u64("end")?,
            interrupted: flags & FLAG_INTERRUPTED != 0,
        },
        MessageType::CloseAck => Message::CloseAck {
            conn,
            delivered: r.u64("delivered")?,
            acks_sent: r.u64("acks sent")?,
            segments_received: r.u64("segments received")?,
            duplicate_segments: r.u64("duplicate segments")?,
        },
        MessageType::Reset => Message::Reset {
            conn,
            reason: r.u8("reason")?,
        },
    };
    // Control messages: options are parsed (and must be well formed) but carry nothing yet.
    options(r.take(opt_len, "options")?)?;
    if !r.rest().is_empty() {
        return Err(WireError::Invalid("trailing bytes after a control message"));
    }
    Ok(msg)
}
