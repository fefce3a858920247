//! The columns a link direction publishes: its row of the links table
//! ([`Link::summary`](crate::Link::summary)) and of `link_series`
//! ([`Link::sample`](crate::Link::sample)). The 802.11 cell publishes some of the same
//! names and names these consts; a queue discipline's columns follow a link's and are
//! declared in `qdisc_columns.rs`.

/// The links table.
pub mod summary {
    use tcplab_core::ColumnDef;

    pub const OFFERED_PKTS: ColumnDef = ColumnDef::new(
        "offered_pkts",
        "packets",
        "packets offered to the link direction",
    )
    .at_least(0.0);
    pub const DELIVERED_PKTS: ColumnDef = ColumnDef::new(
        "delivered_pkts",
        "packets",
        "packets that reached the far end",
    )
    .at_least(0.0);
    pub const DROPPED_QUEUE: ColumnDef = ColumnDef::new(
        "dropped_queue",
        "packets",
        "drop-tail drops (queue full); with a queue discipline, all of its drops \
         (`dropped_limit` + `dropped_aqm`)",
    )
    .at_least(0.0);
    pub const MAX_QUEUE_PKTS: ColumnDef =
        ColumnDef::new("max_queue_pkts", "packets", "longest queue seen").at_least(0.0);

    pub const SENT_PKTS: ColumnDef =
        ColumnDef::new("sent_pkts", "packets", "packets admitted and transmitted").at_least(0.0);
    pub const SENT_BYTES: ColumnDef = ColumnDef::new(
        "sent_bytes",
        "B",
        "wire bytes transmitted (headers included)",
    )
    .at_least(0.0);
    pub const DROPPED_LOSS: ColumnDef =
        ColumnDef::new("dropped_loss", "packets", "drops by the loss model").at_least(0.0);
    pub const DROPPED_DOWN: ColumnDef =
        ColumnDef::new("dropped_down", "packets", "packets lost to an outage").at_least(0.0);

    /// What [`Link::summary`](crate::Link::summary) writes, in its order.
    pub const ALL: [ColumnDef; 8] = [
        OFFERED_PKTS,
        SENT_PKTS,
        SENT_BYTES,
        DELIVERED_PKTS,
        DROPPED_QUEUE,
        DROPPED_LOSS,
        DROPPED_DOWN,
        MAX_QUEUE_PKTS,
    ];
}

/// The `link_series` table.
pub mod series {
    use tcplab_core::ColumnDef;

    pub const QUEUE_PKTS: ColumnDef = ColumnDef::new(
        "queue_pkts",
        "packets",
        "packets waiting for the transmitter",
    )
    .at_least(0.0);
    pub const DELIVERED_BYTES: ColumnDef = ColumnDef::new(
        "delivered_bytes",
        "B",
        "wire bytes delivered so far (cumulative)",
    )
    .at_least(0.0);
    pub const DROPPED_QUEUE: ColumnDef = ColumnDef::new(
        "dropped_queue",
        "packets",
        "drop-tail drops so far (cumulative)",
    )
    .at_least(0.0);

    pub const QUEUE_BYTES: ColumnDef =
        ColumnDef::new("queue_bytes", "B", "bytes waiting for the transmitter").at_least(0.0);
    pub const DROPPED_LOSS: ColumnDef = ColumnDef::new(
        "dropped_loss",
        "packets",
        "loss-model drops so far (cumulative)",
    )
    .at_least(0.0);
    pub const DROPPED_DOWN: ColumnDef = ColumnDef::new(
        "dropped_down",
        "packets",
        "outage drops so far (cumulative)",
    )
    .at_least(0.0);

    /// What [`Link::sample`](crate::Link::sample) writes, in its order.
    pub const ALL: [ColumnDef; 6] = [
        QUEUE_PKTS,
        QUEUE_BYTES,
        DELIVERED_BYTES,
        DROPPED_QUEUE,
        DROPPED_LOSS,
        DROPPED_DOWN,
    ];
}
