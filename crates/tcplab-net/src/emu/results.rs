//! What an emulation produced: the simulator's link tables, the packet log, timing error.

use super::log::{LatenessHistogram, PacketLog};
use tcplab_core::Metrics;
use tcplab_link::Link;
use tcplab_scenario::row_labels::{DIRECTION, LINK, T_S};
use tcplab_scenario::{Results, RunInfo, Table};

use super::buffer::Buf;

/// Facts about the run that are not per link.
#[derive(Clone, Debug, Default)]
pub struct EmuInfo {
    pub scenario: String,
    pub seed: u64,
    /// Wall-clock time the packet loop ran.
    pub duration_s: f64,
    /// The loop ran at `SCHED_FIFO` priority.
    pub realtime: bool,
    /// CPU time the packet loop used (its thread's user + system time).
    pub cpu_s: f64,
    /// Interface names (host side, namespace side) and their addresses.
    pub host_if: String,
    pub ns_if: String,
    pub host_addr: String,
    pub ns_addr: String,
    /// Packets still inside each direction's model when the emulator stopped.
    pub in_flight_at_end: [u64; 2],
    /// Packets whose departure was written out (both directions).
    pub departures: u64,
    /// Departure lateness against the model's schedule, ns (p50, p99, p99.9, max).
    pub late_p50_ns: u64,
    pub late_p99_ns: u64,
    pub late_p999_ns: u64,
    pub late_max_ns: u64,
}

/// Everything one emulation produced.
#[derive(Clone, Debug, Default)]
pub struct EmuResults {
    pub info: EmuInfo,
    pub links: Table,
    pub link_series: Table,
    pub packets: PacketLog,
}

pub(super) const DIRECTIONS: [&str; 2] = ["fwd", "rev"];

/// One row of the link series per direction (the link publishes the simulator's columns).
pub(super) fn sample_links(
    ls: &mut Table,
    name: &str,
    t_s: f64,
    links: &mut [Link<Buf>; 2],
    now: u64,
) {
    for (d, l) in links.iter_mut().enumerate() {
        let mut row = ls.row();
        row.put(&T_S, t_s.into());
        row.put(&LINK, name.into());
        row.put(&DIRECTION, DIRECTIONS[d].into());
        l.sample(tcplab_core::Time(now), &mut row);
    }
}

/// The final counters as the simulator's links table.
pub(super) fn link_rows(name: &str, links: &[Link<Buf>; 2]) -> Table {
    let mut lr = Table::default();
    for (d, l) in links.iter().enumerate() {
        let mut row = lr.row();
        row.put(&LINK, name.into());
        row.put(&DIRECTION, DIRECTIONS[d].into());
        l.summary(&mut row);
    }
    lr
}

pub(super) fn fill_lateness(info: &mut EmuInfo, h: &LatenessHistogram) {
    info.departures = h.count();
    let q = |x| h.quantile(x).map_or(0, |d| d.as_nanos());
    info.late_p50_ns = q(0.5);
    info.late_p99_ns = q(0.99);
    info.late_p999_ns = q(0.999);
    info.late_max_ns = h.max().as_nanos();
}

impl EmuResults {
    /// The link tables as a simulation's [`Results`] (its flow tables stay empty: the
    /// command's traffic is not tcplab's).
    pub fn to_results(&self) -> Results {
        Results {
            info: RunInfo {
                scenario: self.info.scenario.clone(),
                seed: self.info.seed,
                replication: 0,
                end_time_s: self.info.duration_s,
                end_reason: "completed",
                events: self.packets.len() as u64,
                packet_hops: self
                    .links
                    .ints("delivered_pkts")
                    .map_or(0, |v| v.iter().sum()),
                series_stride: 1,
            },
            links: self.links.clone(),
            link_series: self.link_series.clone(),
            ..Results::default()
        }
    }
}
