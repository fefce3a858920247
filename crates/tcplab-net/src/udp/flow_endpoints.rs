//! One flow's two ends for the UDP driver, built exactly as the simulator builds them
//! (`TransportSpec::build`), plus what the sessions must know about the flow to screen
//! datagrams: its transport, payload size, length and reliability.

use crate::wire::{MessageType, TransportCode};
use tcplab_core::Rng;
use tcplab_scenario::FlowSpec;
use tcplab_transport::coded::{Code, PayloadPorts};
use tcplab_transport::{FlowContext, FlowEndpoints, TransportSpec};

/// What the sessions check datagrams against.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl FlowShape {
    pub fn tcp(mss: u32, total: Option<u64>) -> FlowShape {
        FlowShape {
            transport: TransportCode::Tcp,
            mss,
            total,
            reliable: true,
            rcv_buf: u64::MAX,
        }
    }

    /// Segments of a finite transfer (coded flows number segments from 0).
    pub fn segments(&self) -> Option<u64> {
        self.total.map(|t| t.div_ceil(u64::from(self.mss.max(1))))
    }

    /// The code of this flow's symbols, for coded flows.
    pub fn code(&self) -> Option<Code> {
        match self.transport {
            TransportCode::TcpNc => Some(Code::Rlnc),
            TransportCode::TcpForward => Some(Code::Lt),
            _ => None,
        }
    }

    /// Whether the sink of this flow acknowledges with messages of type `t`.
    pub fn acks_with(&self, t: MessageType) -> bool {
        matches!(
            (self.transport, t),
            (TransportCode::Tcp | TransportCode::TcpNc, MessageType::Ack)
                | (TransportCode::Tack, MessageType::TackAck)
                | (TransportCode::TcpForward, MessageType::CodedAck)
        )
    }

    /// Whether the source of this flow sends data as messages of type `t`.
    pub fn sends_data_as(&self, t: MessageType) -> bool {
        matches!(
            (self.transport, t),
            (TransportCode::Tcp, MessageType::Data)
                | (TransportCode::Datagram, MessageType::Datagram)
                | (TransportCode::Tack, MessageType::TackData)
                | (
                    TransportCode::TcpNc | TransportCode::TcpForward,
                    MessageType::Symbol
                )
        )
    }
}

/// The shape of `f` (an error for transports the wire format does not carry).
pub fn shape(f: &FlowSpec) -> Result<FlowShape, String> {
    let total = f.bytes;
    Ok(match &f.transport {
        TransportSpec::Tcp(t) => FlowShape::tcp(t.sender.mss, total),
        TransportSpec::Datagram(d) => FlowShape {
            transport: TransportCode::Datagram,
            mss: d.payload,
            total,
            reliable: false,
            rcv_buf: u64::MAX,
        },
        TransportSpec::Tack(t) => FlowShape {
            transport: TransportCode::Tack,
            mss: t.cfg.mss,
            total,
            reliable: true,
            rcv_buf: t.cfg.rcv_buf,
        },
        TransportSpec::TcpNc(t) => FlowShape {
            transport: TransportCode::TcpNc,
            mss: t.tcp.sender.mss,
            total,
            reliable: true,
            rcv_buf: u64::from(t.coding.buffer) * u64::from(t.tcp.sender.mss),
        },
        TransportSpec::Forward(t) => FlowShape {
            transport: TransportCode::TcpForward,
            mss: t.mss,
            total,
            reliable: true,
            rcv_buf: u64::MAX,
        },
        // Registered transports, and built-ins without messages in the wire format.
        other => {
            return Err(format!(
                "the UDP driver's wire format has no messages for transport '{}'",
                other.name()
            ))
        }
    })
}

/// Whether the flow's symbols carry their real coded bytes (`payload = true`).
pub fn carries_symbol_bytes(t: &TransportSpec) -> bool {
    match t {
        TransportSpec::TcpNc(t) => t.coding.payload,
        TransportSpec::Forward(t) => t.coding.payload,
        _ => false,
    }
}

/// Both ends of flow `f` for connection `conn`; each side keeps its own. Random streams
/// are seeded from the connection id, so both sides build identical ends.
pub fn build(f: &FlowSpec, conn: u64) -> Result<(FlowShape, FlowEndpoints), String> {
    let shape = shape(f)?;
    let ctx = FlowContext {
        flow: 0,
        bytes: f.bytes,
        source_rng: Rng::named(conn, "udp.source"),
        sink_rng: Rng::named(conn, "udp.sink"),
        // Each process moves a payload-carrying coded flow's symbol bytes between its
        // own end's store and the wire (`FlowEndpoints::payload`: none for other flows).
        payload: if carries_symbol_bytes(&f.transport) {
            PayloadPorts::separate()
        } else {
            PayloadPorts::default()
        },
    };
    let ends = f.transport.build(ctx)?;
    Ok((shape, ends))
}
