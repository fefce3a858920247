//! What an emulation produced: the simulator's link tables, the packet log, timing error.

use super::log::{LatenessHistogram, PacketLog};
use tcplab_link::Link;
use tcplab_sim::{LinkRows, LinkSeries, Results, RunInfo};

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
    pub links: LinkRows,
    pub link_series: LinkSeries,
    pub packets: PacketLog,
}

pub(super) const DIRECTIONS: [&str; 2] = ["fwd", "rev"];

/// One row of the link series per direction (the simulator's columns).
pub(super) fn sample_links(ls: &mut LinkSeries, t_s: f64, links: &mut [Link<Buf>; 2], now: u64) {
    for (d, l) in links.iter_mut().enumerate() {
        let (qp, qb) = l.queue_len(tcplab_core::Time(now));
        let c = *l.counters();
        ls.t_s.push(t_s);
        ls.link.push(0);
        ls.direction.push(DIRECTIONS[d]);
        ls.queue_pkts.push(qp);
        ls.queue_bytes.push(qb);
        ls.delivered_bytes.push(c.delivered_bytes);
        ls.dropped_queue.push(c.dropped_queue);
        ls.dropped_loss.push(c.dropped_loss);
        ls.dropped_down.push(c.dropped_down);
    }
}

/// The final counters as the simulator's links table.
pub(super) fn link_rows(name: &str, links: &[Link<Buf>; 2]) -> LinkRows {
    let mut lr = LinkRows::default();
    for (d, l) in links.iter().enumerate() {
        let c = l.counters();
        lr.link.push(name.to_string());
        lr.direction.push(DIRECTIONS[d]);
        lr.offered_pkts.push(c.offered_pkts);
        lr.sent_pkts.push(c.sent_pkts);
        lr.sent_bytes.push(c.sent_bytes);
        lr.delivered_pkts.push(c.delivered_pkts);
        lr.dropped_queue.push(c.dropped_queue);
        lr.dropped_loss.push(c.dropped_loss);
        lr.dropped_down.push(c.dropped_down);
        lr.max_queue_pkts.push(c.max_queue_pkts);
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
    pub fn to_results(&self, link_name: &str) -> Results {
        Results {
            info: RunInfo {
                scenario: self.info.scenario.clone(),
                seed: self.info.seed,
                replication: 0,
                end_time_s: self.info.duration_s,
                events: self.packets.len() as u64,
                packet_hops: self.links.delivered_pkts.iter().sum(),
            },
            links: self.links.clone(),
            link_series: self.link_series.clone(),
            link_names: vec![link_name.to_string()],
            ..Results::default()
        }
    }
}
