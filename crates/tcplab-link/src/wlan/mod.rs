//! An 802.11 cell: one shared half-duplex channel, stations contending for it by DCF.
//!
//! [`Wlan`] is a [`crate::Medium`] with one port per node (the access point and its
//! stations). Each node queues what it sends, one FIFO per destination; when the channel
//! is idle, nodes count down their backoff and the one whose counter expires first sends
//! a PPDU — one MPDU and an ACK, or an A-MPDU and a Block ACK — whose airtime the PHY
//! ([`Phy`]) gives. Nodes whose counters expire in the same slot collide. Timing is
//! decided at `handle_timeout` (contention), not at admission, so the medium costs the
//! driver two wake-ups per channel access (start of transmission, delivery), however many
//! MPDUs the access carries. docs/wlan.md describes the model ("Channel access" onwards)
//! and the source of every constant ("The presets and their sources").

pub mod bianchi;
pub mod columns;
pub mod mcs;
mod medium;
mod minstrel;
pub mod nist;
mod params;
mod phy;
mod reorder;
mod station;

pub use medium::Wlan;
pub use params::{
    Ampdu, WlanParams, BLOCK_ACK_WINDOW, HT_MAX_AMPDU_BYTES, NS3_AMPDU, NS3_BE_MAX_AMPDU_BYTES,
    PPDU_MAX_TIME, PRESETS, REORDER_TIMEOUT, VHT_MAX_AMPDU_BYTES,
};
pub use phy::Phy;
pub use station::StationCounters;
