//! One flow's samples in the simulator's table layout, so results from real sockets land
//! in the same tables (and figures) as simulated ones; its row is a
//! [`tcplab_scenario::FlowOutcome`] and a [`tcplab_transport::TcpSummary`], as a
//! simulated TCP flow's is.

use std::borrow::Cow;
use tcplab_core::{Metrics, Value};
use tcplab_scenario::row_labels::{FLOW, T_S};
use tcplab_scenario::{Data, FlowOutcome, Table};
use tcplab_transport::series_columns::{
    CWND, DELIVERED, IN_FLIGHT, PACING_RATE, RTO, RTT, SRTT, SSTHRESH, STATE,
};

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
        s.put(&T_S, self.t_s.into());
        s.put(&FLOW, u64::from(self.flow).into());
        s.put(&CWND, self.cwnd.into());
        s.put(&SSTHRESH, self.ssthresh.into());
        s.put(&SRTT, self.srtt_s.into());
        s.put(&RTT, self.rtt_s.into());
        s.put(&RTO, self.rto_s.into());
        s.put(&IN_FLIGHT, self.in_flight.into());
        s.put(&PACING_RATE, self.pacing_rate_bps.into());
        s.put(&STATE, self.state.into());
        s.put(&DELIVERED, self.delivered.into());
    }
}

/// Appends every row of `from` to `to`, giving it flow number `flow` and shifting the
/// time columns (`t_s`, `start_s`, `completion_s`) by `off` seconds: one flow's tables
/// into a multi-flow run's.
pub fn append_flow(to: &mut Table, from: &Table, flow: u32, off: f64) {
    let shifted = [
        T_S.name,
        FlowOutcome::START.name,
        FlowOutcome::COMPLETION.name,
    ];
    for r in 0..from.rows() {
        let mut row = to.row();
        for c in from.columns() {
            let Cow::Borrowed(key) = c.name else { continue };
            let null = c.is_null(r);
            let v = match (&c.data, key) {
                (_, k) if k == FLOW.name => Value::Int(Some(u64::from(flow))),
                (Data::Int(v), _) => Value::Int((!null).then(|| v[r])),
                (Data::Float(v), k) => {
                    let shift = if shifted.contains(&k) { off } else { 0.0 };
                    Value::Float((!null).then(|| v[r] + shift))
                }
                (Data::Bool(v), _) => Value::Bool(v[r]),
                (Data::Text { codes, dict }, _) => {
                    Value::Text(dict.get(codes[r] as usize).map_or("", String::as_str))
                }
            };
            row.put_named(key, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_scenario::row_labels;
    use tcplab_transport::series_columns::{DELIVERED, TCP_SENDER};

    /// One flow's rows join a multi-flow table under its own number, its time columns
    /// shifted, the others as they were.
    #[test]
    fn append_flow_renumbers_and_shifts() {
        let mut one = Table::default();
        let mut r = one.row();
        r.put(&FLOW, 0u64.into());
        r.put(&FlowOutcome::START, 0.5.into());
        r.put(&FlowOutcome::GOODPUT, 8.0.into());
        drop(r);
        let mut all = Table::default();
        append_flow(&mut all, &one, 3, 2.0);
        assert_eq!(all.ints("flow").unwrap(), [3]);
        assert_eq!(all.floats("start_s").unwrap(), [2.5]);
        assert_eq!(all.floats("goodput_bps").unwrap(), [8.0]);
    }

    /// A real flow's sample row holds the simulator's `flow_series` columns, as declared
    /// beside the simulated TCP sender's `sample` (so the reference covers it).
    #[test]
    fn a_sample_holds_declared_columns() {
        let mut t = Table::default();
        FlowSample::default().push_to(&mut t);
        let declared: Vec<&str> = row_labels::FLOW_SERIES
            .iter()
            .chain(&TCP_SENDER)
            .chain([&DELIVERED])
            .map(|c| c.name)
            .collect();
        for c in t.columns() {
            assert!(declared.contains(&&*c.name), "{} is not declared", c.name);
        }
        assert_eq!(t.columns().len(), 11);
    }
}
