//! The series tables: samples of every flow and link direction while the run goes.
//!
//! A sample is taken every interval of virtual time, after every packet a flow's source
//! processes (`sample = "per_ack"`), or never; the series budget ([`crate::budget`])
//! thins the tables when they grow past `series_rows`. A flow's row holds what its two
//! endpoints publish, a link's what its medium publishes.

use crate::budget::{SeriesBudget, FINAL};
use crate::flow::{Flow, SINK, SOURCE};
use crate::media::Wiring;
use tcplab_core::{ColumnDef, Metrics, Time, Value};
use tcplab_scenario::row_labels::{DIRECTION, FLOW, LINK, T_S};
use tcplab_scenario::{Results, Row, Trace};
use tcplab_scenario::{Sampling, Scenario};
use tcplab_transport::{AnyEndpoint, Endpoint};

/// The run's results and the budget that keeps its series in bounds.
pub(crate) struct Recorder {
    pub res: Results,
    budget: SeriesBudget,
}

impl Recorder {
    pub fn new(res: Results, series_rows: usize) -> Recorder {
        Recorder {
            res,
            budget: SeriesBudget::new(series_rows),
        }
    }

    /// The sample after a packet reached flow `flow`'s source (`sample = "per_ack"`).
    pub fn after_ack(&mut self, now: Time, flow: usize, ends: &[AnyEndpoint; 2]) {
        if let Some(k) = self.budget.admit() {
            flow_row(&mut self.res, now, flow, ends);
            self.budget.record(k, &mut self.res);
        }
    }

    /// A sample of every running flow and every link direction, if the budget keeps it;
    /// then the intervals until the next sample it keeps.
    pub fn sample(
        &mut self,
        now: Time,
        sc: &Scenario,
        flows: &[Flow],
        wiring: &mut Wiring,
    ) -> Option<u64> {
        let k = self.budget.admit()?;
        all_rows(&mut self.res, now, sc, flows, wiring);
        self.budget.record(k, &mut self.res);
        Some(self.budget.intervals_after(k))
    }

    /// The end of the run: the last sample (always kept), and series tables without
    /// samples (`sample = "off"`) still get their columns, so that the schema does not
    /// depend on the sampling.
    pub fn finish(
        &mut self,
        now: Time,
        sc: &Scenario,
        flows: &[Flow],
        wiring: &mut Wiring,
    ) -> &mut Results {
        let res = &mut self.res;
        if !matches!(sc.sampling, Sampling::Off) {
            all_rows(res, now, sc, flows, wiring);
            self.budget.record(FINAL, res);
        }
        res.info.series_stride = self.budget.stride;
        // Publish one sample of everything, and drop it.
        if res.flow_series.rows() == 0 {
            res.flow_series.declaring(true);
            for (f, fl) in flows.iter().enumerate() {
                flow_row(res, now, f, &fl.ends);
            }
            res.flow_series.declaring(false);
            res.cc_trace = Trace::default();
        }
        if res.link_series.rows() == 0 {
            res.link_series.declaring(true);
            link_rows(res, now, sc, wiring);
            res.link_series.declaring(false);
        }
        res
    }
}

/// One row of every flow that has started and not finished, and one of every link
/// direction.
fn all_rows(res: &mut Results, now: Time, sc: &Scenario, flows: &[Flow], wiring: &mut Wiring) {
    for (f, fl) in flows.iter().enumerate() {
        if fl.sampled() {
            flow_row(res, now, f, &fl.ends);
        }
    }
    link_rows(res, now, sc, wiring);
}

fn flow_row(res: &mut Results, now: Time, flow: usize, ends: &[AnyEndpoint; 2]) {
    let t = now.as_secs_f64();
    let mut s = FlowSample {
        row: res.flow_series.row(),
        trace: &mut res.cc_trace,
        t,
        flow: flow as u32,
    };
    s.put(&T_S, t.into());
    s.put(&FLOW, (flow as u64).into());
    ends[SOURCE].sample(&mut s);
    ends[SINK].sample(&mut s);
}

fn link_rows(res: &mut Results, now: Time, sc: &Scenario, wiring: &mut Wiring) {
    let t = now.as_secs_f64();
    for ch in &wiring.rows {
        let mut row = res.link_series.row();
        row.put(&T_S, t.into());
        let (link, direction) = ch.names(sc);
        row.put(&LINK, link.into());
        row.put(&DIRECTION, direction.into());
        wiring.media[ch.medium as usize].sample(ch.channel as usize, now, &mut row);
    }
}

/// A flow's sample row and the controller trace beside it.
struct FlowSample<'a> {
    row: Row<'a>,
    trace: &'a mut Trace,
    t: f64,
    flow: u32,
}

impl Metrics for FlowSample<'_> {
    #[inline]
    fn put(&mut self, column: &'static ColumnDef, v: Value<'_>) {
        self.row.put(column, v);
    }
    fn trace(&mut self, key: &'static str, v: f64) {
        let tr = &mut *self.trace;
        tr.t_s.push(self.t);
        tr.flow.push(self.flow);
        tr.key.push(key);
        tr.value.push(v);
    }
}
