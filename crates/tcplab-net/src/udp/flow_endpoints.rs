//! One flow's two ends for the UDP driver, built exactly as the simulator builds them
//! (`TransportSpec::build`), plus what the sessions must know about the flow to screen
//! datagrams: its transport, payload size, length, reliability and which message types
//! each end sends - all from the transport (`tcplab_transport::WireTransport`).

use crate::wire::TransportCode;
use tcplab_core::Rng;
use tcplab_scenario::FlowSpec;
use tcplab_transport::coded::PayloadPorts;
use tcplab_transport::tcp::wire as tcp_wire;
use tcplab_transport::{any_packet, FlowContext, FlowEndpoints, Packet};

/// What the sessions check datagrams against.
#[derive(Clone, Debug)]
pub struct FlowShape {
    pub transport: TransportCode,
    /// Payload bytes per data packet: the MSS (TCP, TACK, coded) or the datagram size.
    pub mss: u32,
    /// Bytes the application writes (`None`: until it stops).
    pub total: Option<u64>,
    /// Whether the sink must end up with every byte (all but datagrams).
    pub reliable: bool,
    /// The receive buffer a data packet may run ahead of the delivered point (bytes).
    pub rcv_buf: u64,
    /// Message types the source sends, and the sink.
    pub source_types: &'static [u8],
    pub sink_types: &'static [u8],
    /// Whether a packet of an accepted type belongs to the flow.
    pub accepts: fn(&Packet) -> bool,
}

impl FlowShape {
    /// A TCP flow: the driver's own default (`tcplab recv` without a flow table, and
    /// [`SenderSession::new`](super::SenderSession::new)).
    pub fn tcp(mss: u32, total: Option<u64>) -> FlowShape {
        FlowShape {
            transport: TransportCode::TCP,
            mss,
            total,
            reliable: true,
            rcv_buf: u64::MAX,
            source_types: &[tcp_wire::DATA_TYPE],
            sink_types: &[tcp_wire::ACK_TYPE],
            accepts: any_packet,
        }
    }

    /// Segments of a finite transfer (coded flows number segments from 0).
    pub fn segments(&self) -> Option<u64> {
        self.total.map(|t| t.div_ceil(u64::from(self.mss.max(1))))
    }

    /// Whether the sink of this flow sends messages of `pkt`'s type.
    pub fn sink_sends(&self, pkt: &Packet) -> bool {
        pkt.wire_type()
            .is_some_and(|t| self.sink_types.contains(&t))
    }

    /// Whether the source of this flow sends messages of `pkt`'s type.
    pub fn source_sends(&self, pkt: &Packet) -> bool {
        pkt.wire_type()
            .is_some_and(|t| self.source_types.contains(&t))
    }
}

/// The shape of `f` (an error for transports the wire format does not carry).
pub fn shape(f: &FlowSpec) -> Result<FlowShape, String> {
    let no_wire = || {
        format!(
            "the UDP driver's wire format has no messages for transport '{}'",
            f.transport.name()
        )
    };
    let transport = TransportCode::of(&f.transport).ok_or_else(no_wire)?;
    let w = f.transport.wire().ok_or_else(no_wire)?;
    Ok(FlowShape {
        transport,
        mss: w.mss,
        total: f.bytes,
        reliable: w.reliable,
        rcv_buf: w.rcv_buf,
        source_types: w.source_types,
        sink_types: w.sink_types,
        accepts: w.accepts,
    })
}

/// Both ends of flow `f` for connection `conn`; each side keeps its own. Random streams
/// are seeded from the connection id, so both sides build identical ends.
pub fn build(f: &FlowSpec, conn: u64) -> Result<(FlowShape, FlowEndpoints), String> {
    let shape = shape(f)?;
    let symbol_bytes = f.transport.wire().is_some_and(|w| w.symbol_bytes);
    let ctx = FlowContext {
        flow: 0,
        bytes: f.bytes,
        source_rng: Rng::named(conn, "udp.source"),
        sink_rng: Rng::named(conn, "udp.sink"),
        // Each process moves a payload-carrying coded flow's symbol bytes between its
        // own end's store and the wire (`FlowEndpoints::payload`: none for other flows).
        payload: if symbol_bytes {
            PayloadPorts::separate()
        } else {
            PayloadPorts::default()
        },
    };
    let ends = f.transport.build(ctx)?;
    // A registered transport says whether it is reliable as it builds its ends.
    let shape = FlowShape {
        reliable: ends.reliable,
        ..shape
    };
    Ok((shape, ends))
}
