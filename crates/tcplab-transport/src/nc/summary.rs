//! TCP/NC's columns of the flows table, as typed structs (the source's follow its TCP
//! sender's [`TcpSummary`](crate::TcpSummary)).

use crate::coded::coded_columns::*;
use crate::coded::DecodeStats;
use crate::tcp::ACKS_SENT;
use tcplab_core::{ColumnDef, Metrics};

/// What a TCP/NC source reports at the end of a flow, after its TCP sender's columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NcSourceSummary {
    pub payload_mode: bool,
    pub symbols_sent: u64,
    pub coded_segments: u64,
    pub segments_handed_down: u64,
    /// Configured symbols per segment.
    pub redundancy: f64,
    /// Symbols sent per coded segment (`None` before any).
    pub redundancy_measured: Option<f64>,
    pub coding_window: u64,
    pub encode_busy_s: f64,
}

impl NcSourceSummary {
    pub const SEGMENTS_HANDED_DOWN: ColumnDef = ColumnDef::new(
        "segments_handed_down",
        "segments",
        "tcp-nc: segments TCP handed to the coding layer (retransmissions included)",
    )
    .at_least(0.0);

    /// The columns [`NcSourceSummary::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 9] = [
        CODING,
        PAYLOAD_MODE,
        SYMBOLS_SENT,
        CODED_SEGMENTS,
        Self::SEGMENTS_HANDED_DOWN,
        REDUNDANCY,
        REDUNDANCY_MEASURED,
        CODING_WINDOW,
        ENCODE_BUSY,
    ];

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&CODING, "rlnc".into());
        out.put(&PAYLOAD_MODE, self.payload_mode.into());
        out.put(&SYMBOLS_SENT, self.symbols_sent.into());
        out.put(&CODED_SEGMENTS, self.coded_segments.into());
        out.put(
            &Self::SEGMENTS_HANDED_DOWN,
            self.segments_handed_down.into(),
        );
        out.put(&REDUNDANCY, self.redundancy.into());
        out.put(&REDUNDANCY_MEASURED, self.redundancy_measured.into());
        out.put(&CODING_WINDOW, self.coding_window.into());
        out.put(&ENCODE_BUSY, self.encode_busy_s.into());
    }
}

/// What a TCP/NC sink reports at the end of a flow.
#[derive(Clone, Debug)]
pub struct NcSinkSummary<'a> {
    pub acks_sent: u64,
    pub symbols_received: u64,
    pub innovative_symbols: u64,
    pub decode: &'a DecodeStats,
    pub decode_busy_s: f64,
}

impl NcSinkSummary<'_> {
    pub const INNOVATIVE_SYMBOLS: ColumnDef = ColumnDef::new(
        "innovative_symbols",
        "symbols",
        "tcp-nc: received combinations that raised the rank",
    )
    .at_least(0.0);

    /// Every column [`NcSinkSummary::publish`] writes, in its order.
    pub fn columns() -> impl Iterator<Item = ColumnDef> {
        [
            ACKS_SENT,
            SYMBOLS_RECEIVED,
            Self::INNOVATIVE_SYMBOLS,
            REDUNDANT_SYMBOLS,
        ]
        .into_iter()
        .chain(DecodeStats::COLUMNS)
        .chain([DECODE_BUSY])
    }

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&ACKS_SENT, self.acks_sent.into());
        out.put(&SYMBOLS_RECEIVED, self.symbols_received.into());
        out.put(&Self::INNOVATIVE_SYMBOLS, self.innovative_symbols.into());
        out.put(
            &REDUNDANT_SYMBOLS,
            (self.symbols_received - self.innovative_symbols).into(),
        );
        self.decode.publish(out);
        out.put(&DECODE_BUSY, self.decode_busy_s.into());
    }
}
