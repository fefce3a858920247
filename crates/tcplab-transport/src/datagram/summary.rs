//! A datagram sink's columns of the flows table, as a typed struct.

use tcplab_core::Metrics;

/// What a datagram sink reports at the end of a flow: reordering and one-way delay
/// (`None` before any datagram arrived).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatagramSummary {
    pub packets_reordered: u64,
    pub owd_min_s: Option<f64>,
    pub owd_mean_s: Option<f64>,
    pub owd_p50_s: Option<f64>,
    pub owd_p95_s: Option<f64>,
    pub owd_p99_s: Option<f64>,
    pub owd_max_s: Option<f64>,
}

impl DatagramSummary {
    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put("packets_reordered", self.packets_reordered.into());
        out.put("owd_min_s", self.owd_min_s.into());
        out.put("owd_mean_s", self.owd_mean_s.into());
        out.put("owd_p50_s", self.owd_p50_s.into());
        out.put("owd_p95_s", self.owd_p95_s.into());
        out.put("owd_p99_s", self.owd_p99_s.into());
        out.put("owd_max_s", self.owd_max_s.into());
    }
}
