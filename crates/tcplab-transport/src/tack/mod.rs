//! TACK ("Tame ACK", Li et al., SIGCOMM 2020): acknowledgements at a controlled
//! frequency, f = min(bw / (L·MSS), β / RTT_min), instant ACKs on events, and the
//! receiver-based loss detection, round-trip timing and rate estimation that make so few
//! ACKs enough. See docs/tack.md.
//!
//! - [`TackReceiver`] (the sink): reassembly, TACK timing ([`TackClock`]), IACKs, the
//!   min-OWD packet ([`OwdTracker`]) and the delivery rate each TACK carries;
//! - [`TackSender`] (the source): per-transmission packet numbers, retransmission of
//!   reported losses at most once per RTT, RTT_min from one-way delays, pacing, and any
//!   congestion controller (BBR by default: TCP-TACK);
//! - [`TackPacket`]: data and ACK headers.

mod blocked;
mod config;
mod endpoint;
mod frequency;
mod keys;
mod ledger;
mod owd;
mod packet;
mod pcap;
mod receiver;
mod sender;
mod summary;
mod transport;
pub mod wire;

pub use blocked::{blocked_bin, BlockedLog, BLOCKED_BINS};
pub use config::{LossResponse, TackConfig, TackSpec};
pub use frequency::TackClock;
pub use owd::{MinFilter, OwdTracker};
pub use packet::{
    AckKind, Gap, TackAck, TackData, TackPacket, MAX_GAPS, TACK_ACK_BASE_BYTES, TACK_BYTES_PER_GAP,
    TACK_DATA_HEADER_BYTES,
};
pub use receiver::{TackReceiver, TackReceiverStats};
pub use sender::{TackSender, TackSenderStats};
pub use summary::{TackReceiverSummary, TackSenderSummary};
pub use transport::TackTransport;
