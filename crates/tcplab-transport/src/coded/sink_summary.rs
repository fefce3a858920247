//! A coded sink's columns of the flows table (TCP/NC's and TCP-Forward's), as a typed
//! struct.

use super::coded_columns::{DECODE_BUSY, REDUNDANT_SYMBOLS, SYMBOLS_RECEIVED};
use super::DecodeStats;
use crate::tcp::ACKS_SENT;
use tcplab_core::{ColumnDef, Metrics};

/// What a coded sink reports at the end of a flow.
#[derive(Clone, Debug)]
pub struct CodedSinkSummary<'a> {
    pub acks_sent: u64,
    pub symbols_received: u64,
    /// Received combinations that raised the rank: TCP/NC's (`None` for TCP-Forward,
    /// whose peeling decoder has no rank, and then no column).
    pub innovative_symbols: Option<u64>,
    pub redundant_symbols: u64,
    pub decode: &'a DecodeStats,
    pub decode_busy_s: f64,
}

impl CodedSinkSummary<'_> {
    pub const INNOVATIVE_SYMBOLS: ColumnDef = ColumnDef::new(
        "innovative_symbols",
        "symbols",
        "tcp-nc: received combinations that raised the rank",
    )
    .at_least(0.0);

    /// Every column [`CodedSinkSummary::publish`] writes, in its order
    /// (`innovative_symbols` with `innovative`).
    pub fn columns(innovative: bool) -> impl Iterator<Item = ColumnDef> {
        [ACKS_SENT, SYMBOLS_RECEIVED]
            .into_iter()
            .chain(innovative.then_some(Self::INNOVATIVE_SYMBOLS))
            .chain([REDUNDANT_SYMBOLS])
            .chain(DecodeStats::COLUMNS)
            .chain([DECODE_BUSY])
    }

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&ACKS_SENT, self.acks_sent.into());
        out.put(&SYMBOLS_RECEIVED, self.symbols_received.into());
        if let Some(n) = self.innovative_symbols {
            out.put(&Self::INNOVATIVE_SYMBOLS, n.into());
        }
        out.put(&REDUNDANT_SYMBOLS, self.redundant_symbols.into());
        self.decode.publish(out);
        out.put(&DECODE_BUSY, self.decode_busy_s.into());
    }
}
