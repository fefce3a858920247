//! TCP: a byte-stream sender and receiver with RFC loss recovery.
//!
//! The sender owns segmentation, the retransmission timer, loss detection and recovery;
//! the receiver owns reassembly and acknowledgement. Congestion control, RTT estimation,
//! delivery-rate sampling, pacing and send-timer rounds are the crate's transport-neutral
//! parts. `sender.rs` lists how the sender is divided.

mod ack_intake;
mod config;
mod ecn;
mod ecn_state;
mod endpoint;
mod handshake;
mod keys;
mod loss_recovery;
pub mod pcap;
mod prr;
mod rack;
mod receiver;
mod recovery;
mod reno;
mod rto;
mod sack;
mod sack_recency;
mod scoreboard;
mod segment;
mod send_state;
mod sender;
pub mod stack;
mod stats;
mod summary;
mod timer_wheel;
mod timestamps;
mod transmit;
mod transport;
mod undo;
mod window_cut;
pub mod wire;

/// The 64-byte cache line a field at byte `off` of `size` bytes lies in; fails if it
/// straddles two (the layout tests of the sender and receiver pin their hot lines).
#[cfg(test)]
fn cache_line(off: usize, size: usize) -> usize {
    assert_eq!(off / 64, (off + size - 1) / 64, "field straddles a line");
    off / 64
}

pub use config::{
    AckPolicy, AckedBasis, EcnEcho, LossDetection, PartialAckTimer, ReceiverConfig, RecoveryCwnd,
    RecoveryMode, SenderConfig, SsthreshBasis, WindowBasis, DEFAULT_RCV_BUF, DEFAULT_SND_BUF,
};
pub use endpoint::TcpSpec;
pub(crate) use keys::tcp_spec;
pub use receiver::Receiver;
pub use segment::{
    IpEcn, SackBlock, Segment, Timestamps, ACK_HEADER_BYTES, DATA_HEADER_BYTES, MAX_SACK_BLOCKS,
    TS_OPTION_BYTES,
};
pub use sender::{Sender, SenderSnapshot};
pub use stats::{ReceiverStats, SenderStats};
pub use summary::{TcpSummary, ACKS_SENT, CE_RECEIVED, RECEIVER_COLUMNS};
pub use transport::TcpTransport;
