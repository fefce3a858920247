//! The columns of the emulator's packet log (`tcplab emulate`), the `packets` table.

use tcplab_core::ColumnDef;

pub const T_S: ColumnDef = ColumnDef::new(
    "t_s",
    "s",
    "wall-clock time of the event since the emulation started",
)
.at_least(0.0);
pub const DIRECTION: ColumnDef =
    ColumnDef::new("direction", "", "`fwd` (namespace → host) or `rev`");
pub const EVENT: ColumnDef = ColumnDef::new(
    "event",
    "",
    "`arrive`, `depart`, `drop_queue` (full queue or the discipline's drop), \
     `drop_loss`, `drop_down` or `drop_write`",
);
pub const BYTES: ColumnDef = ColumnDef::new("bytes", "B", "IP packet length").at_least(0.0);
pub const DELAY_NS: ColumnDef = ColumnDef::new(
    "delay_ns",
    "ns",
    "departures: time from arrival to departure (queue + serialisation + propagation); \
     else 0",
)
.at_least(0.0);
pub const LATE_NS: ColumnDef = ColumnDef::new(
    "late_ns",
    "ns",
    "departures: how late the packet left after the time the link model gave it (the \
     emulator's own error); else 0",
)
.at_least(0.0);
pub const ECN: ColumnDef = ColumnDef::new(
    "ecn",
    "",
    "the packet's IP ECN field at the event: `not-ect`, `ect1`, `ect0` or `ce` (a \
     departure shows the queue discipline's mark); empty when the packet is not at hand",
);

/// The emulator's packet log (`tcplab emulate`), one row per event: its columns, in the
/// order `net::packets_batch` writes them.
pub const ALL: [ColumnDef; 7] = [T_S, DIRECTION, EVENT, BYTES, DELAY_NS, LATE_NS, ECN];
