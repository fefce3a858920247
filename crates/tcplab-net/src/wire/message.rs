//! The messages of wire format v1: the driver's own (HELLO, HELLO_ACK, CLOSE, CLOSE_ACK,
//! RESET) and a transport's packet, whose type byte, fixed part and options its header
//! lays out (`tcplab_transport::WirePacket`, in the transport's folder).

use tcplab_transport::opaque_wire::REGISTERED_CODE;
use tcplab_transport::transport::WIRE_CODES;
use tcplab_transport::{Packet, TransportSpec};

/// The driver's own type codes (the byte at offset 3); a transport's packets use the
/// codes their header declares (`WirePacket::TYPES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MessageType {
    Hello = 1,
    HelloAck = 2,
    Close = 5,
    CloseAck = 6,
    Reset = 7,
}

impl MessageType {
    pub fn from_u8(b: u8) -> Option<MessageType> {
        Some(match b {
            1 => MessageType::Hello,
            2 => MessageType::HelloAck,
            5 => MessageType::Close,
            6 => MessageType::CloseAck,
            7 => MessageType::Reset,
            _ => return None,
        })
    }
}

/// The timestamp option (RFC 7323's TSval/TSecr, in nanoseconds of the sender's clock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    pub val: u64,
    pub ecr: u64,
}

/// One decoded datagram. A packet's payload borrows from the datagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Message<'a> {
    /// Sender → receiver: open connection `conn` with this MSS and byte count.
    Hello {
        conn: u64,
        mss: u32,
        /// `None`: until the sender closes.
        total: Option<u64>,
        /// Which transport the flow runs ([`TransportCode`]).
        transport: TransportCode,
        /// The flow's `[[flow]]` table as TOML text (may be empty for TCP): the receiver
        /// builds its end of the flow from it.
        flow: &'a [u8],
    },
    /// Receiver → sender: accepted; the receive buffer it will advertise and, with a
    /// pre-shared key, the session nonce every later datagram's MAC covers (option 4).
    HelloAck {
        conn: u64,
        mss: u32,
        rcv_buf: u64,
        nonce: Option<u64>,
    },
    /// Sender → receiver: the transfer ends at byte `end` (all of it acknowledged), or,
    /// `interrupted`, the sender was stopped (Ctrl-C) after writing `end` bytes.
    Close {
        conn: u64,
        end: u64,
        interrupted: bool,
    },
    /// Receiver → sender: what it delivered, and its counters.
    CloseAck {
        conn: u64,
        delivered: u64,
        acks_sent: u64,
        segments_received: u64,
        duplicate_segments: u64,
    },
    /// Either side: the connection is refused or aborted (reason code).
    Reset { conn: u64, reason: u8 },
    /// Either side: an endpoint's packet (data or acknowledgement, any transport), the
    /// driver's timestamps (on packets whose header carries them) and its payload bytes.
    /// Send times in `pkt` are in the sender's real-time clock (each session maps them).
    /// Encoded with an empty payload it gives the header alone: the caller then writes
    /// the payload bytes right after it (no copy).
    Packet {
        conn: u64,
        pkt: Packet,
        ts: Option<Timestamps>,
        payload: &'a [u8],
    },
}

/// The transport a HELLO opens (byte 4 of its fixed part): a built-in transport's
/// `WireTransport::WIRE_CODE`, or [`TransportCode::REGISTERED`]: a transport registered
/// at run time, which the HELLO's flow table names (`transport = "..."`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportCode(u8);

impl TransportCode {
    /// TCP, the transport of a HELLO without a flow table (`tcplab recv`'s own settings).
    pub const TCP: TransportCode = TransportCode(0);
    /// A transport registered at run time (`tcplab_transport::transport::register`),
    /// named by the HELLO's flow table; its packets travel as OPAQUE.
    pub const REGISTERED: TransportCode = TransportCode(REGISTERED_CODE);

    /// The code of a transport the driver carries: a built-in's, or
    /// [`TransportCode::REGISTERED`].
    pub fn from_u8(b: u8) -> Option<TransportCode> {
        (b == REGISTERED_CODE || WIRE_CODES.iter().any(|(c, _)| *c == Some(b)))
            .then_some(TransportCode(b))
    }

    /// The byte on the wire.
    pub fn code(self) -> u8 {
        self.0
    }

    /// The scenario name (`transport = "..."`) of a built-in; `"registered"` for a
    /// registered transport (its flow table has its name).
    pub fn name(self) -> &'static str {
        if self == TransportCode::REGISTERED {
            return "registered";
        }
        WIRE_CODES
            .iter()
            .find(|(c, _)| *c == Some(self.0))
            .map_or("?", |(_, n)| n)
    }

    pub fn from_name(name: &str) -> Option<TransportCode> {
        WIRE_CODES
            .iter()
            .find(|(_, n)| *n == name)
            .and_then(|(c, _)| c.map(TransportCode))
    }

    /// The code of `spec`'s transport, if the driver carries it.
    pub fn of(spec: &TransportSpec) -> Option<TransportCode> {
        spec.wire_code().map(TransportCode)
    }
}

impl<'a> Message<'a> {
    pub fn conn(&self) -> u64 {
        match *self {
            Message::Hello { conn, .. }
            | Message::HelloAck { conn, .. }
            | Message::Close { conn, .. }
            | Message::CloseAck { conn, .. }
            | Message::Reset { conn, .. }
            | Message::Packet { conn, .. } => conn,
        }
    }
}
