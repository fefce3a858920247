//! Bounds-checked decoding of untrusted datagrams.

use super::error::WireError;
use super::message::{Message, MessageType, Timestamps, TransportCode, MAX_SACK};
use super::{
    COMMON_HEADER, FLAG_FIN, FLAG_INTERRUPTED, FLAG_REPAIR, FLAG_RETX, MAGIC, NONCE_LEN, OPT_NONCE,
    OPT_PAD, OPT_SACK, OPT_TCP_TIMESTAMP, OPT_TIMESTAMP, TIMESTAMP_LEN, VERSION,
};
use tcplab_transport::codec::Reader;
use tcplab_transport::coded::wire as coded_wire;
use tcplab_transport::datagram::wire as datagram_wire;
use tcplab_transport::tack::wire as tack_wire;
use tcplab_transport::tcp::wire as tcp_wire;
use tcplab_transport::{SackBlock, Timestamps as TcpTimestamps};

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
    let mut r = Reader::new(area);
    while !r.at_end() {
        let kind = r.u8("option kind")?;
        if kind == OPT_PAD {
            continue;
        }
        let len = r.u8("option length")?;
        let value = r.take(len as usize, "option value")?;
        let mut v = Reader::new(value);
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
                o.tcp_ts = Some(tcp_wire::get_tcp_ts(value, o.tcp_ts.is_some())?);
            }
            OPT_SACK => {
                o.n_sack = tcp_wire::get_sack(value, o.n_sack != 0, &mut o.sack)?;
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
    let mut r = Reader::new(buf);
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
    debug_assert_eq!(r.pos(), COMMON_HEADER);
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
            tcp_wire::check_data(seq, payload.len())?;
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
            let d = datagram_wire::get(&mut r)?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            datagram_wire::check(payload.len())?;
            return Ok(Message::Datagram {
                conn,
                seq: d.seq,
                sent_at_ns: d.sent_at.0,
                payload,
            });
        }
        MessageType::Symbol => {
            let s = coded_wire::get_symbol(&mut r)?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            coded_wire::check_symbol(&s, payload.len())?;
            return Ok(Message::Symbol {
                conn,
                code: s.code,
                repair: flags & FLAG_REPAIR != 0,
                start: s.start,
                span: s.span,
                seed: s.seed,
                base: s.base,
                newest: s.newest,
                entered_ns: s.entered.0,
                payload,
            });
        }
        MessageType::TackData => {
            let d = tack_wire::get_data(&mut r)?;
            options(r.take(opt_len, "options")?)?;
            let payload = r.rest();
            tack_wire::check_data(&d, payload.len())?;
            return Ok(Message::TackData {
                conn,
                seq: d.seq,
                pn: d.pn,
                pn_floor: d.pn_floor,
                sent_at_ns: d.sent_at.0,
                rtt_min_ns: d.rtt_min_ns,
                fin: flags & FLAG_FIN != 0,
                retransmission: flags & FLAG_RETX != 0,
                payload,
            });
        }
        MessageType::TackAck => {
            let a = tack_wire::get_ack(&mut r)?;
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
            let a = coded_wire::get_ack(&mut r)?;
            let o = options(r.take(opt_len, "options")?)?;
            if !r.rest().is_empty() {
                return Err(WireError::Invalid("trailing bytes after a coded ACK"));
            }
            return Ok(Message::CodedAck {
                conn,
                index: a.index,
                cum: a.cum,
                echo: a.echo,
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
