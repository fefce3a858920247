//! tcplab scenarios and results, shared by every driver.
//!
//! A scenario file is read here, strictly (units, ranges, unknown keys, each error naming
//! the file, key, value and why), into a [`Scenario`]: nodes, links, WLAN cells and
//! routed flows. The simulator (`tcplab-sim`) runs it; the real-network drivers
//! (`tcplab-net`) read the same keys, one flow or the link part. Every driver reports in
//! the same [`Results`] tables, so results from a simulation, the UDP driver, the kernel
//! and the emulator land in the same figures.

mod error;
mod flow_outcome;
mod parse;
mod results;
mod routing;
pub mod row_labels;
mod scenario;

pub use error::ConfigError;
pub use flow_outcome::{goodput_bps, FlowOutcome};
pub use parse::{
    parse_flow_table, parse_network_table, parse_scenario_file, parse_scenario_str,
    parse_scenario_table, parse_toml,
};
pub use results::{Column, Data, Labels, Results, Row, RunInfo, Table, Trace};
pub use scenario::{
    Duplex, FlowSpec, Hop, LinkChange, LinkSpec, NodeSpec, Sampling, Scenario, WlanSpec,
};
