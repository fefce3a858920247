//! How the UDP driver carries a transport's flows: [`WireTransport`], implemented next
//! to the transport's header layout in its folder's `wire.rs`.

use crate::packet::Packet;
use crate::transport_kind::Transport;

/// A built-in transport in the UDP driver (`tcplab send`/`recv`): its HELLO code and how
/// a flow of it is carried. Every transport listed in `builtin.rs` implements it; one
/// the driver does not carry keeps the defaults.
pub trait WireTransport: Transport {
    /// The HELLO's transport byte (docs/wire-format.md); `None`: the driver does not
    /// carry it. Unique among the built-ins (a test checks).
    const WIRE_CODE: Option<u8> = None;

    /// How the driver carries a flow with `spec` (its packets' layout is their header's
    /// [`WirePacket`](crate::WirePacket)); `None` without a [`Self::WIRE_CODE`].
    fn wire(spec: &Self::Spec) -> Option<WireFlow> {
        let _ = spec;
        None
    }

    /// Sets the payload per data packet to `payload` bytes (the driver shrinks it by its
    /// own header bytes, see [`WireFlow::resize`]), and whatever the wire needs changed
    /// with it.
    fn set_wire_payload(spec: &mut Self::Spec, payload: u32) {
        let _ = (spec, payload);
    }
}

/// A flow as the UDP driver carries it (docs/wire-format.md). With it and the headers'
/// [`WirePacket`](crate::WirePacket) the driver opens, screens and closes the flow
/// without knowing the transport.
#[derive(Clone, Debug)]
pub struct WireFlow {
    /// Payload bytes per data packet (the MSS, or a datagram's payload).
    pub mss: u32,
    /// How far past the delivered point a data packet may reach (bytes;
    /// `u64::MAX`: no limit of the transport's own, the driver's caps apply).
    pub rcv_buf: u64,
    /// Whether the sink must end up with every byte ([`Transport::RELIABLE`]).
    ///
    /// [`Transport::RELIABLE`]: crate::Transport::RELIABLE
    pub reliable: bool,
    /// Message types the source sends, and the sink.
    pub source_types: &'static [u8],
    pub sink_types: &'static [u8],
    /// Whether a packet of an accepted type belongs to this flow (TCP/NC's symbols are
    /// RLNC, TCP-Forward's LT: the same message type).
    pub accepts: fn(&Packet) -> bool,
    /// Its symbols carry their real coded bytes through the flow's payload ports
    /// (`payload = true` coded flows); otherwise payloads are the driver's generated,
    /// checked bytes.
    pub symbol_bytes: bool,
    /// The driver sets the payload per data packet so that a datagram is as long as the
    /// simulated packet: it shrinks it by `extra` ([`WireTransport::set_wire_payload`]).
    /// `None`: the payload stays (its datagrams are longer than simulated).
    pub resize: Option<Resize>,
    /// A setting the wire cannot carry (the `[[flow]]` key, its value and why): the
    /// driver refuses the flow naming it.
    pub refuse: Option<(&'static str, String, &'static str)>,
}

/// How a flow's payload per data packet fits the UDP driver's datagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resize {
    /// The `[[flow]]` key that sets it (`"flow.mss"`).
    pub key: &'static str,
    /// Bytes a full data packet's datagram (IPv4, UDP, the driver's common header, the
    /// transport's fixed part and options) has beyond the simulated packet's headers.
    pub extra: u32,
}

/// For [`WireFlow::accepts`]: every packet of an accepted type.
pub fn any_packet(_: &Packet) -> bool {
    true
}
