//! Datagrams in the UDP driver's wire format (docs/wire-format.md): the fixed part of
//! DATAGRAM after the driver's common header.

use super::{Datagram, DatagramSpec, DatagramTransport, UDP_HEADER_BYTES};
use crate::codec::{CodecError, Reader, Writer};
use crate::wire_flow::{any_packet, Resize, WireFlow, WireTransport};
use crate::wire_packet::{WireClaim, WirePacket, COMMON_HEADER, IP_UDP};
use tcplab_core::Time;

/// Message type code (the common header's type byte).
pub const DATAGRAM_TYPE: u8 = 8;
/// DATAGRAM fixed part: seq (8), sent_at (8).
pub const DATAGRAM_FIXED: usize = 16;

/// Writes `d`'s fixed part (`sent_at` already in the clock the peer expects).
pub fn put(w: &mut Writer<'_>, d: &Datagram) {
    w.u64(d.seq);
    w.u64(d.sent_at.0);
}

/// Reads the fixed part; `len` is the driver's to fill in (the payload length).
pub fn get(r: &mut Reader<'_>) -> Result<Datagram, CodecError> {
    Ok(Datagram {
        seq: r.u64("sequence number")?,
        sent_at: Time(r.u64("send time")?),
        len: 0,
    })
}

/// Whether a decoded datagram with `payload_len` bytes is possible.
pub fn check(payload_len: usize) -> Result<(), CodecError> {
    if payload_len == 0 {
        return Err(CodecError::Invalid("datagram without payload"));
    }
    Ok(())
}

/// A datagram in the driver's datagrams: DATAGRAM, its number and send time, then its
/// payload.
impl WirePacket for Datagram {
    const TYPES: &'static [u8] = &[DATAGRAM_TYPE];

    fn wire_type(&self) -> Option<u8> {
        Some(DATAGRAM_TYPE)
    }
    fn fixed_len(&self) -> usize {
        DATAGRAM_FIXED
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        put(w, self);
        Ok(())
    }
    fn get_fixed(_ty: u8, _flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        get(r)
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        check(len)?;
        self.len = u32::try_from(len).map_err(|_| CodecError::Invalid("payload length"))?;
        Ok(())
    }
    fn map_times(&mut self, f: &mut dyn FnMut(Time) -> Time) {
        self.sent_at = f(self.sent_at);
    }
    fn claim(&self) -> WireClaim {
        WireClaim::Datagram { seq: self.seq }
    }
}

impl WireTransport for DatagramTransport {
    const WIRE_CODE: Option<u8> = Some(1);

    fn wire(spec: &DatagramSpec) -> Option<WireFlow> {
        Some(WireFlow {
            mss: spec.payload,
            rcv_buf: u64::MAX,
            reliable: false,
            source_types: &[DATAGRAM_TYPE],
            sink_types: &[],
            accepts: any_packet,
            symbol_bytes: false,
            resize: Some(Resize {
                key: "flow.payload",
                extra: (IP_UDP + COMMON_HEADER + DATAGRAM_FIXED) as u32 - UDP_HEADER_BYTES,
            }),
            refuse: None,
        })
    }

    fn set_wire_payload(spec: &mut DatagramSpec, payload: u32) {
        spec.payload = payload;
    }
}
