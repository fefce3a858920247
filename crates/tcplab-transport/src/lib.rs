//! Sans-IO TCP-style transport endpoints.
//!
//! [`Sender`] and [`Receiver`] are pure state machines in the style of quinn-proto:
//! inputs arrive through `handle_segment` / `handle_timeout`, outputs leave through
//! `poll_transmit`, and `poll_timeout` says when the endpoint next wants to be woken.
//! They own no clock and do no I/O, so the simulator and a real-network driver run the
//! same code. Congestion control is pluggable through [`cc::CongestionControl`].

pub mod cc;
mod config;
mod error;
mod rack;
mod rate;
mod receiver;
mod records;
mod rtt;
mod scoreboard;
mod segment;
mod sender;
mod stats;

pub use config::{
    AckPolicy, LossDetection, PartialAckTimer, ReceiverConfig, RecoveryMode, SenderConfig,
};
pub use error::Violation;
pub use rate::RateSample;
pub use receiver::Receiver;
pub use rtt::RttEstimator;
pub use segment::{SackBlock, Segment, ACK_HEADER_BYTES, DATA_HEADER_BYTES, MAX_SACK_BLOCKS};
pub use sender::{Sender, SenderSnapshot};
pub use stats::{ReceiverStats, SenderStats};
