//! The columns of the tables a simulation writes, gathered from the declarations beside
//! the code that publishes each (`ColumnDef`): the run's labels, every built-in
//! transport's endpoints, every built-in medium. `tcplab.columns` (and so
//! docs/results.md and the Parquet field metadata) is built from this.

use crate::collect::PACKET_COUNTS;
use tcplab_core::TableColumns;
use tcplab_scenario::{row_labels, FlowOutcome};
use tcplab_transport::transport::builtin_columns;

/// Each table's columns, each name once (a name declared twice, differently, panics:
/// see [`TableColumns::with`]).
pub fn columns() -> Vec<TableColumns> {
    let mut flows = TableColumns::new("flows")
        .with(FlowOutcome::COLUMNS)
        .with(PACKET_COUNTS);
    let mut flow_series = TableColumns::new("flow_series").with(row_labels::FLOW_SERIES);
    for (_, summary, series) in builtin_columns() {
        flows = flows.with(summary);
        flow_series = flow_series.with(series);
    }
    vec![
        flows,
        TableColumns::new("links")
            .with(row_labels::LINKS)
            .with(tcplab_link::summary_columns()),
        flow_series,
        TableColumns::new("link_series")
            .with(row_labels::LINK_SERIES)
            .with(tcplab_link::series_columns()),
        TableColumns::new("cc_trace").with(row_labels::CC_TRACE),
    ]
}
