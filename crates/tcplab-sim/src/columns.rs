//! The columns of the tables a simulation writes, gathered from the declarations beside
//! the code that publishes each (`ColumnDef`): the run's labels, every built-in
//! transport's endpoints and every transport registered so far
//! (`tcplab_transport::transport::Registration`), every built-in medium. `tcplab.columns` (and so
//! docs/results.md and the Parquet field metadata) is built from this.

use crate::collect::PACKET_COUNTS;
use tcplab_core::TableColumns;
use tcplab_scenario::{row_labels, FlowOutcome, Results};
use tcplab_transport::transport::{builtin_columns, registered_columns};

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
    // `register` refused another definition of a transport's column; one of the
    // drivers' own columns (`flow`, `goodput_bps`, ...) stays the driver's, as a second
    // value published under its name does in the table.
    for (_, summary, series) in registered_columns() {
        for c in summary {
            if flows.get(c.name).is_none() {
                flows.add(c);
            }
        }
        for c in series {
            if flow_series.get(c.name).is_none() {
                flow_series.add(c);
            }
        }
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

/// The columns of `r`'s tables that [`columns`] does not declare, as `table.column`:
/// the check a transport's tests make on its runs (tcplab's own make it on every
/// built-in, `tests/columns.rs`), so a column published without a declaration fails a
/// test, a registered transport's as a built-in's.
pub fn undeclared_columns(r: &Results) -> Vec<String> {
    let declared = columns();
    let mut missing = vec![];
    for (table, t) in r.clone().into_tables() {
        let cols = declared.iter().find(|d| d.table == table);
        for c in t.columns() {
            if cols.and_then(|d| d.get(&c.name)).is_none() {
                missing.push(format!("{table}.{}", c.name));
            }
        }
    }
    missing
}
