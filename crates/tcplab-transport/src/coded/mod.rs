//! Coded transports of seed 004: TCP/NC (random linear network coding under TCP, with
//! "seen" acknowledgements; Sundararajan et al., Proc. IEEE 2011) and TCP-Forward (LT
//! codes under Vegas; Chi & Agrawal).
//!
//! Packets carry a symbol's description (code, window, seed), never its bytes; decoders
//! track rank (RLNC, `seen.rs`) or peeling (LT, `tcplab-coding` on one-byte symbols) from
//! the descriptions exactly, so a segment counts as delivered exactly when a real decoder
//! would have it. `payload = true` also runs `tcplab-coding` on real bytes and checks both
//! agree on every symbol and every byte; the bytes travel through a store the driver
//! owns (`symbol_bytes.rs`), so the two ends share nothing. Coding takes CPU time (`cost.rs`). See
//! docs/coded-transports.md.

mod app_bytes;
mod coded_columns;
mod cost;
mod decode_stats;
mod diff;
mod entry;
mod forward_sink;
mod forward_source;
mod forward_summary;
mod forward_transport;
mod nc_sink;
mod nc_source;
mod nc_summary;
mod nc_transport;
mod packet;
mod params;
mod pcap;
mod ready_queue;
mod redundancy;
mod seen;
mod spec;
mod symbol_bytes;
pub mod wire;

pub use app_bytes::segment_bytes;
pub use cost::{CostModel, Cpu};
pub use decode_stats::DecodeStats;
pub use diff::DiffDetector;
pub use entry::EntryLog;
pub use forward_sink::ForwardSink;
pub use forward_source::ForwardSource;
pub use forward_summary::{ForwardSinkSummary, ForwardSourceSummary};
pub use forward_transport::ForwardTransport;
pub use nc_sink::NcSink;
pub use nc_source::NcSource;
pub use nc_summary::{NcSinkSummary, NcSourceSummary};
pub use nc_transport::NcTransport;
pub use packet::{
    Code, CodedAck, CodedPacket, Symbol, FORWARD_ACK_BYTES, FORWARD_HEADER_BYTES,
    FORWARD_IP_UDP_BYTES, NC_FRAMING_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES,
};
pub use params::{ForwardParams, NcParams};
pub use redundancy::Redundancy;
pub use seen::{Receipt, SeenTracker};
pub use spec::{ForwardSpec, NcSpec};
pub use symbol_bytes::{PayloadPorts, SymbolBytes};
