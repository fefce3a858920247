//! Bounds-checked decoding of untrusted datagrams.

use super::error::WireError;
use super::message::{Message, MessageType, Timestamps, TransportCode};
use super::{
    COMMON_HEADER, FLAG_INTERRUPTED, MAGIC, NONCE_LEN, OPT_NONCE, OPT_PAD, OPT_TIMESTAMP,
    TIMESTAMP_LEN, VERSION,
};
use tcplab_transport::codec::Reader;
use tcplab_transport::{Packet, PACKET_TYPES};

/// The driver's options found in a datagram's options area.
#[derive(Default)]
struct Options {
    ts: Option<Timestamps>,
    nonce: Option<u64>,
}

/// Reads the options area: the driver's own kinds here, any other kind handed to `pkt`
/// (a transport packet's header reads its own and ignores the rest); a control
/// message skips the kinds it does not use.
fn options(area: &[u8], mut pkt: Option<&mut Packet>) -> Result<Options, WireError> {
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
            OPT_NONCE => {
                if len as usize != NONCE_LEN || o.nonce.is_some() {
                    return Err(WireError::BadOption { kind, len });
                }
                o.nonce = Some(v.u64("nonce")?);
            }
            // The transport's kinds; unknown ones are skipped: later versions may add
            // options old peers ignore.
            _ => {
                if let Some(p) = pkt.as_deref_mut() {
                    p.get_wire_option(kind, value)?;
                }
            }
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
    let kind = MessageType::from_u8(ty);
    if kind.is_none() && !PACKET_TYPES.iter().any(|t| t.contains(&ty)) {
        return Err(WireError::UnknownType(ty));
    }
    let flags = r.u8("flags")?;
    let opt_len = r.u8("options length")? as usize;
    let _reserved = r.u16("reserved")?;
    let conn = r.u64("connection id")?;
    debug_assert_eq!(r.pos(), COMMON_HEADER);
    let Some(kind) = kind else {
        // A transport's packet: its header reads the fixed part and its options, and
        // checks the payload's length.
        let mut pkt =
            Packet::get_wire_fixed(ty, flags, &mut r).ok_or(WireError::UnknownType(ty))??;
        let o = options(r.take(opt_len, "options")?, Some(&mut pkt))?;
        let payload = r.rest();
        pkt.set_wire_payload(payload.len())?;
        let ts = if pkt.carries_timestamp() { o.ts } else { None };
        return Ok(Message::Packet {
            conn,
            pkt,
            ts,
            payload,
        });
    };
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
            options(r.take(opt_len, "options")?, None)?;
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
            let o = options(r.take(opt_len, "options")?, None)?;
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
    options(r.take(opt_len, "options")?, None)?;
    if !r.rest().is_empty() {
        return Err(WireError::Invalid("trailing bytes after a control message"));
    }
    Ok(msg)
}
