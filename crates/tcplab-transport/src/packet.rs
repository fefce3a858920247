//! What endpoints exchange: one small header enum, one variant per kind of header,
//! written from the list of built-in transports (`builtin.rs`).
//!
//! Dispatch is static (a `match`, no vtable) and every variant is `Copy`, so packets move
//! through queues and drivers without allocating. Payload bytes are not carried: in a
//! simulation what matters is which bytes arrive, when and in what order; a transport that
//! needs real bytes (a coded transport checking its decoder) passes them through a store
//! the driver owns, reached from the flow's context (`coded::PayloadPorts`).

use crate::opaque::Opaque;
use crate::packet_kind::PacketKind;
use crate::pcap::{self, Endpoints, Wire};

/// Writes [`Packet`] from the list in `builtin.rs`: a variant per header type, and the
/// methods that `match` over them (each arm calls the header's [`PacketKind`] method).
macro_rules! define_packet {
    ($($variant:ident: $transport:ty => $src:ident, $sink:ident
        $(, packet $kind:ident($header:ty))?;)*) => {
        /// A packet between the two endpoints of a flow: a built-in transport's header,
        /// or a user-registered transport's ([`Opaque`]).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Packet {
            $($($kind($header),)?)*
            /// A user-registered transport's header.
            Opaque(Opaque),
        }

        impl Packet {
            /// Bytes on the wire, headers included.
            #[inline]
            pub fn wire_len(&self) -> u32 {
                match self {
                    $($(Packet::$kind(p) => PacketKind::wire_len(p),)?)*
                    Packet::Opaque(o) => o.wire_len,
                }
            }

            /// Application payload bytes (for goodput and trace accounting).
            #[inline]
            pub fn payload_len(&self) -> u32 {
                match self {
                    $($(Packet::$kind(p) => PacketKind::payload_len(p),)?)*
                    Packet::Opaque(_) => 0,
                }
            }

            /// ECN-capable (RFC 3168): a queue discipline may mark it instead of dropping
            /// it. Only TCP segments carry the IP ECN field here.
            #[inline]
            pub fn ecn_capable(&self) -> bool {
                match self {
                    $($(Packet::$kind(p) => PacketKind::ecn_capable(p),)?)*
                    Packet::Opaque(_) => false,
                }
            }

            /// Sets Congestion Experienced (on an ECN-capable packet; others are left
            /// alone).
            pub fn set_ce(&mut self) {
                if !self.ecn_capable() {
                    return;
                }
                match self {
                    $($(Packet::$kind(p) => PacketKind::set_ce(p),)?)*
                    Packet::Opaque(_) => {}
                }
            }

            /// Its IP ECN field ([`PacketKind::ip_ecn`]): what the UDP driver sets in the
            /// datagram's IP header.
            #[inline]
            pub fn ip_ecn(&self) -> u8 {
                match self {
                    $($(Packet::$kind(p) => PacketKind::ip_ecn(p),)?)*
                    Packet::Opaque(_) => 0,
                }
            }

            /// Sets its IP ECN field as a datagram arrived with it
            /// ([`PacketKind::set_ip_ecn`]).
            #[inline]
            pub fn set_ip_ecn(&mut self, ecn: u8) {
                match self {
                    $($(Packet::$kind(p) => PacketKind::set_ip_ecn(p, ecn),)?)*
                    Packet::Opaque(_) => {}
                }
            }

            /// Its IPv4 packet's first bytes for a capture (see [`PacketKind::pcap_header`]).
            pub fn pcap(&self, ends: Endpoints, from_sink: bool) -> Wire {
                let mut w = Wire::default();
                match self {
                    $($(Packet::$kind(p) => PacketKind::pcap_header(p, &mut w, ends, from_sink),)?)*
                    Packet::Opaque(o) => pcap::opaque(&mut w, o, ends),
                }
                w
            }
        }

        $($(impl From<$header> for Packet {
            fn from(p: $header) -> Self {
                Packet::$kind(p)
            }
        })?)*
    };
}

builtin_transports!(define_packet);
