//! The tcplab discrete-event simulator.
//!
//! It wires sans-IO endpoints ([`tcplab_transport`]) and link models ([`tcplab_link`])
//! on a virtual integer-nanosecond clock. Events are ordered by (time, insertion
//! sequence) and every random draw comes from a named stream of one master seed, so the
//! same scenario and seed give identical results on every machine.

mod budget;
pub mod capture;
mod collect;
mod columns;
mod error;
mod event;
mod flow;
mod media;
mod net;
mod packets;
mod prefetch;
mod run;
mod sampling;

pub use budget::{check_memory, estimate_memory};
pub use columns::{columns, undeclared_columns};
pub use error::{ConfigError, SimError};
pub use event::EventQueue;
pub use run::{simulate, simulate_tapped, simulate_with, Control};
// Scenarios and results live in `tcplab-scenario`; re-exported so a simulation needs
// only this crate.
pub use tcplab_scenario::{
    parse_scenario_file, parse_scenario_str, parse_scenario_table, parse_toml, Column, Data,
    Duplex, FlowOutcome, FlowSpec, Hop, Labels, LinkChange, LinkSpec, NodeSpec, Results, Row,
    RunInfo, Sampling, Scenario, Table, Trace, WlanSpec,
};
