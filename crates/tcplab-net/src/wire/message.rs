//! The messages of wire format v1.

use tcplab_core::Time;
use tcplab_transport::coded::wire as coded_wire;
use tcplab_transport::coded::{Code, CodedAck, CodedPacket, Symbol};
use tcplab_transport::datagram::wire as datagram_wire;
use tcplab_transport::datagram::Datagram;
use tcplab_transport::tack::wire as tack_wire;
use tcplab_transport::tack::{TackAck, TackData, TackPacket};
use tcplab_transport::tcp::wire as tcp_wire;
use tcplab_transport::{Packet, SackBlock, Segment, Timestamps as TcpTimestamps, MAX_SACK_BLOCKS};

pub use tcplab_transport::tcp::wire::MAX_SACK;

/// Type codes (the byte at offset 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MessageType {
    Hello = 1,
    HelloAck = 2,
    Data = tcp_wire::DATA_TYPE,
    Ack = tcp_wire::ACK_TYPE,
    Close = 5,
    CloseAck = 6,
    Reset = 7,
    /// An unreliable datagram (`transport = "datagram"`).
    Datagram = datagram_wire::DATAGRAM_TYPE,
    /// A coded symbol (TCP/NC's RLNC, TCP-Forward's LT).
    Symbol = coded_wire::SYMBOL_TYPE,
    /// TACK data.
    TackData = tack_wire::DATA_TYPE,
    /// A TACK or IACK.
    TackAck = tack_wire::ACK_TYPE,
    /// TCP-Forward's acknowledgement of a decoded segment.
    CodedAck = coded_wire::ACK_TYPE,
}

impl MessageType {
    pub fn from_u8(b: u8) -> Option<MessageType> {
        Some(match b {
            1 => MessageType::Hello,
            2 => MessageType::HelloAck,
            tcp_wire::DATA_TYPE => MessageType::Data,
            tcp_wire::ACK_TYPE => MessageType::Ack,
            5 => MessageType::Close,
            6 => MessageType::CloseAck,
            7 => MessageType::Reset,
            datagram_wire::DATAGRAM_TYPE => MessageType::Datagram,
            coded_wire::SYMBOL_TYPE => MessageType::Symbol,
            tack_wire::DATA_TYPE => MessageType::TackData,
            tack_wire::ACK_TYPE => MessageType::TackAck,
            coded_wire::ACK_TYPE => MessageType::CodedAck,
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

/// One decoded datagram. `Data` borrows its payload from the datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    Data {
        conn: u64,
        seq: u64,
        fin: bool,
        retransmission: bool,
        ts: Option<Timestamps>,
        /// The endpoint's RFC 7323 option (option kind 3), when it uses timestamps.
        tcp_ts: Option<TcpTimestamps>,
        payload: &'a [u8],
    },
    Ack {
        conn: u64,
        ack: u64,
        wnd: u64,
        sack: [SackBlock; MAX_SACK],
        n_sack: u8,
        ts: Option<Timestamps>,
        tcp_ts: Option<TcpTimestamps>,
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
    /// Source → sink: datagram `seq`, sent at `sent_at_ns` (the sender's CLOCK_REALTIME).
    Datagram {
        conn: u64,
        seq: u64,
        sent_at_ns: u64,
        payload: &'a [u8],
    },
    /// Source → sink: one coded symbol's header and its bytes.
    Symbol {
        conn: u64,
        code: Code,
        repair: bool,
        start: u32,
        span: u32,
        seed: u32,
        base: u32,
        /// The newest segment that has entered the sender's coding layer, and when
        /// (`entered_ns`, the sender's CLOCK_REALTIME): for the end-to-end latency.
        newest: u32,
        entered_ns: u64,
        payload: &'a [u8],
    },
    /// TACK data; `sent_at_ns` is the sender's CLOCK_REALTIME.
    TackData {
        conn: u64,
        seq: u64,
        pn: u64,
        pn_floor: u64,
        sent_at_ns: u64,
        rtt_min_ns: u64,
        fin: bool,
        retransmission: bool,
        payload: &'a [u8],
    },
    /// A TACK or IACK (the endpoint's fields, `flow` aside).
    TackAck {
        conn: u64,
        ack: TackAck,
        ts: Option<Timestamps>,
    },
    /// TCP-Forward's ACK.
    CodedAck {
        conn: u64,
        index: u32,
        cum: u32,
        echo: u32,
        ts: Option<Timestamps>,
    },
}

/// The transport a HELLO opens (byte 4 of its fixed part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TransportCode {
    Tcp = 0,
    Datagram = 1,
    Tack = 2,
    TcpNc = 3,
    TcpForward = 4,
}

impl TransportCode {
    pub fn from_u8(b: u8) -> Option<TransportCode> {
        Some(match b {
            0 => TransportCode::Tcp,
            1 => TransportCode::Datagram,
            2 => TransportCode::Tack,
            3 => TransportCode::TcpNc,
            4 => TransportCode::TcpForward,
            _ => return None,
        })
    }

    /// The scenario name (`transport = "..."`).
    pub fn name(self) -> &'static str {
        match self {
            TransportCode::Tcp => "tcp",
            TransportCode::Datagram => "datagram",
            TransportCode::Tack => "tack",
            TransportCode::TcpNc => "tcp-nc",
            TransportCode::TcpForward => "tcp-forward",
        }
    }

    pub fn from_name(name: &str) -> Option<TransportCode> {
        [
            TransportCode::Tcp,
            TransportCode::Datagram,
            TransportCode::Tack,
            TransportCode::TcpNc,
            TransportCode::TcpForward,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

impl<'a> Message<'a> {
    pub fn conn(&self) -> u64 {
        match *self {
            Message::Hello { conn, .. }
            | Message::HelloAck { conn, .. }
            | Message::Data { conn, .. }
            | Message::Ack { conn, .. }
            | Message::Close { conn, .. }
            | Message::CloseAck { conn, .. }
            | Message::Reset { conn, .. }
            | Message::Datagram { conn, .. }
            | Message::Symbol { conn, .. }
            | Message::TackData { conn, .. }
            | Message::TackAck { conn, .. }
            | Message::CodedAck { conn, .. } => conn,
        }
    }

    pub fn kind(&self) -> MessageType {
        match self {
            Message::Hello { .. } => MessageType::Hello,
            Message::HelloAck { .. } => MessageType::HelloAck,
            Message::Data { .. } => MessageType::Data,
            Message::Ack { .. } => MessageType::Ack,
            Message::Close { .. } => MessageType::Close,
            Message::CloseAck { .. } => MessageType::CloseAck,
            Message::Reset { .. } => MessageType::Reset,
            Message::Datagram { .. } => MessageType::Datagram,
            Message::Symbol { .. } => MessageType::Symbol,
            Message::TackData { .. } => MessageType::TackData,
            Message::TackAck { .. } => MessageType::TackAck,
            Message::CodedAck { .. } => MessageType::CodedAck,
        }
    }

    /// The endpoint's view of a data message or an ACK (other kinds: `None`).
    pub fn to_segment(&self, flow: u32) -> Option<Segment> {
        match *self {
            Message::Data {
                seq,
                fin,
                retransmission,
                tcp_ts,
                payload,
                ..
            } => Some(Segment {
                flow,
                seq,
                len: payload.len() as u32,
                fin,
                retransmission,
                ts: tcp_ts,
                ..Segment::default()
            }),
            Message::Ack {
                ack,
                wnd,
                sack,
                n_sack,
                tcp_ts,
                ..
            } => {
                let n = (n_sack as usize).min(MAX_SACK_BLOCKS);
                let mut s = Segment {
                    flow,
                    ack,
                    wnd,
                    n_sack: n as u8,
                    ts: tcp_ts,
                    ..Segment::default()
                };
                s.sack[..n].copy_from_slice(&sack[..n]);
                Some(s)
            }
            _ => None,
        }
    }

    /// An ACK message carrying `seg`'s acknowledgement fields (and its RFC 7323 option).
    pub fn ack_of(conn: u64, seg: &Segment, ts: Option<Timestamps>) -> Message<'static> {
        let mut sack = [SackBlock::default(); MAX_SACK];
        let n = seg.n_sack as usize;
        sack[..n].copy_from_slice(seg.sack_blocks());
        Message::Ack {
            conn,
            ack: seg.ack,
            wnd: seg.wnd,
            sack,
            n_sack: seg.n_sack,
            ts,
            tcp_ts: seg.ts,
        }
    }

    /// The endpoint's packet for any data or acknowledgement message (`None` for the
    /// connection's control messages). Send times stay in the sender's clock
    /// (`Time(sent_at_ns)`): the session maps them onto its own.
    pub fn to_packet(&self, flow: u32) -> Option<Packet> {
        Some(match *self {
            Message::Data { .. } | Message::Ack { .. } => Packet::Tcp(self.to_segment(flow)?),
            Message::Datagram {
                seq,
                sent_at_ns,
                payload,
                ..
            } => Packet::Datagram(Datagram {
                seq,
                sent_at: Time(sent_at_ns),
                len: payload.len() as u32,
            }),
            Message::Symbol {
                code,
                repair,
                start,
                span,
                seed,
                base,
                newest,
                entered_ns,
                payload,
                ..
            } => Packet::Coded(CodedPacket::Symbol(Symbol {
                flow,
                code,
                start,
                span,
                seed,
                base,
                payload: payload.len() as u32,
                repair,
                newest,
                entered: Time(entered_ns),
            })),
            Message::TackData {
                seq,
                pn,
                pn_floor,
                sent_at_ns,
                rtt_min_ns,
                fin,
                retransmission,
                payload,
                ..
            } => Packet::Tack(TackPacket::Data(TackData {
                flow,
                len: payload.len() as u32,
                seq,
                pn,
                pn_floor,
                sent_at: Time(sent_at_ns),
                rtt_min_ns,
                fin,
                retransmission,
            })),
            Message::TackAck { ack, .. } => Packet::Tack(TackPacket::Ack(TackAck { flow, ..ack })),
            Message::CodedAck {
                index, cum, echo, ..
            } => Packet::Coded(CodedPacket::Ack(CodedAck {
                flow,
                index,
                cum,
                echo,
            })),
            _ => return None,
        })
    }

    /// The message for an endpoint's acknowledgement packet (`None` for data packets,
    /// which carry payload bytes the session writes in place).
    pub fn ack_of_packet(
        conn: u64,
        pkt: &Packet,
        ts: Option<Timestamps>,
    ) -> Option<Message<'static>> {
        Some(match pkt {
            Packet::Tcp(seg) if seg.len == 0 && !seg.fin => Message::ack_of(conn, seg, ts),
            Packet::Tack(TackPacket::Ack(a)) => Message::TackAck {
                conn,
                ack: TackAck { flow: 0, ..*a },
                ts,
            },
            Packet::Coded(CodedPacket::Ack(a)) => Message::CodedAck {
                conn,
                index: a.index,
                cum: a.cum,
                echo: a.echo,
                ts,
            },
            _ => return None,
        })
    }
}
