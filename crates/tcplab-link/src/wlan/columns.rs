//! The columns a cell's channel (one per node) publishes: its row of the links table
//! and of `link_series`. Those a link direction publishes too are the link's consts
//! (`link_columns.rs`), named here again.

/// The links table.
pub mod summary {
    pub use crate::link_columns::summary::{
        DELIVERED_PKTS, DROPPED_QUEUE, MAX_QUEUE_PKTS, OFFERED_PKTS,
    };
    use tcplab_core::ColumnDef;

    pub const DELIVERED_BYTES: ColumnDef = ColumnDef::new(
        "delivered_bytes",
        "B",
        "WLAN: wire bytes of the node's packets that reached their recipient",
    )
    .at_least(0.0);
    pub const DROPPED_RETRY: ColumnDef = ColumnDef::new(
        "dropped_retry",
        "packets",
        "WLAN: frames dropped after the retry limit",
    )
    .at_least(0.0);
    pub const TX_ATTEMPTS: ColumnDef = ColumnDef::new(
        "tx_attempts",
        "",
        "WLAN: channel accesses (transmissions incl. collided)",
    )
    .at_least(0.0);
    pub const COLLISIONS: ColumnDef =
        ColumnDef::new("collisions", "", "WLAN: accesses that collided").at_least(0.0);
    pub const MPDUS_SENT: ColumnDef =
        ColumnDef::new("mpdus_sent", "frames", "WLAN: MPDUs transmitted").at_least(0.0);
    pub const RETRIES: ColumnDef =
        ColumnDef::new("retries", "", "WLAN: retransmitted frames").at_least(0.0);
    pub const MPDU_ERRORS: ColumnDef = ColumnDef::new(
        "mpdu_errors",
        "frames",
        "WLAN: MPDUs lost to frame errors (PER)",
    )
    .at_least(0.0);
    pub const REORDER_HELD: ColumnDef = ColumnDef::new(
        "reorder_held",
        "frames",
        "WLAN: the node's MPDUs the recipient's Block Ack reordering buffer held behind a gap",
    )
    .at_least(0.0);
    pub const REORDER_LATE: ColumnDef = ColumnDef::new(
        "reorder_late",
        "packets",
        "WLAN: the node's MPDUs discarded as arriving after their gap's reorder timeout",
    )
    .at_least(0.0);
    pub const PHY_RATE_MEAN: ColumnDef = ColumnDef::new(
        "phy_rate_mean_bps",
        "bit/s",
        "WLAN: mean PHY rate of the MPDUs the node sent (varies under rate_control = \"minstrel\")",
    )
    .at_least(0.0);
    pub const AMPDU_MEAN: ColumnDef = ColumnDef::new(
        "ampdu_mean",
        "frames",
        "WLAN: mean MPDUs per successful access",
    )
    .at_least(0.0);
    pub const AIRTIME: ColumnDef = ColumnDef::new(
        "airtime_s",
        "s",
        "WLAN: the node's airtime (its exchanges incl. MAC ACKs)",
    )
    .at_least(0.0);
    pub const ACK_AIRTIME: ColumnDef = ColumnDef::new(
        "ack_airtime_s",
        "s",
        "WLAN: airtime of frames carrying no payload (transport ACKs)",
    )
    .at_least(0.0);
    pub const AIRTIME_SHARE: ColumnDef = ColumnDef::new(
        "airtime_share",
        "",
        "WLAN: airtime / busy time of the channel",
    )
    .at_least(0.0);
    pub const ACK_AIRTIME_SHARE: ColumnDef = ColumnDef::new(
        "ack_airtime_share",
        "",
        "WLAN: ACK airtime / busy time of the channel",
    )
    .at_least(0.0);
    pub const BUSY: ColumnDef =
        ColumnDef::new("busy_s", "s", "WLAN: time the channel was busy").at_least(0.0);
    pub const COLLISION: ColumnDef =
        ColumnDef::new("collision_s", "s", "WLAN: time lost to collisions").at_least(0.0);

    /// The links-table columns a cell's channel (one per node) publishes, in its order.
    pub const ALL: [ColumnDef; 21] = [
        OFFERED_PKTS,
        DELIVERED_PKTS,
        DELIVERED_BYTES,
        DROPPED_QUEUE,
        DROPPED_RETRY,
        MAX_QUEUE_PKTS,
        TX_ATTEMPTS,
        COLLISIONS,
        MPDUS_SENT,
        RETRIES,
        MPDU_ERRORS,
        REORDER_HELD,
        REORDER_LATE,
        PHY_RATE_MEAN,
        AMPDU_MEAN,
        AIRTIME,
        ACK_AIRTIME,
        AIRTIME_SHARE,
        ACK_AIRTIME_SHARE,
        BUSY,
        COLLISION,
    ];
}

/// The `link_series` table.
pub mod series {
    pub use crate::link_columns::series::{DELIVERED_BYTES, DROPPED_QUEUE, QUEUE_PKTS};
    use tcplab_core::ColumnDef;

    pub const DROPPED_RETRY: ColumnDef =
        ColumnDef::new("dropped_retry", "packets", "WLAN: retry-limit drops so far").at_least(0.0);
    pub const COLLISIONS: ColumnDef =
        ColumnDef::new("collisions", "", "WLAN: collisions so far").at_least(0.0);
    pub const AIRTIME: ColumnDef =
        ColumnDef::new("airtime_s", "s", "WLAN: airtime so far").at_least(0.0);

    /// The `link_series` columns a cell's channel publishes, in its order.
    pub const ALL: [ColumnDef; 6] = [
        QUEUE_PKTS,
        DELIVERED_BYTES,
        DROPPED_QUEUE,
        DROPPED_RETRY,
        COLLISIONS,
        AIRTIME,
    ];
}
