//! What a transport's header type provides to be carried as a [`Packet`](crate::Packet).

use crate::pcap::{Endpoints, Wire};

/// A transport's packet header: its size on the wire and how a capture shows it.
///
/// `Copy` and small: packets move through queues and drivers without allocating.
pub trait PacketKind: Copy {
    /// Bytes on the wire, headers included.
    fn wire_len(&self) -> u32;
    /// Application payload bytes (for goodput and trace accounting).
    fn payload_len(&self) -> u32;
    /// ECN-capable (RFC 3168): a queue discipline may mark it instead of dropping it.
    fn ecn_capable(&self) -> bool {
        false
    }
    /// Sets Congestion Experienced (only called on an ECN-capable packet).
    fn set_ce(&mut self) {}
    /// Its IP header's ECN field (RFC 3168 section 5: 0 Not-ECT, 1 ECT(1), 2 ECT(0),
    /// 3 CE); 0 for a packet that does not carry one.
    fn ip_ecn(&self) -> u8 {
        0
    }
    /// Sets its ECN field to the two low bits of `ecn` as a datagram arrived with them
    /// (a real network's IP header); ignored by a packet that does not carry one.
    fn set_ip_ecn(&mut self, ecn: u8) {
        let _ = ecn;
    }
    /// Writes its IPv4 packet's first bytes into `w` for a capture (see [`crate::pcap`]),
    /// sent from `ends.src_*` to `ends.dst_*`; `from_sink`: it travels from the flow's
    /// sink towards its source.
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, from_sink: bool);
}
