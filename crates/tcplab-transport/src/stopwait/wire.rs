//! Stop-and-wait in the UDP driver's wire format (docs/wire-format.md): two messages
//! after the driver's common header, each with the packet's number as its fixed part.
//! DATA carries the payload; ACK nothing more but the driver's timestamps.

use super::{StopWait, StopWaitPacket, StopWaitSpec};
use crate::codec::{CodecError, Reader, Writer};
use crate::wire_flow::{any_packet, WireFlow, WireTransport};
use crate::wire_packet::{WireClaim, WirePacket};

/// Message type codes (the common header's type byte).
pub const DATA_TYPE: u8 = 20;
pub const ACK_TYPE: u8 = 21;
/// Fixed part: the packet's number (8).
pub const FIXED: usize = 8;

impl WirePacket for StopWaitPacket {
    const TYPES: &'static [u8] = &[DATA_TYPE, ACK_TYPE];

    fn wire_type(&self) -> Option<u8> {
        Some(if self.is_ack() { ACK_TYPE } else { DATA_TYPE })
    }
    fn carries_timestamp(&self) -> bool {
        self.is_ack()
    }
    fn fixed_len(&self) -> usize {
        FIXED
    }
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
        w.u64(self.seq);
        Ok(())
    }
    fn get_fixed(ty: u8, _flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError> {
        let seq = r.u64("packet number")?;
        // A data packet's length is its payload's (set next); u32::MAX marks it as data
        // until then.
        let len = if ty == DATA_TYPE { u32::MAX } else { 0 };
        Ok(StopWaitPacket { seq, len })
    }
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError> {
        if self.is_ack() {
            if len != 0 {
                return Err(CodecError::Invalid("trailing bytes after an ACK"));
            }
            return self
                .seq
                .checked_add(1)
                .map(|_| ())
                .ok_or(CodecError::Invalid("packet number (wraps)"));
        }
        let n = u32::try_from(len)
            .ok()
            .filter(|&n| n > 0)
            .ok_or(CodecError::Invalid("data without payload"))?;
        // Packet `seq` holds bytes `seq · len ..`: they must be a place in a stream.
        self.seq
            .checked_add(1)
            .and_then(|s| s.checked_mul(u64::from(n)))
            .ok_or(CodecError::Invalid("packet number (wraps)"))?;
        self.len = n;
        Ok(())
    }
    fn claim(&self) -> WireClaim {
        if self.is_ack() {
            // Packet `seq` arrived, and with stop-and-wait every one before it.
            let n = self.seq.saturating_add(1);
            WireClaim::AckSegments { cum: n, highest: n }
        } else {
            WireClaim::Stream {
                offset: self.seq.saturating_mul(u64::from(self.len)),
                pn: None,
            }
        }
    }
}

/// Stop-and-wait over UDP: DATA one way, ACK the other; one packet at a time, so data
/// reaches at most one payload past the delivered point. The payload per packet stays as
/// set (the flow's bytes are a multiple of it), so its datagrams are longer than the
/// simulated packets by the driver's header bytes.
impl WireTransport for StopWait {
    const WIRE_CODE: Option<u8> = Some(5);

    fn wire(spec: &StopWaitSpec) -> Option<WireFlow> {
        Some(WireFlow {
            mss: spec.payload,
            rcv_buf: u64::from(spec.payload),
            reliable: true,
            source_types: &[DATA_TYPE],
            sink_types: &[ACK_TYPE],
            accepts: any_packet,
            symbol_bytes: false,
            resize: None,
            refuse: None,
        })
    }
}
