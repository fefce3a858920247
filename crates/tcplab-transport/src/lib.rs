//! Sans-IO TCP-style transport endpoints.
//!
//! [`Sender`] and [`Receiver`] are pure state machines in the style of quinn-proto:
//! inputs arrive through `handle_segment` / `handle_timeout`, outputs leave through
//! `poll_transmit`, and `poll_timeout` says when the endpoint next wants to be woken.
//! They own no clock and do no I/O, so the simulator and a real-network driver run the
//! same code. Congestion control is pluggable through [`cc::CongestionControl`].
//!
//! The parts a sender that is not TCP (coded transports, TACK) can reuse without TCP's
//! loss recovery: [`RttEstimator`], [`RateSampler`] over [`Records`], the [`cc`]
//! controllers, [`pacing::Pacer`] and [`timer_rounds::TimerRounds`].

#[macro_use]
mod builtin;
pub mod cc;
pub mod codec;
pub mod coded;
pub mod datagram;
mod endpoint;
mod error;
mod flow_context;
pub mod flow_keys;
pub mod forward;
pub mod nc;
mod opaque;
pub mod opaque_wire;
pub mod pacing;
mod packet;
mod packet_kind;
mod param_error;
pub mod pcap;
mod ranges;
mod rate;
mod records;
mod registration;
mod retransmissions;
mod rtt;
mod rx_coalescing;
pub mod series_columns;
pub mod stopwait;
pub mod tack;
pub mod tcp;
pub mod timer_rounds;
pub mod transport;
mod transport_kind;
mod wire_flow;
mod wire_packet;

pub use endpoint::{Endpoint, Progress};
pub use error::Violation;
pub use flow_context::FlowContext;
pub use flow_keys::FlowKeys;
pub use opaque::Opaque;
pub use pacing::{Bursts, Pacer};
pub use packet::Packet;
pub use packet_kind::PacketKind;
pub use param_error::ParamError;
pub use ranges::Ranges;
pub use rate::{RateSample, RateSampler};
pub use records::{FarTable, Records, SendTimes, SentRecord};
pub use retransmissions::Retransmissions;
pub use rtt::{RtoRule, RttEstimator};
pub use rx_coalescing::RxCoalescing;
pub use tcp::{
    AckPolicy, AckedBasis, EcnEcho, IpEcn, LossDetection, PartialAckTimer, Receiver,
    ReceiverConfig, ReceiverStats, RecoveryCwnd, RecoveryMode, SackBlock, Segment, Sender,
    SenderConfig, SenderSnapshot, SenderStats, SsthreshBasis, TcpSpec, TcpSummary, Timestamps,
    WindowBasis, ACK_HEADER_BYTES, DATA_HEADER_BYTES, DEFAULT_RCV_BUF, DEFAULT_SND_BUF,
    MAX_SACK_BLOCKS, TS_OPTION_BYTES,
};
pub use transport::{AnyEndpoint, FlowEndpoints, TransportSpec};
pub use transport_kind::Transport;
pub use wire_flow::{any_packet, Resize, WireFlow, WireTransport};
pub use wire_packet::{
    WireClaim, WirePacket, COMMON_HEADER, FLAG_CWR, FLAG_ECE, FLAG_FIN, FLAG_REPAIR, FLAG_RETX,
    IP_UDP, PACKET_TYPES, TIMESTAMP_OPTION,
};
