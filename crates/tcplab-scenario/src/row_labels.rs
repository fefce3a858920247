//! The columns that say what a row is about (when, which flow, which link direction),
//! written by the drivers (the simulator, the UDP driver, the emulator) before the
//! values a component publishes, and the controller trace's columns.

use tcplab_core::ColumnDef;

/// A sample's time (`flow_series`, `link_series`, `cc_trace`).
pub const T_S: ColumnDef = ColumnDef::new("t_s", "s", "sample time").at_least(0.0);
/// A sample's flow (`flow_series`, `cc_trace`; the flows table's own is
/// [`FlowOutcome`](crate::FlowOutcome)'s).
pub const FLOW: ColumnDef = ColumnDef::new("flow", "", "flow index").at_least(0.0);
pub const LINK: ColumnDef = ColumnDef::new("link", "", "link name");
pub const DIRECTION: ColumnDef = ColumnDef::new(
    "direction",
    "",
    "`fwd` (a → b), `rev`, `shared` (half-duplex), or a WLAN cell's node name",
);

/// Before a link direction's values in the links table.
pub const LINKS: [ColumnDef; 2] = [LINK, DIRECTION];
/// Before a flow's values in `flow_series`.
pub const FLOW_SERIES: [ColumnDef; 2] = [T_S, FLOW];
/// Before a link direction's values in `link_series`.
pub const LINK_SERIES: [ColumnDef; 3] = [T_S, LINK, DIRECTION];

/// A controller trace record: the variable, and its value.
pub const KEY: ColumnDef = ColumnDef::new(
    "key",
    "",
    "controller variable (see docs/scenarios.md per controller)",
);
pub const VALUE: ColumnDef = ColumnDef::new(
    "value",
    "",
    "its value, in the unit its name gives (`_s` seconds, `_bps`...)",
);

/// The controller trace's columns ([`Trace`](crate::Trace)), in order.
pub const CC_TRACE: [ColumnDef; 4] = [T_S, FLOW, KEY, VALUE];
