//! Stop-and-wait's header: a data packet or an acknowledgement, numbered.

use crate::packet_kind::PacketKind;
use crate::pcap::{Endpoints, Wire};

/// IPv4 (20 bytes) and stop-and-wait's own 12-byte header (kind, sequence number).
pub const HEADER_BYTES: u32 = 32;

/// A data packet (`len` > 0) or an acknowledgement (`len` = 0) of packet `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StopWaitPacket {
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
}

impl StopWaitPacket {
    pub fn is_ack(&self) -> bool {
        self.len == 0
    }
}

impl PacketKind for StopWaitPacket {
    #[inline]
    fn wire_len(&self) -> u32 {
        HEADER_BYTES + self.len
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        self.len
    }
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, _from_sink: bool) {
        super::pcap::header(w, self, ends);
    }
}
