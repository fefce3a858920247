//! TACK's packets: data with a per-transmission packet number, and the receiver's ACKs.
//!
//! Every transmission gets a new, monotonically increasing packet number (PN), separate
//! from the byte sequence, so the receiver can tell which transmission was lost and the
//! sender never confuses a retransmission with its original (§5.1). An ACK describes the
//! PNs it covers as alternating lists: the gaps (the "unacked list") are listed, the
//! blocks between them (the "acked list") are implied.

use crate::packet_kind::PacketKind;
use crate::pcap::{Endpoints, Wire};
use tcplab_core::Time;

/// IPv4 + TCP headers (40) and the TACK data option: packet number, departure timestamp.
pub const TACK_DATA_HEADER_BYTES: u32 = 52;
/// A TACK or IACK without blocks: the paper's 64-byte ACK.
pub const TACK_ACK_BASE_BYTES: u32 = 64;
/// Each reported gap adds two 8-byte blocks (the gap and the received block after it).
pub const TACK_BYTES_PER_GAP: u32 = 16;
/// Gaps one ACK can carry in this implementation ("TACK-rich" reports up to this many).
pub const MAX_GAPS: usize = 8;

/// A data packet (sender → receiver).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TackData {
    pub flow: u32,
    /// Payload bytes this packet carries.
    pub len: u32,
    /// First payload byte.
    pub seq: u64,
    /// This transmission's packet number.
    pub pn: u64,
    /// The smallest PN the sender still waits to hear about: the receiver stops
    /// reporting below it (the role of QUIC's ACK of ACKs).
    pub pn_floor: u64,
    /// Departure timestamp, for one-way delays and RTT samples.
    pub sent_at: Time,
    /// The sender's RTT_min in ns (0: unknown): the paper's sender-side IACK that syncs
    /// the TACK interval, carried in every data packet.
    pub rtt_min_ns: u64,
    /// Last byte of a finite transfer.
    pub fin: bool,
    pub retransmission: bool,
}

impl TackData {
    pub fn wire_len(&self) -> u32 {
        TACK_DATA_HEADER_BYTES + self.len
    }
}

/// Why an ACK was sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckKind {
    /// The periodic / byte-counting Tame ACK.
    #[default]
    Tack,
    /// Instant ACK on a loss event (a gap in packet numbers).
    IackLoss,
    /// Instant ACK on a receive-window change (buffer nearly full, or a large release).
    IackWindow,
}

/// A PN gap `[base + start, base + start + len)` of an ACK. 16-bit fields keep the
/// packet small; an ACK describes at most 65,535 PNs past its base (what does not fit
/// is left to the next ACK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gap {
    pub start: u16,
    pub len: u16,
}

/// An acknowledgement (receiver → sender): TACK or IACK.
///
/// PNs in `[base, base + covered)` were received except the listed gaps; `largest` was
/// received; nothing is said about PNs between `base + covered` and `largest`. An IACK
/// on loss covers `[second largest, largest]` with the new gap in between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TackAck {
    pub flow: u32,
    pub kind: AckKind,
    pub n_gaps: u8,
    /// Counts TACKs (not IACKs), so the sender can estimate ACK-path loss.
    pub tack_seq: u32,
    /// Receive window available, in bytes.
    pub wnd: u32,
    /// The receiver's delivery-rate estimate (windowed max), bytes/s.
    pub delivery_rate: u32,
    /// Bytes delivered in order (the cumulative acknowledgement of the byte stream).
    pub rcv_nxt: u64,
    pub largest: u64,
    pub base: u64,
    pub covered: u32,
    /// The packet with the smallest smoothed one-way delay of the interval: its PN as an
    /// offset below `largest`, and how long the receiver held it before this ACK (ns).
    pub min_owd_back: u32,
    pub min_owd_delay_ns: u32,
    /// How long the receiver held `largest` before this ACK (ns): legacy RTT sampling.
    pub largest_delay_ns: u32,
    pub gaps: [Gap; MAX_GAPS],
}

impl TackAck {
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps[..self.n_gaps as usize]
    }

    pub fn wire_len(&self) -> u32 {
        TACK_ACK_BASE_BYTES + TACK_BYTES_PER_GAP * self.n_gaps as u32
    }
}

/// A TACK packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TackPacket {
    Data(TackData),
    Ack(TackAck),
}

impl TackPacket {
    pub fn wire_len(&self) -> u32 {
        match self {
            TackPacket::Data(d) => d.wire_len(),
            TackPacket::Ack(a) => a.wire_len(),
        }
    }

    pub fn payload_len(&self) -> u32 {
        match self {
            TackPacket::Data(d) => d.len,
            TackPacket::Ack(_) => 0,
        }
    }
}

impl PacketKind for TackPacket {
    #[inline]
    fn wire_len(&self) -> u32 {
        TackPacket::wire_len(self)
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        TackPacket::payload_len(self)
    }
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, _from_sink: bool) {
        super::pcap::header(w, self.wire_len(), ends);
    }
}
