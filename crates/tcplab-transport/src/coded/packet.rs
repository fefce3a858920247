//! What the coded transports put on the wire: a symbol's *description*, never its bytes.
//!
//! A symbol is identified by its code, its coding window (`start`, `span`) and the seed its
//! coefficients (RLNC) or its degree and neighbours (LT) are drawn from — exactly what the
//! real header carries (`tcplab-coding`'s seeded wire formats). The receiver regenerates
//! the rest, so the simulator moves 40-byte headers and the decoders stay exact. With
//! `payload = true` the bytes travel beside the packet (see `symbol_bytes.rs`).

use crate::packet_kind::PacketKind;
use crate::pcap::{Endpoints, Wire};
use tcplab_core::Time;

/// IPv4 + TCP headers under TCP/NC's coding header (the coding layer sits between TCP
/// and IP, seed 004 Sec. II).
pub const NC_IP_TCP_BYTES: u32 = 40;
/// TCP/NC coding header: `tcplab-coding`'s seeded RLNC header (16 bytes: tag, version,
/// mode, window start, window length, payload length, seed) plus the sender's oldest
/// unacknowledged packet (4 bytes).
pub const NC_HEADER_BYTES: u32 = 20;
/// RLNC frames each packet with its length (2 bytes) so short packets decode exactly.
pub const NC_FRAMING_BYTES: u32 = 2;
/// IPv4 + UDP headers: TCP-Forward runs in user space over UDP (seed 004 Sec. V).
pub const FORWARD_IP_UDP_BYTES: u32 = 28;
/// TCP-Forward symbol header: window start (4), window length (4), seed (4), payload
/// length (2), flags (2).
pub const FORWARD_HEADER_BYTES: u32 = 16;
/// TCP-Forward acknowledgement: the decoded segment (4), the in-order point (4), the
/// echoed symbol seed (4).
pub const FORWARD_ACK_BYTES: u32 = FORWARD_IP_UDP_BYTES + 12;

/// Which code a symbol belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Random linear combination over GF(2^8) (TCP/NC).
    Rlnc,
    /// LT symbol: XOR of a Robust-Soliton-sized neighbour set (TCP-Forward).
    Lt,
}

/// One encoded symbol, as its header describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub flow: u32,
    pub code: Code,
    /// First segment of the coding window (segment i holds bytes `i·mss ..`).
    pub start: u32,
    /// Segments in the coding window.
    pub span: u32,
    /// Draws the coefficients (RLNC) or the degree and neighbours (LT).
    pub seed: u32,
    /// TCP/NC: the sender's oldest unacknowledged segment when it sent this symbol.
    pub base: u32,
    /// Payload bytes (one segment's worth, plus RLNC's length framing).
    pub payload: u32,
    /// TCP-Forward: sent by loss recovery (Diff_p), outside the credit.
    pub repair: bool,
    /// The newest segment that has entered the sender's coding layer, and when: a
    /// measurement for the receiver's end-to-end latency (as TACK's `sent_at`), not
    /// protocol state (see `entry.rs`). Not counted in the simulated header's size.
    pub newest: u32,
    pub entered: Time,
}

impl Symbol {
    pub fn wire_len(&self) -> u32 {
        match self.code {
            Code::Rlnc => NC_IP_TCP_BYTES + NC_HEADER_BYTES + self.payload,
            Code::Lt => FORWARD_IP_UDP_BYTES + FORWARD_HEADER_BYTES + self.payload,
        }
    }
}

/// TCP-Forward's acknowledgement of one decoded segment (seed 004 Sec. IV-B): not
/// cumulative, but it also says up to where everything is decoded, so a lost ACK is
/// repaired by the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodedAck {
    pub flow: u32,
    /// The segment just decoded.
    pub index: u32,
    /// Every segment below is decoded.
    pub cum: u32,
    /// The seed of the symbol whose arrival decoded it (as TCP's timestamp echo: the
    /// sender knows which of its transmissions the ACK answers).
    pub echo: u32,
}

/// A coded transport's packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodedPacket {
    Symbol(Symbol),
    Ack(CodedAck),
}

impl CodedPacket {
    pub fn wire_len(&self) -> u32 {
        match self {
            CodedPacket::Symbol(s) => s.wire_len(),
            CodedPacket::Ack(_) => FORWARD_ACK_BYTES,
        }
    }

    pub fn payload_len(&self) -> u32 {
        match self {
            CodedPacket::Symbol(s) => s.payload,
            CodedPacket::Ack(_) => 0,
        }
    }
}

impl PacketKind for CodedPacket {
    #[inline]
    fn wire_len(&self) -> u32 {
        CodedPacket::wire_len(self)
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        CodedPacket::payload_len(self)
    }
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, _from_sink: bool) {
        super::pcap::header(w, self, ends);
    }
}
