//! One flow's row and samples in the simulator's table layout, so results from real
//! sockets land in the same tables (and figures) as simulated ones.
//!
//! (When the simulator's tables move to the `Metrics` publishing contract, these become
//! `put` calls; the column names stay.)

use tcplab_sim::{FlowRows, FlowSeries};

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
    pub rtt_min_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
    pub acks_sent: u64,
}

impl FlowRow {
    pub fn push_to(&self, r: &mut FlowRows) {
        r.flow.push(self.flow);
        r.name.push(self.name.clone());
        r.cc.push(self.cc.clone());
        r.recovery.push(self.recovery.clone());
        r.bytes_target.push(self.bytes_target);
        r.bytes_delivered.push(self.bytes_delivered);
        r.start_s.push(self.start_s);
        r.completion_s.push(self.completion_s);
        r.completed.push(self.completed);
        r.goodput_bps.push(self.goodput_bps);
        r.segments_sent.push(self.segments_sent);
        r.retransmitted_segments.push(self.retransmitted_segments);
        r.retransmission_ratio.push(if self.segments_sent > 0 {
            self.retransmitted_segments as f64 / self.segments_sent as f64
        } else {
            0.0
        });
        r.rtos.push(self.rtos);
        r.fast_retransmits.push(self.fast_retransmits);
        r.tlp_probes.push(self.tlp_probes);
        r.rack_lost.push(self.rack_lost);
        r.rtt_min_s.push(self.rtt_min_s);
        r.rtt_mean_s.push(self.rtt_mean_s);
        r.rtt_max_s.push(self.rtt_max_s);
        r.acks_sent.push(self.acks_sent);
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
    pub fn push_to(&self, s: &mut FlowSeries) {
        s.t_s.push(self.t_s);
        s.flow.push(self.flow);
        s.cwnd.push(self.cwnd);
        s.ssthresh.push(self.ssthresh);
        s.srtt_s.push(self.srtt_s);
        s.rtt_s.push(self.rtt_s);
        s.rto_s.push(self.rto_s);
        s.in_flight.push(self.in_flight);
        s.delivered.push(self.delivered);
        s.pacing_rate_bps.push(self.pacing_rate_bps);
        s.state.push(self.state);
    }
}
