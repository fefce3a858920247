//! Memory budgets: time series stay within a row limit however long a run is, and a run
//! whose estimated memory exceeds `memory_limit` is refused before it starts.
//!
//! Samples are numbered as they are taken. When a series table (flow or link series, or
//! the controller trace) would exceed `series_rows`, every other kept sample is dropped
//! and from then on only every `stride`-th sample is taken: the series covers the whole
//! run at half the resolution, and memory stays flat in simulated time. The final sample
//! at the end of the run is always kept. The run info reports the stride, so a thinned
//! series never passes for the requested one.

use crate::ConfigError;
use tcplab_scenario::Results;
use tcplab_scenario::{Sampling, Scenario};

/// Heap per flow: both TCP endpoints, the flow's bookkeeping and its event-queue share.
/// Rings start empty and grow to their high-water mark, so this grows with the window:
/// measured with a counting allocator, 5.1 KB per flow 0.2 s into a 1000-flow run and
/// 24.9 KB after 1 s of B2 at 1000 flows (tests/memory_estimate.rs keeps the estimate an
/// upper bound within 4x of the measured peak).
const FLOW_BYTES: u64 = 20 << 10;
/// Heap per series row, Vec growth slack included (measured: 70-90 B per row of TCP flow
/// and link series).
const ROW_BYTES: u64 = 160;
/// Per link direction: the medium, its queue ring and counters. The ring starts empty and
/// most links of a large topology carry a few packets at a time: B2 at 10,000 flows for
/// 10 s peaks at 10.0 KB per flow with its four access-link directions included, 8.1 KB
/// at 100,000 flows (at 64 KB a direction, 100,000 flows were refused as needing 28 GB;
/// 16 KB until a plain direction shrank to 344 bytes).
const MEDIUM_BYTES: u64 = 8 << 10;
/// Everything else a run needs (tables, parser output, event queue base).
const BASE_BYTES: u64 = 4 << 20;

/// Bytes of heap a run of `sc` is expected to need at most.
pub fn estimate_memory(sc: &Scenario) -> u64 {
    let flows = sc.flows.len() as u64;
    let media = 2 * sc.links.len() as u64;
    let horizon = sc.duration.unwrap_or(sc.max_time);
    let cap = sc.series_rows as u64;
    let rows = match sc.sampling {
        Sampling::Off => 0,
        Sampling::PerAck => cap + cap / 2,
        Sampling::Interval(d) => {
            let samples = (horizon.as_nanos() / d.as_nanos().max(1)).saturating_add(2);
            let flow_rows = samples.saturating_mul(flows).min(cap);
            let link_rows = samples.saturating_mul(media).min(cap);
            // Controller traces: assume half a record per flow row.
            flow_rows + link_rows + flow_rows / 2
        }
    };
    BASE_BYTES
        .saturating_add(flows.saturating_mul(FLOW_BYTES))
        .saturating_add(media.saturating_mul(MEDIUM_BYTES))
        .saturating_add(rows.saturating_mul(ROW_BYTES))
}

/// Refuses a run that would need more memory than `memory_limit` (default: 80 % of
/// this machine's memory), so it fails with a message instead of an abort.
pub fn check_memory(sc: &Scenario) -> Result<(), ConfigError> {
    let (limit, what) = match sc.memory_limit {
        Some(l) => (l, "memory_limit"),
        None => match physical_memory() {
            Some(m) => (
                m / 10 * 8,
                "80 % of this machine's memory (set memory_limit)",
            ),
            None => return Ok(()),
        },
    };
    let need = estimate_memory(sc);
    if need <= limit {
        return Ok(());
    }
    Err(ConfigError {
        file: sc.source.clone(),
        key: "memory_limit".into(),
        value: sc.memory_limit.map(gb).unwrap_or_default(),
        why: format!(
            "this run needs about {} ({} flow(s) at ~{} KB each, {} link direction(s), \
             series up to {} rows per table), more than the limit of {} ({what}); \
             use fewer flows, a coarser or no sample, a smaller series_rows, or raise \
             memory_limit",
            gb(need),
            sc.flows.len(),
            FLOW_BYTES >> 10,
            2 * sc.links.len(),
            sc.series_rows,
            gb(limit)
        ),
    })
}

fn gb(b: u64) -> String {
    format!("{:.2} GB", b as f64 / 1e9)
}

/// Total memory from /proc/meminfo (`None` where it cannot be read).
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The number given to the final sample: kept whatever the stride.
pub(crate) const FINAL: u64 = u64::MAX;

pub(crate) struct SeriesBudget {
    cap: usize,
    /// Only samples whose number is a multiple of `stride` are taken.
    pub(crate) stride: u64,
    next: u64,
    /// The sample number of every row of each series table.
    flow: Vec<u64>,
    link: Vec<u64>,
    trace: Vec<u64>,
}

impl SeriesBudget {
    pub(crate) fn new(cap: usize) -> SeriesBudget {
        SeriesBudget {
            cap,
            stride: 1,
            next: 0,
            flow: Vec::new(),
            link: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// Numbers the next sample; `None` when the stride skips it.
    pub(crate) fn admit(&mut self) -> Option<u64> {
        let k = self.next;
        self.next += 1;
        (k % self.stride == 0).then_some(k)
    }

    /// For interval sampling: how many intervals after sample `k` the next sample the
    /// stride admits falls (so skipped samples cost no events).
    pub(crate) fn intervals_after(&mut self, k: u64) -> u64 {
        let next = (k / self.stride + 1) * self.stride;
        self.next = next;
        next - k
    }

    /// Notes the rows sample `k` added to `res`, and thins the series if they are over
    /// the budget.
    pub(crate) fn record(&mut self, k: u64, res: &mut Results) {
        self.flow.resize(res.flow_series.rows(), k);
        self.link.resize(res.link_series.rows(), k);
        self.trace.resize(res.cc_trace.t_s.len(), k);
        while self.flow.len().max(self.link.len()).max(self.trace.len()) > self.cap {
            let before = self.flow.len() + self.link.len() + self.trace.len();
            let stride = self.stride * 2;
            let keep = |ks: &mut Vec<u64>| -> Vec<bool> {
                let mask: Vec<bool> = ks.iter().map(|&k| k == FINAL || k % stride == 0).collect();
                ks.retain(|&k| k == FINAL || k % stride == 0);
                mask
            };
            res.flow_series.retain_rows(&keep(&mut self.flow));
            res.link_series.retain_rows(&keep(&mut self.link));
            res.cc_trace.retain(&keep(&mut self.trace));
            self.stride = stride;
            if self.flow.len() + self.link.len() + self.trace.len() == before {
                break; // one sample alone is over the budget: keep it
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::{ColumnDef, Metrics};

    const K: ColumnDef = ColumnDef::new("k", "", "the sample's number");

    fn sample(b: &mut SeriesBudget, res: &mut Results, k: u64) {
        let mut row = res.flow_series.row();
        row.put(&K, k.into());
        drop(row);
        b.record(k, res);
    }

    #[test]
    fn thinning_keeps_every_stride_th_sample_within_the_cap() {
        let (mut b, mut res) = (SeriesBudget::new(10), Results::default());
        for _ in 0..100 {
            if let Some(k) = b.admit() {
                sample(&mut b, &mut res, k);
            }
        }
        sample(&mut b, &mut res, FINAL);
        let ks = res.flow_series.ints("k").unwrap();
        assert!(ks.len() <= 11, "{ks:?}");
        assert_eq!(b.stride, 16);
        // Evenly spaced over the whole run, plus the final sample.
        let want: Vec<u64> = (0..100).step_by(16).chain([FINAL]).collect();
        assert_eq!(ks, &want[..]);
    }
}
