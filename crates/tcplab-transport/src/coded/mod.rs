//! What the coded transports of seed 004 share: TCP/NC (`nc/`: random linear network
//! coding under TCP, with "seen" acknowledgements; Sundararajan et al., Proc. IEEE 2011)
//! and TCP-Forward (`forward/`: LT codes under Vegas; Chi & Agrawal). Their packet
//! (`packet.rs`, with its capture header and wire layout), the application's bytes, the
//! payload stores, the decoders' CPU cost, decode statistics, the entry-time log and the
//! sink's record of both, the sink's columns of the flows table, the ready queue and the flow keys and coding parameters both read.
//!
//! Packets carry a symbol's description (code, window, seed), never its bytes; decoders
//! track rank (RLNC, `nc/seen.rs`) or peeling (LT, `tcplab-coding` on one-byte symbols) from
//! the descriptions exactly, so a segment counts as delivered exactly when a real decoder
//! would have it. `payload = true` also runs `tcplab-coding` on real bytes and checks both
//! agree on every symbol and every byte; the bytes travel through a store the driver
//! owns (`symbol_bytes.rs`), so the two ends share nothing. Coding takes CPU time (`cost.rs`). See
//! docs/coded-transports.md.

pub(crate) mod app_bytes;
pub(crate) mod coded_columns;
pub(crate) mod cost;
pub(crate) mod decode_record;
pub(crate) mod decode_stats;
pub(crate) mod entry;
pub(crate) mod keys;
pub(crate) mod packet;
pub(crate) mod params;
mod pcap;
pub(crate) mod ports;
pub(crate) mod ready_queue;
pub(crate) mod sink_summary;
pub(crate) mod symbol_bytes;
pub mod wire;

pub use app_bytes::segment_bytes;
pub use cost::{CostModel, Cpu};
pub use decode_record::DecodeRecord;
pub use decode_stats::DecodeStats;
pub use entry::EntryLog;
pub use packet::{
    Code, CodedAck, CodedPacket, Symbol, FORWARD_ACK_BYTES, FORWARD_HEADER_BYTES,
    FORWARD_IP_UDP_BYTES, NC_FRAMING_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES,
};
pub use sink_summary::CodedSinkSummary;
pub use symbol_bytes::{PayloadPorts, SymbolBytes};
