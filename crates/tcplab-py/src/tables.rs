//! Results → pyarrow record batches, each row stamped with scenario, seed, replication.

use arrow_array::builder::StringDictionaryBuilder;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_pyarrow::ToPyArrow;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use tcplab_sim::{Results, RunInfo};

/// A categorical string column: repeated labels cost one index each.
fn dict_col<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    let mut b = StringDictionaryBuilder::<Int32Type>::new();
    for s in it {
        b.append_value(s);
    }
    Arc::new(b.finish())
}

fn u64c(v: Vec<u64>) -> ArrayRef {
    // Moves the vector into an Arrow buffer without copying.
    Arc::new(UInt64Array::from(v))
}
fn u32c(v: Vec<u32>) -> ArrayRef {
    Arc::new(UInt32Array::from(v))
}
fn f64c(v: Vec<f64>) -> ArrayRef {
    Arc::new(Float64Array::from(v))
}
fn of64c(v: Vec<Option<f64>>) -> ArrayRef {
    Arc::new(Float64Array::from(v))
}
fn ou64c(v: Vec<Option<u64>>) -> ArrayRef {
    Arc::new(UInt64Array::from(v))
}

/// Leading columns identifying the run, repeated for `n` rows.
fn stamp(info: &RunInfo, n: usize) -> Vec<(&'static str, ArrayRef)> {
    vec![
        (
            "scenario",
            dict_col(std::iter::repeat_n(info.scenario.as_str(), n)),
        ),
        ("seed", u64c(vec![info.seed; n])),
        ("replication", u32c(vec![info.replication; n])),
    ]
}

fn batch(cols: Vec<(&'static str, ArrayRef)>) -> PyResult<RecordBatch> {
    RecordBatch::try_from_iter(cols)
        .map_err(|e| PyRuntimeError::new_err(format!("building a results table: {e}")))
}

pub fn to_pyarrow<'py>(py: Python<'py>, r: Results) -> PyResult<Bound<'py, PyDict>> {
    let Results {
        info,
        flows: f,
        links: l,
        flow_series: fs,
        link_series: ls,
        cc_trace: ct,
        link_names,
    } = r;
    let out = PyDict::new(py);

    let n = f.flow.len();
    let mut cols = stamp(&info, n);
    cols.extend([
        ("flow", u32c(f.flow)),
        ("name", Arc::new(StringArray::from(f.name)) as ArrayRef),
        ("cc", dict_col(f.cc.iter().map(String::as_str))),
        ("recovery", dict_col(f.recovery.iter().map(String::as_str))),
        ("bytes_target", ou64c(f.bytes_target)),
        ("bytes_delivered", u64c(f.bytes_delivered)),
        ("start_s", f64c(f.start_s)),
        ("completion_s", of64c(f.completion_s)),
        (
            "completed",
            Arc::new(BooleanArray::from(f.completed)) as ArrayRef,
        ),
        ("goodput_bps", f64c(f.goodput_bps)),
        ("segments_sent", u64c(f.segments_sent)),
        ("retransmitted_segments", u64c(f.retransmitted_segments)),
        ("retransmission_ratio", f64c(f.retransmission_ratio)),
        ("rtos", u64c(f.rtos)),
        ("fast_retransmits", u64c(f.fast_retransmits)),
        ("tlp_probes", u64c(f.tlp_probes)),
        ("rack_lost", u64c(f.rack_lost)),
        ("rtt_min_s", of64c(f.rtt_min_s)),
        ("rtt_mean_s", of64c(f.rtt_mean_s)),
        ("rtt_max_s", of64c(f.rtt_max_s)),
        ("acks_sent", u64c(f.acks_sent)),
    ]);
    out.set_item("flows", batch(cols)?.to_pyarrow(py)?)?;

    let n = l.link.len();
    let mut cols = stamp(&info, n);
    cols.extend([
        ("link", dict_col(l.link.iter().map(String::as_str))),
        ("direction", dict_col(l.direction.iter().copied())),
        ("offered_pkts", u64c(l.offered_pkts)),
        ("sent_pkts", u64c(l.sent_pkts)),
        ("sent_bytes", u64c(l.sent_bytes)),
        ("delivered_pkts", u64c(l.delivered_pkts)),
        ("dropped_queue", u64c(l.dropped_queue)),
        ("dropped_loss", u64c(l.dropped_loss)),
        ("dropped_down", u64c(l.dropped_down)),
        ("max_queue_pkts", u64c(l.max_queue_pkts)),
    ]);
    out.set_item("links", batch(cols)?.to_pyarrow(py)?)?;

    let n = fs.t_s.len();
    let mut cols = stamp(&info, n);
    cols.extend([
        ("t_s", f64c(fs.t_s)),
        ("flow", u32c(fs.flow)),
        ("cwnd", u64c(fs.cwnd)),
        ("ssthresh", ou64c(fs.ssthresh)),
        ("srtt_s", of64c(fs.srtt_s)),
        ("rtt_s", of64c(fs.rtt_s)),
        ("rto_s", f64c(fs.rto_s)),
        ("in_flight", u64c(fs.in_flight)),
        ("delivered", u64c(fs.delivered)),
        ("pacing_rate_bps", of64c(fs.pacing_rate_bps)),
        ("state", dict_col(fs.state.iter().copied())),
    ]);
    out.set_item("flow_series", batch(cols)?.to_pyarrow(py)?)?;

    let n = ls.t_s.len();
    let mut cols = stamp(&info, n);
    cols.extend([
        ("t_s", f64c(ls.t_s)),
        (
            "link",
            dict_col(ls.link.iter().map(|&i| link_names[i as usize].as_str())),
        ),
        ("direction", dict_col(ls.direction.iter().copied())),
        ("queue_pkts", u64c(ls.queue_pkts)),
        ("queue_bytes", u64c(ls.queue_bytes)),
        ("delivered_bytes", u64c(ls.delivered_bytes)),
        ("dropped_queue", u64c(ls.dropped_queue)),
        ("dropped_loss", u64c(ls.dropped_loss)),
        ("dropped_down", u64c(ls.dropped_down)),
    ]);
    out.set_item("link_series", batch(cols)?.to_pyarrow(py)?)?;

    let n = ct.t_s.len();
    let mut cols = stamp(&info, n);
    cols.extend([
        ("t_s", f64c(ct.t_s)),
        ("flow", u32c(ct.flow)),
        ("key", dict_col(ct.key.iter().copied())),
        ("value", f64c(ct.value)),
    ]);
    out.set_item("cc_trace", batch(cols)?.to_pyarrow(py)?)?;
    Ok(out)
}
