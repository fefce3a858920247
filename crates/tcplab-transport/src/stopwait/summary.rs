//! Stop-and-wait's columns of the flows table, as a typed struct.

use tcplab_core::Metrics;

/// What a stop-and-wait source reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopWaitSummary {
    /// Packets sent again after a timeout.
    pub resent: u64,
}

impl StopWaitSummary {
    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put("stopwait_resent", self.resent.into());
    }
}
