//! TCP's messages in the UDP driver's wire format (docs/wire-format.md): the fixed parts
//! of DATA and ACK after the driver's common header, and the two options only TCP
//! carries (SACK blocks, the endpoint's RFC 7323 timestamps).

use super::{
    SackBlock, Segment, TcpSpec, TcpTransport, Timestamps, DATA_HEADER_BYTES, MAX_SACK_BLOCKS,
    TS_OPTION_BYTES,
};
use crate::codec::{CodecError, Reader, Writer};
use crate::wire_flow::{any_packet, Resize, WireFlow, WireTransport};
use crate::wire_packet::{
    WireClaim, WirePacket, COMMON_HEADER, FLAG_CWR, FLAG_ECE, FLAG_FIN, FLAG_RETX, IP_UDP,
    TIMESTAMP_OPTION,
};

/// Message type codes (the common header's type byte).
pub const DATA_TYPE: u8 = 3;
pub const ACK_TYPE: u8 = 4;
/// DATA fixed part: sequence number.
pub const DATA_FIXED: usize = 8;
/// ACK fixed part: ack, window (8 each).
pub const ACK_FIXED: usize = 16;

/// Option kinds (the driver's options area; kind, length, value).
pub const OPT_SACK: u8 = 2;
/// The endpoint's own RFC 7323 timestamps (`timestamps = true`), distinct from the
/// driver's nanosecond TIMESTAMP option.
pub const OPT_TCP_TIMESTAMP: u8 = 3;
/// Option header: kind (1), length of the value (1).
const OPTION_HEADER: usize = 2;
/// TCP timestamp option value: tsval (4), tsecr (4), as RFC 7323's 32-bit fields.
pub const TCP_TIMESTAMP_LEN: usize = 8;
/// SACK blocks one ACK may carry (RFC 2018's four; the endpoints send up to
/// [`MAX_SACK_BLOCKS`]).
pub const MAX_SACK: usize = 4;
const _: () = assert!(MAX_SACK_BLOCKS <= MAX_SACK);
/// Bytes per SACK block: start, end (8 each).
const SACK_BLOCK: usize = 16;

/// Bytes the TCP timestamp option takes.
pub fn tcp_ts_len(ts: &Option<Timestamps>) -> usize {
    ts.map_or(0, |_| OPTION_HEADER + TCP_TIMESTAMP_LEN)
}

/// Writes the TCP timestamp option, if any.
pub fn put_tcp_ts(w: &mut Writer<'_>, ts: &Option<Timestamps>) {
    if let Some(t) = ts {
        w.u8(OPT_TCP_TIMESTAMP);
        w.u8(TCP_TIMESTAMP_LEN as u8);
        w.u32(t.val);
        w.u32(t.ecr);
    }
}

/// Reads a TCP timestamp option's value (`seen`: one was read already).
pub fn get_tcp_ts(value: &[u8], seen: bool) -> Result<Timestamps, CodecError> {
    if value.len() != TCP_TIMESTAMP_LEN || seen {
        return Err(bad(OPT_TCP_TIMESTAMP, value));
    }
    let mut v = Reader::new(value);
    Ok(Timestamps {
        val: v.u32("TCP tsval")?,
        ecr: v.u32("TCP tsecr")?,
    })
}

/// Bytes the SACK option takes for `n` blocks (none without blocks).
pub fn sack_len(n: usize) -> usize {
    if n > 0 {
        OPTION_HEADER + SACK_BLOCK * n
    } else {
        0
    }
}

/// Writes the SACK option for `blocks`, if any.
pub fn put_sack(w: &mut Writer<'_>, blocks: &[SackBlock]) {
    if !blocks.is_empty() {
        w.u8(OPT_SACK);
        w.u8((SACK_BLOCK * blocks.len()) as u8);
        for b in blocks {
            w.u64(b.start);
            w.u64(b.end);
        }
    }
}

/// Reads a SACK option's value into `out`; returns the number of blocks (`seen`: one
/// was read already).
pub fn get_sack(
    value: &[u8],
    seen: bool,
    out: &mut [SackBlock; MAX_SACK],
) -> Result<u8, CodecError> {
    let len = value.len();
    if len % SACK_BLOCK != 0 || len > SACK_BLOCK * MAX_SACK || seen {
        return Err(bad(OPT_SACK, value));
    }
    let n = len / SACK_BLOCK;
    let mut v = Reader::new(value);
    for b in out.iter_mut().take(n) {
        let start = v.u64("SACK start")?;
        let end = v.u64("SACK end")?;
        if end <= start {
            return Err(CodecError::Invalid("SACK block (end <= start)"));
        }
        *b = SackBlock { start, end };
    }
    Ok(n as u8)
}

fn bad(kind: u8, value: &[u8]) -> CodecError {
    CodecError::BadOption {
        kind,
        len: value.len() as u8,
    }
}

/// Whether a decoded data segment at `seq` with `payload_len` bytes is possible.
pub fn check_data(seq: u64, payload_len: usize) -> Result<(), CodecError> {
    if payload_len == 0 {
        return Err(CodecError::Invalid("data without payload"));
    }
    if seq.checked_add(payload_len as u64).is_none() {
        return Err(CodecError::Invalid("sequence number (wraps)"));
    }
    Ok(())
}

/// Bytes a full DATA datagram (IPv4, UDP, the driver's common header and timestamps,
/// the sequence number, with `timestamps` the endpoint's RFC 7323 option) has beyond the
/// simulated segment's headers (with `timestamps` their 12 option bytes).
pub const fn data_extra(timestamps: bool) -> u32 {
    let base = (IP_UDP + COMMON_HEADER + DATA_FIXED + TIMESTAMP_OPTION) as u32 - DATA_HEADER_BYTES;
    if timestamps {
        base + (OPTION_HEADER + TCP_TIMESTAMP_LEN) as u32 - TS_OPTION_BYTES
    } else {
        base
    }
}

/// A TCP/NC flow whose sender turns ECN on: the UDP driver carries ECN (the datagrams'
/// IP ECN field, CWR on DATA, ECE on ACK) for TCP only, not on TCP/NC's symbols (the
/// key that turned it on, its value, why).
pub fn ecn_refusal(t: &TcpSpec) -> Option<(&'static str, String, &'static str)> {
    const WHY: &str = "the UDP driver carries ECN for TCP flows only: TCP/NC's symbols have \
                       no CWR flag (ECN with TCP/NC runs in the simulator)";
    t.sender.ecn.then(|| {
        if t.cc == "dctcp" {
            ("flow.cc", "\"dctcp\"".to_string(), WHY)
        } else {
            ("flow.ecn", "true".to_string(), WHY)
        }
    })
}

/// Sets both ends' MSS to `payload`; the driver's HELLO opens the connection, so the
/// endpoint's SYN exchange (`handshake = true`, the scenario default) is off.
pub fn set_payload(t: &mut TcpSpec, payload: u32) {
    t.sender.mss = payload;
    t.receiver.mss = payload;
    t.sender.handshake = false;
}

/// TCP in the driver's datagrams: a segment with payload is a DATA message (its
/// sequence number, the driver's timestamps and the endpoint's RFC 7323 option), a pure
/// ACK an ACK message (ack and window, then the options and its SACK blocks). A SYN or
/// a FIN without data does not travel: the driver's HELLO and CLOSE open and end the
/// connection.
impl WirePacket for Segment {
    const TYPES: &'static [u8] = &[DATA_TYPE, ACK_TYPE];

    fn wire_type(&self) -> Option<u8> {
        if self.syn {
            None
        } else if self.len > 0 {
            Some(DATA_TYPE)
        } else if !self.fin {
            Some(ACK_TYPE)
        } else {
            None
        }
    }
    fn wire_flags(&self) -> u8 {
        if self.len > 0 {
            (if self.fin { FLAG_FIN } else { 0 })
                | (if self.retransmission { FLAG_RETX } else { 0 })
                | if self.cwr { FLAG_CWR } else { 0 }
        } else if self.ece {
            FLAG_ECE
        } else {
            0
        }
    }
    fn carries_timestamp(&self) -> bool {
        true
    }
    fn fixed_len(&self) -> usize {
        if self.len > 0 {
            DATA_FIXED
        } else {
            ACK_FIXED
        }
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        if self.len > 0 {
            w.u64(self.seq);
        } else {
            w.u64(self.ack);
            w.u64(self.wnd);
        }
        Ok(())
    }
    fn options_len(&self) -> usize {
        let sack = if self.len > 0 {
            0
        } else {
            sack_len(self.n_sack as usize)
        };
        tcp_ts_len(&self.ts) + sack
    }
    fn put_options(&self, w: &mut Writer<'_>) {
        put_tcp_ts(w, &self.ts);
        if self.len == 0 {
            put_sack(w, self.sack_blocks());
        }
    }
    fn get_fixed(ty: u8, flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        Ok(if ty == DATA_TYPE {
            Segment {
                seq: r.u64("sequence number")?,
                // Marks a DATA message until `set_payload` knows the length.
                len: u32::MAX,
                fin: flags & FLAG_FIN != 0,
                retransmission: flags & FLAG_RETX != 0,
                cwr: flags & FLAG_CWR != 0,
                ..Segment::default()
            }
        } else {
            Segment {
                ack: r.u64("ack")?,
                wnd: r.u64("window")?,
                ece: flags & FLAG_ECE != 0,
                ..Segment::default()
            }
        })
    }
    fn get_option(&mut self, kind: u8, value: &[u8]) -> Result<(), CodecError> {
        match kind {
            OPT_TCP_TIMESTAMP => self.ts = Some(get_tcp_ts(value, self.ts.is_some())?),
            OPT_SACK => {
                // Read (and checked) on any message; kept on ACKs, the only ones that
                // carry them (`set_payload` drops a DATA message's).
                let mut blocks = [SackBlock::default(); MAX_SACK];
                let n = get_sack(value, self.n_sack != 0, &mut blocks)?;
                let n = (n as usize).min(MAX_SACK_BLOCKS);
                self.sack[..n].copy_from_slice(&blocks[..n]);
                self.n_sack = n as u8;
            }
            _ => {}
        }
        Ok(())
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        if self.len > 0 {
            check_data(self.seq, len)?;
            self.len = u32::try_from(len).map_err(|_| CodecError::Invalid("payload length"))?;
            self.sack = [SackBlock::default(); MAX_SACK_BLOCKS];
            self.n_sack = 0;
        } else if len != 0 {
            return Err(CodecError::Invalid("trailing bytes after an ACK"));
        }
        Ok(())
    }
    fn claim(&self) -> WireClaim {
        if self.len > 0 {
            WireClaim::Stream {
                offset: self.seq,
                pn: None,
            }
        } else {
            let highest = self
                .sack_blocks()
                .iter()
                .fold(self.ack, |m, b| m.max(b.end));
            WireClaim::AckBytes {
                cum: self.ack,
                highest,
            }
        }
    }
}

impl WireTransport for TcpTransport {
    const WIRE_CODE: Option<u8> = Some(0);

    fn wire(spec: &TcpSpec) -> Option<WireFlow> {
        Some(WireFlow {
            mss: spec.sender.mss,
            // The driver's caps apply (a HELLO-less flow uses its receiver's buffer).
            rcv_buf: u64::MAX,
            reliable: true,
            source_types: &[DATA_TYPE],
            sink_types: &[ACK_TYPE],
            accepts: any_packet,
            symbol_bytes: false,
            resize: Some(Resize {
                key: "flow.mss",
                extra: data_extra(spec.sender.timestamps),
            }),
            // ECN travels: the IP ECN field per datagram, CWR and ECE as flags.
            refuse: None,
        })
    }

    fn set_wire_payload(spec: &mut TcpSpec, payload: u32) {
        set_payload(spec, payload);
    }
}
