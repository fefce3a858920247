//! TCP-Forward's source's columns of the flows table, as a typed struct (the sink's are
//! [`CodedSinkSummary`](crate::coded::CodedSinkSummary)).

use crate::coded::coded_columns::*;
use crate::tcp::TcpSummary;
use tcplab_core::{ColumnDef, Metrics};

/// What a TCP-Forward source reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForwardSourceSummary {
    pub payload_mode: bool,
    pub symbols_sent: u64,
    pub repair_symbols: u64,
    pub coded_segments: u64,
    /// Symbols sent per coded segment (`None` before any).
    pub redundancy_measured: Option<f64>,
    /// The adaptive redundancy at the end.
    pub redundancy: f64,
    pub n_segments: u64,
    pub n_timeout: u64,
    pub timeout_events: u64,
    pub coding_window: u64,
    pub min_elapsed_s: Option<f64>,
    pub encode_busy_s: f64,
    pub rtt_min_s: Option<f64>,
}

impl ForwardSourceSummary {
    pub const REPAIR_SYMBOLS: ColumnDef = ColumnDef::new(
        "repair_symbols",
        "symbols",
        "tcp-forward: symbols sent on a Diff_p timeout",
    )
    .at_least(0.0);
    pub const N_SEGMENTS: ColumnDef = ColumnDef::new(
        "n_segments",
        "segments",
        "tcp-forward: N_segments of the adaptive R",
    )
    .at_least(0.0);
    pub const N_TIMEOUT: ColumnDef = ColumnDef::new(
        "n_timeout",
        "segments",
        "tcp-forward: N_timeout of the adaptive R",
    )
    .at_least(0.0);
    pub const TIMEOUT_EVENTS: ColumnDef = ColumnDef::new(
        "timeout_events",
        "",
        "tcp-forward: Diff_p timeouts (repair bursts)",
    )
    .at_least(0.0);
    pub const MIN_ELAPSED: ColumnDef = ColumnDef::new(
        "min_elapsed_s",
        "s",
        "tcp-forward: shortest time a segment spent in the coding window (minE of the \
         Diff_p test)",
    )
    .at_least(0.0);

    /// The columns [`ForwardSourceSummary::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 14] = [
        CODING,
        PAYLOAD_MODE,
        SYMBOLS_SENT,
        Self::REPAIR_SYMBOLS,
        CODED_SEGMENTS,
        REDUNDANCY_MEASURED,
        REDUNDANCY,
        Self::N_SEGMENTS,
        Self::N_TIMEOUT,
        Self::TIMEOUT_EVENTS,
        CODING_WINDOW,
        Self::MIN_ELAPSED,
        ENCODE_BUSY,
        TcpSummary::RTT_MIN,
    ];

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&CODING, "lt".into());
        out.put(&PAYLOAD_MODE, self.payload_mode.into());
        out.put(&SYMBOLS_SENT, self.symbols_sent.into());
        out.put(&Self::REPAIR_SYMBOLS, self.repair_symbols.into());
        out.put(&CODED_SEGMENTS, self.coded_segments.into());
        out.put(&REDUNDANCY_MEASURED, self.redundancy_measured.into());
        out.put(&REDUNDANCY, self.redundancy.into());
        out.put(&Self::N_SEGMENTS, self.n_segments.into());
        out.put(&Self::N_TIMEOUT, self.n_timeout.into());
        out.put(&Self::TIMEOUT_EVENTS, self.timeout_events.into());
        out.put(&CODING_WINDOW, self.coding_window.into());
        out.put(&Self::MIN_ELAPSED, self.min_elapsed_s.into());
        out.put(&ENCODE_BUSY, self.encode_busy_s.into());
        out.put(&TcpSummary::RTT_MIN, self.rtt_min_s.into());
    }
}
