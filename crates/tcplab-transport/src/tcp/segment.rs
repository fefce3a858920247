//! The unit exchanged by endpoints: one TCP segment's header fields.
//!
//! Payload bytes are not carried: in simulation the content of byte `i` is implied by its
//! sequence number, and what matters is which bytes arrive, when, and in what order.

use crate::packet_kind::PacketKind;
use crate::pcap::{Endpoints, Wire};

/// IPv4 + TCP headers without options: 20 + 20 bytes.
pub const DATA_HEADER_BYTES: u32 = 40;
/// A pure ACK without SACK option.
pub const ACK_HEADER_BYTES: u32 = 40;
/// Options of a SYN or SYN-ACK: MSS (4), SACK-permitted (2), window scale (3), padding.
pub const SYN_OPTION_BYTES: u32 = 12;
/// SACK blocks per ACK (RFC 2018 allows 4, or 3 alongside timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;
/// The RFC 7323 timestamp option as sent: 2 NOPs + kind 8, length 10, TSval, TSecr.
pub const TS_OPTION_BYTES: u32 = 12;

/// RFC 7323 timestamp option values: the sender's clock in ticks (`TSval`) and the
/// peer's value echoed back (`TSecr`). 32-bit, compared modulo 2^32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    pub val: u32,
    pub ecr: u32,
}

/// A received range `[start, end)` reported in a SACK option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// The ECN field of the IP header (RFC 3168 section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum IpEcn {
    /// Not-ECT (00): the sender does not speak ECN, a router drops instead of marking.
    #[default]
    NotEct = 0b00,
    /// ECT(1) (01).
    Ect1 = 0b01,
    /// ECT(0) (10): what an RFC 3168 sender sets on its data.
    Ect0 = 0b10,
    /// CE (11): Congestion Experienced, set by a router on an ECT packet.
    Ce = 0b11,
}

impl IpEcn {
    /// The codepoint in the two low bits of `bits` (an IP TOS or traffic-class byte's
    /// ECN field); the other bits are ignored.
    #[inline]
    pub fn from_bits(bits: u8) -> IpEcn {
        match bits & 0b11 {
            0b00 => IpEcn::NotEct,
            0b01 => IpEcn::Ect1,
            0b10 => IpEcn::Ect0,
            _ => IpEcn::Ce,
        }
    }

    /// ECT(0), ECT(1) or CE: a router may mark it instead of dropping it.
    #[inline]
    pub fn is_capable(self) -> bool {
        self != IpEcn::NotEct
    }
}

/// A data segment (sender → receiver) or an acknowledgement (receiver → sender).
///
/// `repr(C)`, the fields every segment's receiver reads first and the SACK blocks (read
/// only when `n_sack > 0`) after them: a stored packet is read once, after it crossed the
/// network and left the cache, so the header fields share as few lines as they can
/// (48 bytes, not spread over the 104). The ECN fields, read with ECN on, come last:
/// before the SACK blocks they left 5 bytes of padding there, and every segment built
/// (zero blocks or a local array) took a stack copy of blocks and padding, about 7
/// instructions more a segment on B1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Segment {
    /// First payload byte (data segments).
    pub seq: u64,
    /// Cumulative acknowledgement: next byte expected (ACKs).
    pub ack: u64,
    /// Advertised receive window in bytes (ACKs).
    pub wnd: u64,
    /// Which connection this belongs to (the driver's demultiplexing key).
    pub flow: u32,
    /// Payload bytes; zero for a pure ACK.
    pub len: u32,
    /// The timestamp option, on every segment when both ends use timestamps (RFC 7323).
    pub ts: Option<Timestamps>,
    pub n_sack: u8,
    /// Marks the last byte of a finite transfer (the receiver acknowledges it at once).
    pub fin: bool,
    /// SYN (sender → receiver) or SYN-ACK (receiver → sender) of the handshake; carries
    /// no data and occupies no sequence number here.
    pub syn: bool,
    /// True for data segments that are retransmissions (for traces only; receivers ignore it).
    pub retransmission: bool,
    /// Valid SACK blocks: `sack[..n_sack]`.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// The IP header's ECN field (RFC 3168 section 5).
    pub ip_ecn: IpEcn,
    /// TCP's ECN-Echo flag (RFC 3168 section 6.1): on a SYN with `cwr`, the sender asks
    /// for ECN; on a SYN-ACK, the receiver agrees; on an ACK, the receiver saw CE.
    pub ece: bool,
    /// TCP's Congestion Window Reduced flag (RFC 3168 section 6.1.2): the sender has
    /// answered an ECN-Echo (the receiver stops echoing).
    pub cwr: bool,
}

impl Segment {
    pub fn is_ack(&self) -> bool {
        self.len == 0 && !self.fin && !self.syn
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }

    /// Bytes on the wire: headers, timestamp option (12), SACK option (2 NOPs +
    /// kind/len + 8 per block), payload; a SYN or SYN-ACK carries MSS, SACK-permitted and
    /// window-scale options (12 bytes with padding; its timestamps are not modelled).
    pub fn wire_len(&self) -> u32 {
        if self.syn {
            return ACK_HEADER_BYTES + SYN_OPTION_BYTES;
        }
        // Without branches: the simulator asks for every packet it moves.
        let ts_opt = TS_OPTION_BYTES * u32::from(self.ts.is_some());
        let sack_opt = ts_opt + (4 + 8 * self.n_sack as u32) * u32::from(self.n_sack > 0);
        let header = if self.len > 0 {
            DATA_HEADER_BYTES
        } else {
            ACK_HEADER_BYTES
        };
        header + self.len + sack_opt
    }
}

impl PacketKind for Segment {
    #[inline]
    fn wire_len(&self) -> u32 {
        Segment::wire_len(self)
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        self.len
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        self.ip_ecn.is_capable()
    }
    fn set_ce(&mut self) {
        self.ip_ecn = IpEcn::Ce;
    }
    #[inline]
    fn ip_ecn(&self) -> u8 {
        self.ip_ecn as u8
    }
    fn set_ip_ecn(&mut self, ecn: u8) {
        self.ip_ecn = IpEcn::from_bits(ecn);
    }
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, from_sink: bool) {
        super::pcap::header(w, self, ends, from_sink);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field but the SACK blocks and the ECN fields lies in the first 48 bytes,
    /// with no padding before the blocks (see [`Segment`]).
    #[test]
    fn the_header_fields_come_before_the_sack_blocks() {
        use std::mem::{offset_of, size_of};
        assert_eq!(offset_of!(Segment, sack), 48);
        assert_eq!(offset_of!(Segment, retransmission), 47);
        assert_eq!(offset_of!(Segment, ip_ecn), 96);
        assert_eq!(size_of::<Segment>(), 104);
    }

    /// Every header part counted once: data and ACKs, with and without timestamps and
    /// SACK blocks, and a SYN.
    #[test]
    fn wire_lengths() {
        let data = Segment {
            len: 1448,
            ..Segment::default()
        };
        assert_eq!(data.wire_len(), 1488);
        let ts = Some(Timestamps { val: 1, ecr: 2 });
        assert_eq!(Segment { ts, ..data }.wire_len(), 1500);
        let ack = Segment::default();
        assert_eq!(ack.wire_len(), 40);
        assert_eq!(Segment { n_sack: 3, ..ack }.wire_len(), 40 + 4 + 24);
        assert_eq!(
            Segment {
                n_sack: 1,
                ts,
                ..ack
            }
            .wire_len(),
            40 + 12 + 4 + 8
        );
        let syn = Segment {
            syn: true,
            ts,
            ..ack
        };
        assert_eq!(syn.wire_len(), 52);
    }
}
