//! `tcplab._tcplab`: the Rust core as seen from Python.
//!
//! Scenarios arrive as TOML text or as plain Python dicts, results leave as pyarrow
//! record batches (zero-copy through the Arrow C data interface). Errors become Python
//! exceptions with the file, key, value and reason; a Rust panic becomes
//! `tcplab.SimulationPanic` instead of aborting the interpreter.

mod coding;
mod convert;
mod net;
mod tables;

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tcplab_sim::{parse_scenario_str, parse_scenario_table, simulate, Scenario, SimError};

create_exception!(
    _tcplab,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run as written (file, key, value, why)."
);
create_exception!(
    _tcplab,
    InvariantError,
    PyRuntimeError,
    "A run broke a transport invariant (e.g. data lost or duplicated)."
);
create_exception!(
    _tcplab,
    SimulationPanic,
    PyRuntimeError,
    "An internal error (a Rust panic) in the simulator; please report it."
);

fn to_py_err(e: SimError) -> PyErr {
    match e {
        SimError::Config(c) => ScenarioError::new_err(c.to_string()),
        inv @ SimError::Invariant { .. } => InvariantError::new_err(inv.to_string()),
    }
}

/// Runs `f`, turning a panic into `SimulationPanic` with the panic message.
fn guard<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        SimulationPanic::new_err(format!("{what}: internal error: {msg}"))
    })
}

fn scenario_from(
    text: Option<&str>,
    dict: Option<&Bound<'_, PyDict>>,
    source: &str,
) -> PyResult<Scenario> {
    let parsed = match (text, dict) {
        (Some(t), None) => guard("parse", || parse_scenario_str(t, source))?,
        (None, Some(d)) => {
            let table = convert::dict_to_table(d, source)?;
            guard("parse", || parse_scenario_table(&table, source))?
        }
        _ => return Err(PyValueError::new_err("give exactly one of text or dict")),
    };
    parsed.map_err(|e| to_py_err(SimError::Config(e)))
}

/// Validates a scenario (TOML text or dict) and returns a short summary dict.
#[pyfunction]
#[pyo3(signature = (source, text=None, dict=None))]
fn check_scenario<'py>(
    py: Python<'py>,
    source: &str,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario_from(text, dict, source)?;
    let d = PyDict::new(py);
    d.set_item("name", &sc.name)?;
    d.set_item("flows", sc.flows.len())?;
    d.set_item(
        "links",
        sc.links.iter().map(|l| l.name.clone()).collect::<Vec<_>>(),
    )?;
    d.set_item("duration_s", sc.duration.map(|x| x.as_secs_f64()))?;
    Ok(d)
}

/// Simulates a scenario; returns (info dict, {table name: pyarrow.RecordBatch}).
#[pyfunction]
#[pyo3(signature = (source, seed, replication=0, text=None, dict=None))]
fn run<'py>(
    py: Python<'py>,
    source: &str,
    seed: u64,
    replication: u32,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let sc = scenario_from(text, dict, source)?;
    // The GIL is released: sweeps may run simulations on several threads.
    let res = py.detach(|| guard("simulate", || simulate(&sc, seed, replication)))?;
    let res = res.map_err(to_py_err)?;
    let info = PyDict::new(py);
    info.set_item("scenario", &res.info.scenario)?;
    info.set_item("seed", res.info.seed)?;
    info.set_item("replication", res.info.replication)?;
    info.set_item("events", res.info.events)?;
    info.set_item("packet_hops", res.info.packet_hops)?;
    info.set_item("end_time_s", res.info.end_time_s)?;
    info.set_item("digest", format!("{:016x}", res.digest()))?;
    let tables = tables::to_pyarrow(py, res)?;
    Ok((info, tables))
}

/// Runs a scenario for benchmarking: times the simulation alone (no table conversion).
#[pyfunction]
fn bench_run<'py>(
    py: Python<'py>,
    source: &str,
    text: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario_from(Some(text), None, source)?;
    let (res, wall) = py.detach(|| {
        guard("simulate", || {
            let t0 = std::time::Instant::now();
            let r = simulate(&sc, seed, 0);
            (r, t0.elapsed().as_secs_f64())
        })
    })?;
    let res = res.map_err(to_py_err)?;
    let d = PyDict::new(py);
    d.set_item("wall_s", wall)?;
    d.set_item("events", res.info.events)?;
    d.set_item("packet_hops", res.info.packet_hops)?;
    d.set_item("end_time_s", res.info.end_time_s)?;
    Ok(d)
}

/// Deliberately panics inside Rust: lets tests prove panics surface as exceptions.
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    guard("test", || panic!("deliberate panic"))
}

#[pymodule]
fn _tcplab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InvariantError", m.py().get_type::<InvariantError>())?;
    m.add("SimulationPanic", m.py().get_type::<SimulationPanic>())?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_run, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    // submodules register here
    coding::register(m)?;
    net::register(m)?;
    Ok(())
}
