//! TCP: a byte-stream sender and receiver with RFC loss recovery.
//!
//! The sender owns segmentation, the retransmission timer, loss detection and recovery,
//! and pacing; the receiver owns reassembly and acknowledgement. Congestion control is
//! the crate's shared [`crate::cc`] interface.

mod config;
mod endpoint;
mod rack;
mod receiver;
mod scoreboard;
mod segment;
mod sender;
mod stats;

pub use config::{
    AckPolicy, LossDetection, PartialAckTimer, ReceiverConfig, RecoveryMode, SenderConfig,
};
pub use endpoint::TcpSpec;
pub use receiver::Receiver;
pub use segment::{SackBlock, Segment, ACK_HEADER_BYTES, DATA_HEADER_BYTES, MAX_SACK_BLOCKS};
pub use sender::{Sender, SenderSnapshot};
pub use stats::{ReceiverStats, SenderStats};
