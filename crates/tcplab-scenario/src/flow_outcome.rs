//! The columns of the flows table that every flow has, whichever driver ran it (the
//! simulator, the UDP driver, the kernel tool): written here once, so the tables of a
//! simulated and a real run line up column for column. A transport's own columns follow
//! them in the row (its endpoints' `summary`).

use crate::scenario::FlowSpec;
use tcplab_core::{ColumnDef, Metrics};

/// One flow's outcome, as its row of the flows table begins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowOutcome<'a> {
    /// The flow's index in the run.
    pub flow: u32,
    pub name: &'a str,
    pub transport: &'a str,
    /// The congestion controller, for transports that have one.
    pub cc: Option<&'a str>,
    /// The stack profile a TCP flow named (`stack = "linux"`).
    pub stack: Option<&'a str>,
    /// Bytes the application was to write (`None`: unlimited).
    pub bytes_target: Option<u64>,
    pub bytes_written: u64,
    pub bytes_delivered: u64,
    pub start_s: f64,
    /// When the last byte was delivered; `None` when the flow did not complete.
    pub completion_s: Option<f64>,
    pub completed: bool,
    /// When the source finished (all its data acknowledged).
    pub finished_s: Option<f64>,
    pub goodput_bps: f64,
}

impl FlowOutcome<'_> {
    pub const FLOW: ColumnDef =
        ColumnDef::new("flow", "", "flow index, in scenario order").at_least(0.0);
    pub const NAME: ColumnDef =
        ColumnDef::new("name", "", "flow name (`name` key, default `flowN`)");
    pub const TRANSPORT: ColumnDef = ColumnDef::new(
        "transport",
        "",
        "`tcp`, `datagram`, `tcp-nc`, `tcp-forward` or a registered transport",
    );
    pub const CC: ColumnDef = ColumnDef::new("cc", "", "congestion controller (TCP flows)");
    pub const STACK: ColumnDef = ColumnDef::new(
        "stack",
        "",
        "TCP flows: the `stack` profile (`linux`, the default; `ns3`, `rfc`; `tcplab` for \
         tcplab's own defaults)",
    );
    pub const BYTES_TARGET: ColumnDef = ColumnDef::new(
        "bytes_target",
        "B",
        "bytes the application was to write (null: unlimited)",
    )
    .at_least(0.0);
    pub const BYTES_WRITTEN: ColumnDef =
        ColumnDef::new("bytes_written", "B", "bytes the application wrote").at_least(0.0);
    pub const BYTES_DELIVERED: ColumnDef = ColumnDef::new(
        "bytes_delivered",
        "B",
        "bytes the receiver delivered in order",
    )
    .at_least(0.0);
    pub const START: ColumnDef =
        ColumnDef::new("start_s", "s", "when the application started writing").at_least(0.0);
    pub const COMPLETION: ColumnDef = ColumnDef::new(
        "completion_s",
        "s",
        "when the last byte was delivered (null: not completed)",
    )
    .at_least(0.0);
    pub const COMPLETED: ColumnDef =
        ColumnDef::new("completed", "", "delivered == written == target");
    pub const FINISHED: ColumnDef = ColumnDef::new(
        "finished_s",
        "s",
        "when the source finished (all data acknowledged)",
    )
    .at_least(0.0);
    pub const GOODPUT: ColumnDef = ColumnDef::new(
        "goodput_bps",
        "bit/s",
        "bytes delivered × 8 / (end − start)",
    )
    .at_least(0.0);

    /// The columns [`FlowOutcome::publish`] writes, in its order: unit, meaning, range.
    pub const COLUMNS: [ColumnDef; 13] = [
        Self::FLOW,
        Self::NAME,
        Self::TRANSPORT,
        Self::CC,
        Self::STACK,
        Self::BYTES_TARGET,
        Self::BYTES_WRITTEN,
        Self::BYTES_DELIVERED,
        Self::START,
        Self::COMPLETION,
        Self::COMPLETED,
        Self::FINISHED,
        Self::GOODPUT,
    ];
}

impl<'a> FlowOutcome<'a> {
    /// The labels of flow `flow` from its spec; the measured fields start at zero.
    pub fn new(flow: u32, spec: &'a FlowSpec) -> FlowOutcome<'a> {
        FlowOutcome {
            flow,
            name: &spec.name,
            transport: spec.transport.name(),
            cc: spec.transport.cc(),
            stack: spec.transport.stack(),
            bytes_target: spec.bytes,
            ..FlowOutcome::default()
        }
    }

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, row: &mut dyn Metrics) {
        row.put(&Self::FLOW, self.flow.into());
        row.put(&Self::NAME, self.name.into());
        row.put(&Self::TRANSPORT, self.transport.into());
        if let Some(cc) = self.cc {
            row.put(&Self::CC, cc.into());
        }
        if let Some(stack) = self.stack {
            row.put(&Self::STACK, stack.into());
        }
        row.put(&Self::BYTES_TARGET, self.bytes_target.into());
        row.put(&Self::BYTES_WRITTEN, self.bytes_written.into());
        row.put(&Self::BYTES_DELIVERED, self.bytes_delivered.into());
        row.put(&Self::START, self.start_s.into());
        row.put(&Self::COMPLETION, self.completion_s.into());
        row.put(&Self::COMPLETED, self.completed.into());
        row.put(&Self::FINISHED, self.finished_s.into());
        row.put(&Self::GOODPUT, self.goodput_bps.into());
    }
}

/// Goodput in bit/s: `bytes` delivered over `secs` seconds (0 over no time).
pub fn goodput_bps(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_flow_table, Table};

    #[test]
    fn a_row_begins_with_the_flow_columns_in_order() {
        let spec = parse_flow_table(
            &"cc = \"cubic\"\nbytes = \"1MB\"\nname = \"a\""
                .parse()
                .unwrap(),
            "x",
        )
        .unwrap();
        let mut t = Table::default();
        FlowOutcome {
            bytes_delivered: 500_000,
            goodput_bps: goodput_bps(500_000, 2.0),
            ..FlowOutcome::new(3, &spec)
        }
        .publish(&mut t.row());
        let names: Vec<&str> = t.columns().iter().map(|c| &*c.name).collect();
        let declared: Vec<&str> = FlowOutcome::COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(
            names, declared,
            "publish writes the declared columns, in order"
        );
        assert_eq!(names[..3], ["flow", "name", "transport"]);
        assert_eq!(t.ints("flow").unwrap(), [3]);
        assert_eq!(t.texts("cc").unwrap(), ["cubic"]);
        assert_eq!(t.opt_ints("bytes_target").unwrap(), [Some(1_000_000)]);
        assert_eq!(t.opt_floats("completion_s").unwrap(), [None]);
        assert_eq!(t.floats("goodput_bps").unwrap(), [2_000_000.0]);
        assert_eq!(goodput_bps(1, 0.0), 0.0);
    }
}
