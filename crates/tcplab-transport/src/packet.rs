//! What endpoints exchange: one small header enum, one variant per kind of transport.
//!
//! Dispatch is static (a `match`, no vtable) and every variant is `Copy`, so packets move
//! through queues and drivers without allocating. Payload bytes are not carried: in a
//! simulation what matters is which bytes arrive, when and in what order; a transport that
//! needs real bytes (a coded transport checking its decoder) passes them through a store
//! the driver owns, reached from the flow's context (`coded::PayloadPorts`).

use crate::coded::CodedPacket;
use crate::datagram::Datagram;
use crate::tack::TackPacket;
use crate::tcp::Segment;

/// Header fields of a transport registered at run time (see [`crate::transport::register`]).
///
/// Six 64-bit words and a 16-bit kind are enough for a sequence number, an
/// acknowledgement, a timestamp and a few flags; the size on the wire is given explicitly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opaque {
    /// Free for the transport (e.g. data vs acknowledgement).
    pub kind: u16,
    pub words: [u64; 6],
    /// Bytes this packet occupies on the wire, headers included (must be > 0).
    pub wire_len: u32,
}

/// A packet between the two endpoints of a flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Packet {
    /// A TCP segment or acknowledgement.
    Tcp(Segment),
    /// An unreliable datagram (cross traffic).
    Datagram(Datagram),
    /// TACK data or acknowledgement.
    Tack(TackPacket),
    /// A coded symbol or a coded transport's acknowledgement (TCP/NC's ACKs are TCP ACKs).
    Coded(CodedPacket),
    /// A user-registered transport's header.
    Opaque(Opaque),
}

impl Packet {
    /// Bytes on the wire, headers included.
    #[inline]
    pub fn wire_len(&self) -> u32 {
        match self {
            Packet::Tcp(s) => s.wire_len(),
            Packet::Datagram(d) => d.wire_len(),
            Packet::Tack(t) => t.wire_len(),
            Packet::Coded(c) => c.wire_len(),
            Packet::Opaque(o) => o.wire_len,
        }
    }

    /// Application payload bytes (for goodput and trace accounting).
    #[inline]
    pub fn payload_len(&self) -> u32 {
        match self {
            Packet::Tcp(s) => s.len,
            Packet::Datagram(d) => d.len,
            Packet::Tack(t) => t.payload_len(),
            Packet::Coded(c) => c.payload_len(),
            Packet::Opaque(_) => 0,
        }
    }
}

impl Packet {
    /// ECN-capable (RFC 3168): a queue discipline may mark it instead of dropping it.
    /// Only TCP segments carry the IP ECN field here.
    #[inline]
    pub fn ecn_capable(&self) -> bool {
        match self {
            Packet::Tcp(s) => s.ip_ecn.is_capable(),
            _ => false,
        }
    }

    /// Sets Congestion Experienced (on an ECN-capable packet; others are left alone).
    pub fn set_ce(&mut self) {
        if let Packet::Tcp(s) = self {
            if s.ip_ecn.is_capable() {
                s.ip_ecn = crate::tcp::IpEcn::Ce;
            }
        }
    }
}

impl From<Segment> for Packet {
    fn from(s: Segment) -> Self {
        Packet::Tcp(s)
    }
}
