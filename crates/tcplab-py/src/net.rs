//! `tcplab._tcplab` bindings for `tcplab-net`: the TUN link emulator (and, as they land,
//! the UDP driver and the kernel-TCP tool). Results leave as the simulator's tables plus
//! the emulator's per-packet log.

use crate::{convert, guard, to_py_err, ScenarioError};
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_pyarrow::ToPyArrow;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use std::time::Duration;
use tcplab_net::emu::{self, EmuConfig, EmuResults};
use tcplab_net::NetError;
use tcplab_sim::{Scenario, SimError};

create_exception!(
    _tcplab,
    NetworkError,
    PyOSError,
    "A real-network driver failed (privileges, devices, sockets, or a peer)."
);

pub(crate) fn net_err(e: NetError) -> PyErr {
    match e {
        NetError::Config(c) => to_py_err(SimError::Config(c)),
        other => NetworkError::new_err(other.to_string()),
    }
}

fn emulation_scenario(
    source: &str,
    text: Option<&str>,
    dict: Option<&Bound<'_, PyDict>>,
) -> PyResult<Scenario> {
    let table = match (text, dict) {
        (Some(t), None) => t.parse::<toml::Table>().map_err(|e| {
            ScenarioError::new_err(format!(
                "{source}: TOML syntax error: {}",
                e.to_string().trim()
            ))
        })?,
        (None, Some(d)) => convert::dict_to_table(d, source)?,
        _ => return Err(PyRuntimeError::new_err("give exactly one of text or dict")),
    };
    emu::emulation_scenario(&table, source).map_err(|e| to_py_err(SimError::Config(e)))
}

fn packets_batch(r: &EmuResults) -> PyResult<RecordBatch> {
    let p = &r.packets;
    let dirs = ["fwd", "rev"];
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "t_s",
            Arc::new(arrow_array::Float64Array::from_iter_values(
                p.t_ns.iter().map(|&t| t as f64 / 1e9),
            )),
        ),
        (
            "direction",
            Arc::new(StringArray::from_iter_values(
                p.direction.iter().map(|&d| dirs[d as usize]),
            )),
        ),
        (
            "event",
            Arc::new(StringArray::from_iter_values(
                p.event.iter().map(|e| e.name()),
            )),
        ),
        ("bytes", Arc::new(UInt32Array::from(p.bytes.clone()))),
        ("delay_ns", Arc::new(UInt64Array::from(p.delay_ns.clone()))),
        ("late_ns", Arc::new(UInt64Array::from(p.late_ns.clone()))),
    ];
    RecordBatch::try_from_iter(cols)
        .map_err(|e| PyRuntimeError::new_err(format!("building the packet log: {e}")))
}

/// Runs `argv` in an emulated namespace; returns (info, tables, exit code).
#[pyfunction]
#[pyo3(signature = (source, argv, seed=1, text=None, dict=None, timeout_s=None, realtime=true, packet_log=true))]
#[allow(clippy::too_many_arguments)]
fn emulate<'py>(
    py: Python<'py>,
    source: &str,
    argv: Vec<String>,
    seed: u64,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
    timeout_s: Option<f64>,
    realtime: bool,
    packet_log: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>, i32)> {
    let sc = emulation_scenario(source, text, dict)?;
    let mut cfg = EmuConfig::new(sc, seed).map_err(net_err)?;
    cfg.realtime = realtime;
    cfg.packet_log = packet_log;
    let link_name = cfg.scenario.links[0].name.clone();
    let timeout = timeout_s.map(Duration::from_secs_f64);
    let out = py.detach(|| guard("emulate", || emu::run_command(cfg, &argv, timeout)))?;
    let (res, status) = out.map_err(net_err)?;
    let code = status.code().unwrap_or_else(|| {
        128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)
    });
    let i = &res.info;
    let info = PyDict::new(py);
    info.set_item("scenario", &i.scenario)?;
    info.set_item("seed", i.seed)?;
    info.set_item("replication", 0)?;
    info.set_item("events", res.packets.len())?;
    info.set_item("end_time_s", i.duration_s)?;
    info.set_item("realtime", i.realtime)?;
    info.set_item("host_if", &i.host_if)?;
    info.set_item("ns_if", &i.ns_if)?;
    info.set_item("host_addr", &i.host_addr)?;
    info.set_item("ns_addr", &i.ns_addr)?;
    info.set_item("in_flight_at_end", i.in_flight_at_end.to_vec())?;
    info.set_item("departures", i.departures)?;
    info.set_item("late_p50_s", i.late_p50_ns as f64 / 1e9)?;
    info.set_item("late_p99_s", i.late_p99_ns as f64 / 1e9)?;
    info.set_item("late_p999_s", i.late_p999_ns as f64 / 1e9)?;
    info.set_item("late_max_s", i.late_max_ns as f64 / 1e9)?;
    let packets = packets_batch(&res)?;
    let tables = crate::tables::to_pyarrow(py, res.to_results(&link_name))?;
    tables.set_item("packets", packets.to_pyarrow(py)?)?;
    Ok((info, tables, code))
}

/// True when this process may create namespaces and TUN devices; else the reason why not.
#[pyfunction]
fn emulator_available() -> (bool, Option<String>) {
    match emu::check_privileges("the link emulator") {
        Ok(()) => (true, None),
        Err(e) => (false, Some(e.to_string())),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NetworkError", m.py().get_type::<NetworkError>())?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulator_available, m)?)?;
    Ok(())
}
