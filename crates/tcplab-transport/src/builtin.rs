//! The built-in transports, listed once.
//!
//! Each line names a transport's [`Transport`]($crate::Transport) type, the two
//! [`AnyEndpoint`]($crate::AnyEndpoint) variants its source and sink run in, and, when it
//! brings a header type of its own, the [`Packet`]($crate::Packet) variant that carries
//! it (a [`PacketKind`]($crate::PacketKind)). TCP/NC and TCP-Forward share the coded
//! packet; TCP/NC's acknowledgements are TCP ACKs.
//!
//! ```text
//! Variant: Transport type => SourceVariant, SinkVariant [, packet PacketVariant(Header)];
//! ```
//!
//! `builtin_transports!(generator)` hands the list to a generator macro: `packet.rs`
//! writes the [`Packet`]($crate::Packet) enum from it and `transport.rs` writes
//! [`TransportSpec`]($crate::TransportSpec) and [`AnyEndpoint`]($crate::AnyEndpoint). Both
//! stay enums so the per-packet path dispatches with a `match`, not a vtable. Adding a
//! transport is its folder and one line here (docs/transports.md walks through it).
//! `wire_packet.rs` writes the UDP driver's dispatch from the list too: each transport
//! implements [`WireTransport`]($crate::WireTransport) and each header
//! [`WirePacket`]($crate::WirePacket), in its folder's `wire.rs`.

/// Hands the list of built-in transports to the generator macro `$generate` (the module
/// documentation gives the form of a line).
#[macro_export]
macro_rules! builtin_transports {
    ($generate:ident) => {
        $generate! {
            Tcp: $crate::tcp::TcpTransport => TcpSender, TcpReceiver,
                packet Tcp($crate::tcp::Segment);
            Datagram: $crate::datagram::DatagramTransport => DatagramSource, DatagramSink,
                packet Datagram($crate::datagram::Datagram);
            Tack: $crate::tack::TackTransport => TackSender, TackReceiver,
                packet Tack($crate::tack::TackPacket);
            TcpNc: $crate::nc::NcTransport => NcSource, NcSink,
                packet Coded($crate::coded::CodedPacket);
            Forward: $crate::forward::ForwardTransport => ForwardSource, ForwardSink;
            StopWait: $crate::stopwait::StopWait => StopWaitSource, StopWaitSink,
                packet StopWait($crate::stopwait::StopWaitPacket);
        }
    };
}
