//! Bounds-checked decoding of untrusted datagrams.

use super::error::WireError;
use super::message::{Message, MessageType, Timestamps, MAX_SACK};
use super::{
    COMMON_HEADER, FLAG_FIN, FLAG_RETX, MAGIC, OPT_PAD, OPT_SACK, OPT_TCP_TIMESTAMP, OPT_TIMESTAMP,
    TCP_TIMESTAMP_LEN, TIMESTAMP_LEN, VERSION,
};
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
            let _ = r.u32("reserved")?;
            let total = r.u64("total")?;
            if mss == 0 {
                return Err(WireError::Invalid("mss (0)"));
            }
            Message::Hello {
                conn,
                mss,
                total: (total != u64::MAX).then_some(total),
            }
        }
        MessageType::HelloAck => {
            let mss = r.u32("mss")?;
            let _ = r.u32("reserved")?;
            let rcv_buf = r.u64("receive buffer")?;
            Message::HelloAck { conn, mss, rcv_buf }
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
        MessageType::Close => Message::Close {
            conn,
            end: r.u64("end")?,
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
