//! What a transport's header provides to travel in the UDP driver's datagrams
//! (docs/wire-format.md).
//!
//! The driver (`tcplab-net`) owns the framing: the 16-byte common header (magic, version,
//! type, flags, options length, connection id), its own options (nanosecond timestamps,
//! the session nonce), the MAC, the sessions and the checks against hostile datagrams. A
//! transport's header type implements [`WirePacket`] in its folder's `wire.rs`: which
//! type bytes it uses, its fixed part after the common header, its own options, and what
//! each packet claims ([`WireClaim`]) for the driver's checks. [`Packet`] dispatches to
//! them with a `match` written from the list in `builtin.rs`, so adding a transport needs
//! no edit in the driver.

use crate::codec::{CodecError, Reader, Writer};
use crate::opaque::Opaque;
use crate::packet::Packet;
use tcplab_core::Time;

/// The driver's common header (bytes), before every message's fixed part.
pub const COMMON_HEADER: usize = 16;
/// The driver's timestamp option (kind, length, tsval and tsecr of 8 bytes each), on the
/// packets whose [`WirePacket::carries_timestamp`] says so.
pub const TIMESTAMP_OPTION: usize = 2 + 16;
/// IPv4 (20) and UDP (8) headers around every datagram.
pub const IP_UDP: usize = 28;

/// Flag bits a transport may set (the common header's flags byte). 0x08 and 0x80 are the
/// driver's (an interrupted CLOSE, a MAC).
pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_RETX: u8 = 0x02;
/// SYMBOL: sent by loss recovery (TCP-Forward's Diff_p repair symbols).
pub const FLAG_REPAIR: u8 = 0x04;
/// TCP DATA: Congestion Window Reduced (RFC 3168 section 6.1.2).
pub const FLAG_CWR: u8 = 0x10;
/// TCP ACK: ECN-Echo (RFC 3168 section 6.1.3; RFC 8257 section 3.2 with DCTCP).
pub const FLAG_ECE: u8 = 0x20;

/// What a packet claims, for the driver's checks before an endpoint sees it: the
/// receiver's on data, the sender's on acknowledgements. Each kind of claim is checked
/// the same way whatever the transport (docs/real-network.md lists the checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireClaim {
    /// Bytes `offset ..` (the payload's length) of a byte stream cut at the MSS: only the
    /// last packet of a finite transfer is shorter, and nothing reaches past the receive
    /// buffer. `pn`: a packet number that only grows (a lower one for delivered bytes is
    /// a replay). Its payload is the stream's bytes at `offset`.
    Stream { offset: u64, pn: Option<u64> },
    /// Datagram `seq` of at most one payload; a recently seen `seq` is a replay.
    Datagram { seq: u64 },
    /// A coded symbol over segments below `end`, at most the MSS plus `framing` bytes;
    /// its bytes are symbol `seed`'s.
    Symbol { end: u64, seed: u32, framing: u32 },
    /// An acknowledgement of bytes: everything below `cum`, nothing past `highest`
    /// (at most what was sent).
    AckBytes { cum: u64, highest: u64 },
    /// An acknowledgement of segments (of the MSS): everything below `cum`, nothing at or
    /// past `highest` (at most the transfer's segments).
    AckSegments { cum: u64, highest: u64 },
    /// A registered transport's [`Opaque`](crate::Opaque) header, either way, followed by
    /// `padding` zero bytes: what its words mean only its ends know.
    Opaque { padding: u32 },
}

/// A transport's header in the UDP driver's datagrams. Encoding writes into a buffer the
/// driver has checked is long enough; decoding reads untrusted bytes and never panics.
pub trait WirePacket: Sized {
    /// The common header's type bytes its messages use (neither another transport's
    /// header nor the driver's own messages may use them; tests check).
    const TYPES: &'static [u8];

    /// The type byte of this packet's message; `None`: it does not travel (a TCP SYN).
    fn wire_type(&self) -> Option<u8>;
    /// Its flag bits ([`FLAG_FIN`], [`FLAG_RETX`], [`FLAG_REPAIR`]).
    fn wire_flags(&self) -> u8 {
        0
    }
    /// Whether its message carries the driver's timestamp option (PAWS and the driver's
    /// RTT use it).
    fn carries_timestamp(&self) -> bool {
        false
    }
    /// Bytes of its fixed part, after the common header.
    fn fixed_len(&self) -> usize;
    /// Writes its fixed part (an error for a packet its transport never builds, such
    /// as an ACK with more gaps than it holds).
    fn put_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError>;
    /// Bytes of its own options, after the driver's.
    fn options_len(&self) -> usize {
        0
    }
    /// Writes its own options (kind, length, value each).
    fn put_options(&self, w: &mut Writer<'_>) {
        let _ = w;
    }
    /// Reads the fixed part of a message of type `ty` (one of [`Self::TYPES`]) with
    /// `flags`.
    fn get_fixed(ty: u8, flags: u8, r: &mut Reader<'_>) -> Result<Self, CodecError>;
    /// An option of a kind the driver does not use. Kinds it does not know either are
    /// ignored (later versions may add options old peers skip); a known one that is
    /// malformed or repeated is an error.
    fn get_option(&mut self, kind: u8, value: &[u8]) -> Result<(), CodecError> {
        let _ = (kind, value);
        Ok(())
    }
    /// Takes the payload's length (the bytes after the options): an error if this
    /// packet cannot have that many.
    fn set_payload(&mut self, len: usize) -> Result<(), CodecError>;
    /// Applies `f` to every absolute time it carries: send and entry times cross the
    /// wire in the sender's real-time clock, and each session maps them onto its own.
    fn map_times(&mut self, f: &mut dyn FnMut(Time) -> Time) {
        let _ = f;
    }
    /// What it claims, for the driver's checks.
    fn claim(&self) -> WireClaim;
}

/// Writes [`Packet`]'s dispatch to its headers' [`WirePacket`] from the list in
/// `builtin.rs`, and to [`Opaque`]'s (`opaque_wire.rs`) for registered transports.
macro_rules! define_wire_dispatch {
    ($($variant:ident: $transport:ty => $src:ident, $sink:ident
        $(, packet $kind:ident($header:ty))?;)*) => {
        /// Every type byte a built-in transport's messages use.
        pub const PACKET_TYPES: &[&[u8]] =
            &[$($(<$header as WirePacket>::TYPES,)?)* <Opaque as WirePacket>::TYPES];

        impl Packet {
            /// Its message's type byte (`None`: it does not travel).
            #[inline]
            pub fn wire_type(&self) -> Option<u8> {
                match self {
                    $($(Packet::$kind(p) => WirePacket::wire_type(p),)?)*
                    Packet::Opaque(p) => WirePacket::wire_type(p),
                }
            }
            /// See [`WirePacket::wire_flags`].
            #[inline]
            pub fn wire_flags(&self) -> u8 {
                match self {
                    $($(Packet::$kind(p) => WirePacket::wire_flags(p),)?)*
                    Packet::Opaque(p) => WirePacket::wire_flags(p),
                }
            }
            /// See [`WirePacket::carries_timestamp`].
            #[inline]
            pub fn carries_timestamp(&self) -> bool {
                match self {
                    $($(Packet::$kind(p) => WirePacket::carries_timestamp(p),)?)*
                    Packet::Opaque(p) => WirePacket::carries_timestamp(p),
                }
            }
            /// Bytes of its fixed part and its own options.
            #[inline]
            pub fn wire_fixed_and_options(&self) -> (usize, usize) {
                match self {
                    $($(Packet::$kind(p) => (WirePacket::fixed_len(p), WirePacket::options_len(p)),)?)*
                    Packet::Opaque(p) => (WirePacket::fixed_len(p), WirePacket::options_len(p)),
                }
            }
            /// Writes its fixed part.
            #[inline]
            pub fn put_wire_fixed(&self, w: &mut Writer<'_>) -> Result<(), CodecError> {
                match self {
                    $($(Packet::$kind(p) => WirePacket::put_fixed(p, w),)?)*
                    Packet::Opaque(p) => WirePacket::put_fixed(p, w),
                }
            }
            /// Writes its own options.
            #[inline]
            pub fn put_wire_options(&self, w: &mut Writer<'_>) {
                match self {
                    $($(Packet::$kind(p) => WirePacket::put_options(p, w),)?)*
                    Packet::Opaque(p) => WirePacket::put_options(p, w),
                }
            }
            /// Reads the fixed part of a message of type `ty`; `None`: no transport
            /// uses `ty`.
            pub fn get_wire_fixed(
                ty: u8,
                flags: u8,
                r: &mut Reader<'_>,
            ) -> Option<Result<Packet, CodecError>> {
                $($(if <$header as WirePacket>::TYPES.contains(&ty) {
                    return Some(<$header as WirePacket>::get_fixed(ty, flags, r).map(Packet::$kind));
                })?)*
                if <Opaque as WirePacket>::TYPES.contains(&ty) {
                    return Some(<Opaque as WirePacket>::get_fixed(ty, flags, r).map(Packet::Opaque));
                }
                None
            }
            /// See [`WirePacket::get_option`].
            pub fn get_wire_option(&mut self, kind: u8, value: &[u8]) -> Result<(), CodecError> {
                match self {
                    $($(Packet::$kind(p) => WirePacket::get_option(p, kind, value),)?)*
                    Packet::Opaque(p) => WirePacket::get_option(p, kind, value),
                }
            }
            /// See [`WirePacket::set_payload`].
            pub fn set_wire_payload(&mut self, len: usize) -> Result<(), CodecError> {
                match self {
                    $($(Packet::$kind(p) => WirePacket::set_payload(p, len),)?)*
                    Packet::Opaque(p) => WirePacket::set_payload(p, len),
                }
            }
            /// See [`WirePacket::map_times`].
            #[inline]
            pub fn map_wire_times(&mut self, f: &mut dyn FnMut(Time) -> Time) {
                match self {
                    $($(Packet::$kind(p) => WirePacket::map_times(p, f),)?)*
                    Packet::Opaque(p) => WirePacket::map_times(p, f),
                }
            }
            /// See [`WirePacket::claim`]; `None` for packets that do not travel.
            #[inline]
            pub fn wire_claim(&self) -> Option<WireClaim> {
                match self {
                    $($(Packet::$kind(p) => Some(WirePacket::claim(p)),)?)*
                    Packet::Opaque(p) => Some(WirePacket::claim(p)),
                }
            }
        }
    };
}

builtin_transports!(define_wire_dispatch);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_transports_share_a_type_byte() {
        // (tcplab-net's wire tests check them against the driver's own types.)
        let mut seen = Vec::new();
        for t in PACKET_TYPES.iter().flat_map(|t| t.iter()) {
            assert!(!seen.contains(t), "type {t} used twice");
            seen.push(*t);
        }
    }
}
