//! A datagram sink's columns of the flows table, as a typed struct.

use tcplab_core::{ColumnDef, Metrics};

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
    pub const PACKETS_REORDERED: ColumnDef = ColumnDef::new(
        "packets_reordered",
        "packets",
        "datagrams that arrived after a later one",
    )
    .at_least(0.0);
    pub const OWD_MIN: ColumnDef =
        ColumnDef::new("owd_min_s", "s", "smallest one-way delay of a datagram").at_least(0.0);
    pub const OWD_MEAN: ColumnDef =
        ColumnDef::new("owd_mean_s", "s", "mean one-way delay of the datagrams").at_least(0.0);
    pub const OWD_P50: ColumnDef =
        ColumnDef::new("owd_p50_s", "s", "median one-way delay").at_least(0.0);
    pub const OWD_P95: ColumnDef =
        ColumnDef::new("owd_p95_s", "s", "95th percentile one-way delay").at_least(0.0);
    pub const OWD_P99: ColumnDef =
        ColumnDef::new("owd_p99_s", "s", "99th percentile one-way delay").at_least(0.0);
    pub const OWD_MAX: ColumnDef =
        ColumnDef::new("owd_max_s", "s", "largest one-way delay").at_least(0.0);

    /// The columns [`DatagramSummary::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 7] = [
        Self::PACKETS_REORDERED,
        Self::OWD_MIN,
        Self::OWD_MEAN,
        Self::OWD_P50,
        Self::OWD_P95,
        Self::OWD_P99,
        Self::OWD_MAX,
    ];

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&Self::PACKETS_REORDERED, self.packets_reordered.into());
        out.put(&Self::OWD_MIN, self.owd_min_s.into());
        out.put(&Self::OWD_MEAN, self.owd_mean_s.into());
        out.put(&Self::OWD_P50, self.owd_p50_s.into());
        out.put(&Self::OWD_P95, self.owd_p95_s.into());
        out.put(&Self::OWD_P99, self.owd_p99_s.into());
        out.put(&Self::OWD_MAX, self.owd_max_s.into());
    }
}
