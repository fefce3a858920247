//! Tidy, columnar results: one row per flow, per link, per sample.
//!
//! Columns are plain vectors so the Python layer can hand them to Arrow without copying.
//! The scenario name, seed and replication are kept once in [`RunInfo`] and broadcast to
//! every row when tables are built.

/// Identifies a run; stamped on every row of every table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    pub scenario: String,
    pub seed: u64,
    pub replication: u32,
    /// Simulated time at the end of the run, seconds.
    pub end_time_s: f64,
    /// Events processed (including stale wake-ups skipped).
    pub events: u64,
    /// Packets delivered across one link direction (a packet crossing 3 links counts 3).
    pub packet_hops: u64,
}

/// One row per flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRows {
    pub flow: Vec<u32>,
    pub name: Vec<String>,
    pub cc: Vec<String>,
    pub recovery: Vec<String>,
    pub bytes_target: Vec<Option<u64>>,
    pub bytes_delivered: Vec<u64>,
    pub start_s: Vec<f64>,
    pub completion_s: Vec<Option<f64>>,
    pub completed: Vec<bool>,
    /// Delivered bytes over the time from start to completion (or end of run), bit/s.
    pub goodput_bps: Vec<f64>,
    pub segments_sent: Vec<u64>,
    pub retransmitted_segments: Vec<u64>,
    pub retransmission_ratio: Vec<f64>,
    pub rtos: Vec<u64>,
    pub fast_retransmits: Vec<u64>,
    /// RACK-TLP (loss_detection = "rack"): tail-loss probes sent, segments RACK marked lost.
    pub tlp_probes: Vec<u64>,
    pub rack_lost: Vec<u64>,
    pub rtt_min_s: Vec<Option<f64>>,
    pub rtt_mean_s: Vec<Option<f64>>,
    pub rtt_max_s: Vec<Option<f64>>,
    pub acks_sent: Vec<u64>,
}

/// Final counters, one row per link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkRows {
    pub link: Vec<String>,
    pub direction: Vec<&'static str>,
    pub offered_pkts: Vec<u64>,
    pub sent_pkts: Vec<u64>,
    pub sent_bytes: Vec<u64>,
    pub delivered_pkts: Vec<u64>,
    pub dropped_queue: Vec<u64>,
    pub dropped_loss: Vec<u64>,
    pub dropped_down: Vec<u64>,
    pub max_queue_pkts: Vec<u64>,
}

/// Per-flow time series (one row per flow per sample).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSeries {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<u64>,
    /// `None` while ssthresh is still infinite.
    pub ssthresh: Vec<Option<u64>>,
    pub srtt_s: Vec<Option<f64>>,
    /// Latest RTT sample (per-ACK sampling gives every sample).
    pub rtt_s: Vec<Option<f64>>,
    pub rto_s: Vec<f64>,
    pub in_flight: Vec<u64>,
    pub delivered: Vec<u64>,
    pub pacing_rate_bps: Vec<Option<f64>>,
    pub state: Vec<&'static str>,
}

/// Per-link-direction time series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkSeries {
    pub t_s: Vec<f64>,
    pub link: Vec<u32>,
    pub direction: Vec<&'static str>,
    pub queue_pkts: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    pub delivered_bytes: Vec<u64>,
    pub dropped_queue: Vec<u64>,
    pub dropped_loss: Vec<u64>,
    pub dropped_down: Vec<u64>,
}

/// Controller-specific variables in long form (t, flow, key, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcTrace {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub key: Vec<&'static str>,
    pub value: Vec<f64>,
}

/// Everything a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub info: RunInfo,
    pub flows: FlowRows,
    pub links: LinkRows,
    pub flow_series: FlowSeries,
    pub link_series: LinkSeries,
    pub cc_trace: CcTrace,
    /// Link names by index, for the `link` column of the link series.
    pub link_names: Vec<String>,
}

impl Results {
    /// A stable 64-bit digest of every table (FNV-1a over a canonical rendering).
    /// Two runs with the same scenario and seed must give the same digest.
    pub fn digest(&self) -> u64 {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        // Debug output of plain vectors and floats is deterministic and lossless for f64.
        h.write(format!("{:?}", self.flows).as_bytes());
        h.write(format!("{:?}", self.links).as_bytes());
        h.write(format!("{:?}", self.flow_series).as_bytes());
        h.write(format!("{:?}", self.link_series).as_bytes());
        h.write(format!("{:?}", self.cc_trace).as_bytes());
        h.write(format!("{:?}", self.info).as_bytes());
        h.0
    }
}

struct Fnv(u64);
impl Fnv {
    fn write(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}
