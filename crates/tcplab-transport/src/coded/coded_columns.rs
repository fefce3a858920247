//! The flows-table columns both coded transports publish (TCP/NC's and TCP-Forward's
//! summaries name these consts), declared once.

use tcplab_core::ColumnDef;

pub const CODING: ColumnDef = ColumnDef::new(
    "coding",
    "",
    "the code: `rlnc` (tcp-nc) or `lt` (tcp-forward)",
);
pub const PAYLOAD_MODE: ColumnDef = ColumnDef::new(
    "payload_mode",
    "",
    "real bytes were coded and checked (`coding.payload`)",
);
pub const SYMBOLS_SENT: ColumnDef =
    ColumnDef::new("symbols_sent", "symbols", "coded packets the source sent").at_least(0.0);
pub const CODED_SEGMENTS: ColumnDef = ColumnDef::new(
    "coded_segments",
    "segments",
    "segments that entered the coding buffer",
)
.at_least(0.0);
pub const REDUNDANCY: ColumnDef = ColumnDef::new(
    "redundancy",
    "",
    "R: the configured (tcp-nc) or final adaptive (tcp-forward) redundancy",
)
.at_least(1.0);
pub const REDUNDANCY_MEASURED: ColumnDef =
    ColumnDef::new("redundancy_measured", "", "symbols sent per segment coded").at_least(0.0);
pub const CODING_WINDOW: ColumnDef = ColumnDef::new(
    "coding_window",
    "segments",
    "coding window limit (tcp-nc 0: unbounded)",
)
.at_least(0.0);
pub const ENCODE_BUSY: ColumnDef = ColumnDef::new(
    "encode_busy_s",
    "s",
    "CPU time the source spent encoding (cost model)",
)
.at_least(0.0);
pub const SYMBOLS_RECEIVED: ColumnDef = ColumnDef::new(
    "symbols_received",
    "symbols",
    "coded packets that reached the sink",
)
.at_least(0.0);
pub const REDUNDANT_SYMBOLS: ColumnDef = ColumnDef::new(
    "redundant_symbols",
    "symbols",
    "received symbols that taught nothing new",
)
.at_least(0.0);
pub const DECODE_BUSY: ColumnDef = ColumnDef::new(
    "decode_busy_s",
    "s",
    "CPU time the sink spent decoding (cost model)",
)
.at_least(0.0);
