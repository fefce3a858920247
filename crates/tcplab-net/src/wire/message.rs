//! The messages of wire format v1.

use tcplab_transport::{SackBlock, Segment, Timestamps as TcpTimestamps, MAX_SACK_BLOCKS};

/// SACK blocks one ACK may carry (RFC 2018's four; the endpoints send up to
/// `tcplab_transport::MAX_SACK_BLOCKS`).
pub const MAX_SACK: usize = 4;
const _: () = assert!(MAX_SACK_BLOCKS <= MAX_SACK);

/// Type codes (the byte at offset 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MessageType {
    Hello = 1,
    HelloAck = 2,
    Data = 3,
    Ack = 4,
    Close = 5,
    CloseAck = 6,
    Reset = 7,
}

impl MessageType {
    pub fn from_u8(b: u8) -> Option<MessageType> {
        Some(match b {
            1 => MessageType::Hello,
            2 => MessageType::HelloAck,
            3 => MessageType::Data,
            4 => MessageType::Ack,
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

/// One decoded datagram. `Data` borrows its payload from the datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message<'a> {
    /// Sender → receiver: open connection `conn` with this MSS and byte count.
    Hello {
        conn: u64,
        mss: u32,
        /// `None`: until the sender closes.
        total: Option<u64>,
    },
    /// Receiver → sender: accepted; the receive buffer it will advertise.
    HelloAck { conn: u64, mss: u32, rcv_buf: u64 },
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
    /// Sender → receiver: the transfer ends at byte `end` (all of it acknowledged).
    Close { conn: u64, end: u64 },
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
            | Message::Reset { conn, .. } => conn,
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
}
