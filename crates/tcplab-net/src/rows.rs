//! One flow's row and samples in the simulator's table layout, so results from real
//! sockets land in the same tables (and figures) as simulated ones.
//! Published through the same `Metrics` route as the simulator's, under the same names.

use std::borrow::Cow;
use tcplab_core::{Metrics, Value};
use tcplab_scenario::{Data, Table};

/// Every column of the simulator's `flows` table for one flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRow {
    pub flow: u32,
    pub name: String,
    pub cc: String,
    pub recovery: String,
    pub bytes_target: Option<u64>,
    pub bytes_delivered: u64,
    pub start_s: f64,
    pub completion_s: Option<f64>,
    pub completed: bool,
    pub goodput_bps: f64,
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub rtos: u64,
    pub fast_retransmits: u64,
    pub tlp_probes: u64,
    pub rack_lost: u64,
    pub undos: u64,
    pub rtt_min_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    pub acks_sent: u64,
}

impl FlowRow {
    pub fn push_to(&self, t: &mut Table) {
        let mut r = t.row();
        r.put("flow", u64::from(self.flow).into());
        r.put("name", self.name.as_str().into());
        r.put("transport", "tcp".into());
        r.put("cc", self.cc.as_str().into());
        r.put("bytes_target", self.bytes_target.into());
        r.put("bytes_delivered", self.bytes_delivered.into());
        r.put("start_s", self.start_s.into());
        r.put("completion_s", self.completion_s.into());
        r.put("completed", self.completed.into());
        r.put("goodput_bps", self.goodput_bps.into());
        r.put("recovery", self.recovery.as_str().into());
        r.put("segments_sent", self.segments_sent.into());
        r.put("retransmitted_segments", self.retransmitted_segments.into());
        let ratio = if self.segments_sent > 0 {
            self.retransmitted_segments as f64 / self.segments_sent as f64
        } else {
            0.0
        };
        r.put("retransmission_ratio", ratio.into());
        r.put("rtos", self.rtos.into());
        r.put("fast_retransmits", self.fast_retransmits.into());
        r.put("tlp_probes", self.tlp_probes.into());
        r.put("rack_lost", self.rack_lost.into());
        r.put("undos", self.undos.into());
        r.put("rtt_min_s", self.rtt_min_s.into());
        r.put("rtt_mean_s", self.rtt_mean_s.into());
        r.put("rtt_max_s", self.rtt_max_s.into());
        r.put("acks_sent", self.acks_sent.into());
    }
}

/// One sample of the simulator's `flow_series` table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowSample {
    pub t_s: f64,
    pub flow: u32,
    pub cwnd: u64,
    pub ssthresh: Option<u64>,
    pub srtt_s: Option<f64>,
    pub rtt_s: Option<f64>,
    pub rto_s: f64,
    pub in_flight: u64,
    pub delivered: u64,
    pub pacing_rate_bps: Option<f64>,
    pub state: &'static str,
}

impl FlowSample {
    pub fn push_to(&self, t: &mut Table) {
        let mut s = t.row();
        s.put("t_s", self.t_s.into());
        s.put("flow", u64::from(self.flow).into());
        s.put("cwnd", self.cwnd.into());
        s.put("ssthresh", self.ssthresh.into());
        s.put("srtt_s", self.srtt_s.into());
        s.put("rtt_s", self.rtt_s.into());
        s.put("rto_s", self.rto_s.into());
        s.put("in_flight", self.in_flight.into());
        s.put("pacing_rate_bps", self.pacing_rate_bps.into());
        s.put("state", self.state.into());
        s.put("delivered", self.delivered.into());
    }
}

/// Appends every row of `from` to `to`, giving it flow number `flow` and shifting the
/// time columns (`t_s`, `start_s`, `completion_s`) by `off` seconds: one flow's tables
/// into a multi-flow run's.
pub fn append_flow(to: &mut Table, from: &Table, flow: u32, off: f64) {
    const SHIFTED: [&str; 3] = ["t_s", "start_s", "completion_s"];
    for r in 0..from.rows() {
        let mut row = to.row();
        for c in from.columns() {
            let Cow::Borrowed(key) = c.name else { continue };
            let null = c.is_null(r);
            let v = match (&c.data, key) {
                (_, "flow") => Value::Int(Some(u64::from(flow))),
                (Data::Int(v), _) => Value::Int((!null).then(|| v[r])),
                (Data::Float(v), k) => {
                    let shift = if SHIFTED.contains(&k) { off } else { 0.0 };
                    Value::Float((!null).then(|| v[r] + shift))
                }
                (Data::Bool(v), _) => Value::Bool(v[r]),
                (Data::Text { codes, dict }, _) => {
                    Value::Text(dict.get(codes[r] as usize).map_or("", String::as_str))
                }
            };
            row.put(key, v);
        }
    }
}
