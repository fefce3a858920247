//! Stop-and-wait's columns of the flows table, as a typed struct.

use tcplab_core::{ColumnDef, Metrics};

/// What a stop-and-wait source reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopWaitSummary {
    /// Packets sent again after a timeout.
    pub resent: u64,
}

impl StopWaitSummary {
    pub const STOPWAIT_RESENT: ColumnDef = ColumnDef::new(
        "stopwait_resent",
        "packets",
        "stop-and-wait: packets sent again after a timeout",
    )
    .at_least(0.0);

    /// The columns [`StopWaitSummary::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 1] = [Self::STOPWAIT_RESENT];

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&Self::STOPWAIT_RESENT, self.resent.into());
    }
}
