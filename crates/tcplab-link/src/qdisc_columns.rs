//! The columns a queue discipline publishes after its link direction's: its row of the
//! links table (`Qdisc::summary`) and of `link_series` (`Qdisc::sample`).

/// The links table.
pub mod summary {
    use tcplab_core::ColumnDef;

    pub const DROPPED_LIMIT: ColumnDef = ColumnDef::new(
        "dropped_limit",
        "packets",
        "discipline: drops at the queue's limit (FQ-CoDel: from the fattest flow)",
    )
    .at_least(0.0);
    pub const DROPPED_AQM: ColumnDef = ColumnDef::new(
        "dropped_aqm",
        "packets",
        "discipline: drops by its algorithm (RED/PIE early drops, CoDel dequeue drops)",
    )
    .at_least(0.0);
    pub const MARKED_CE: ColumnDef = ColumnDef::new(
        "marked_ce",
        "packets",
        "discipline: ECN-capable packets marked CE instead of dropped",
    )
    .at_least(0.0);
    pub const SOJOURN_P50: ColumnDef = ColumnDef::new(
        "sojourn_p50_ms",
        "ms",
        "discipline: median time packets waited before transmission (log-linear histogram, \
         within 3 %)",
    )
    .at_least(0.0);
    pub const SOJOURN_P95: ColumnDef = ColumnDef::new(
        "sojourn_p95_ms",
        "ms",
        "discipline: 95th percentile of that wait",
    )
    .at_least(0.0);
    pub const SOJOURN_P99: ColumnDef = ColumnDef::new(
        "sojourn_p99_ms",
        "ms",
        "discipline: 99th percentile of that wait",
    )
    .at_least(0.0);

    /// What `Qdisc::summary` writes, in its order (the sojourn percentiles once a packet
    /// has left).
    pub const ALL: [ColumnDef; 6] = [
        DROPPED_LIMIT,
        DROPPED_AQM,
        MARKED_CE,
        SOJOURN_P50,
        SOJOURN_P95,
        SOJOURN_P99,
    ];
}

/// The `link_series` table.
pub mod series {
    use tcplab_core::ColumnDef;

    pub const DROPPED_AQM: ColumnDef = ColumnDef::new(
        "dropped_aqm",
        "packets",
        "discipline: algorithm drops so far (cumulative)",
    )
    .at_least(0.0);
    pub const MARKED_CE: ColumnDef = ColumnDef::new(
        "marked_ce",
        "packets",
        "discipline: CE marks so far (cumulative)",
    )
    .at_least(0.0);
    pub const FQ_FLOWS_ACTIVE: ColumnDef = ColumnDef::new(
        "fq_flows_active",
        "",
        "FQ-CoDel: flows on the new or old list",
    )
    .at_least(0.0);
    pub const CODEL_DROPPING: ColumnDef =
        ColumnDef::new("codel_dropping", "", "CoDel: 1 while in its dropping state")
            .within(0.0, 1.0);
    pub const CODEL_COUNT: ColumnDef = ColumnDef::new(
        "codel_count",
        "",
        "CoDel: drops in the current (or last) dropping state",
    )
    .at_least(0.0);
    pub const PIE_DROP_PROB: ColumnDef =
        ColumnDef::new("pie_drop_prob", "", "PIE: drop probability").within(0.0, 1.0);
    pub const RED_AVG_PKTS: ColumnDef =
        ColumnDef::new("red_avg_pkts", "packets", "RED: average queue (EWMA)").at_least(0.0);

    /// What `Qdisc::sample` writes: each discipline its own after the two every one has.
    pub const ALL: [ColumnDef; 7] = [
        DROPPED_AQM,
        MARKED_CE,
        FQ_FLOWS_ACTIVE,
        CODEL_DROPPING,
        CODEL_COUNT,
        PIE_DROP_PROB,
        RED_AVG_PKTS,
    ];
}
