//! TCP/NC's source's columns of the flows table, as a typed struct (they follow its TCP
//! sender's [`TcpSummary`](crate::TcpSummary); the sink's are
//! [`CodedSinkSummary`](crate::coded::CodedSinkSummary)).

use crate::coded::coded_columns::*;
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
