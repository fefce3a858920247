//! `tcplab._tcplab`: the Rust core as seen from Python.
//!
//! Scenarios arrive as TOML text or as plain Python dicts and are parsed once into a
//! `ParsedScenario` that runs, figures and traces share; results leave as pyarrow
//! record batches (zero-copy through the Arrow C data interface). Errors become Python
//! exceptions with the file, key, value and reason; a Rust panic becomes
//! `tcplab.SimulationPanic` instead of aborting the interpreter.

mod capture;
mod coding;
mod convert;
mod links;
mod net;
mod packet_columns;
mod parsed;
mod tables;
mod units;

use parsed::ParsedScenario;
use pyo3::create_exception;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use tcplab_sim::capture::Tap;
use tcplab_sim::{parse_scenario_str, simulate_tapped, simulate_with, Scenario, SimError};

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
        i @ SimError::Interrupted { .. } => PyKeyboardInterrupt::new_err(i.to_string()),
        s @ SimError::Stalled { .. } => PyRuntimeError::new_err(s.to_string()),
    }
}

/// Bumped by [`cancel_runs`]: a run that sees it change since it started stops.
static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Stops every simulation running now in this process (on any thread) within a few
/// milliseconds; each raises `KeyboardInterrupt`. Python delivers Ctrl-C to the main
/// thread only, so a sweep on threads calls this when it is interrupted.
#[pyfunction]
fn cancel_runs() {
    CANCELLED.fetch_add(1, Ordering::SeqCst);
}

/// The run-control hook of a run started now: stops it on a pending Python signal
/// (Ctrl-C), on [`cancel_runs`], or past `time_limit_s` of wall-clock time, leaving the
/// exception to raise in `pending`.
fn run_control<'a>(
    sc: &'a Scenario,
    (seed, replication): (u64, u32),
    time_limit_s: Option<f64>,
    pending: &'a mut Option<PyErr>,
) -> impl FnMut() -> bool + 'a {
    let start = std::time::Instant::now();
    let generation = CANCELLED.load(Ordering::SeqCst);
    move || {
        if CANCELLED.load(Ordering::SeqCst) != generation {
            *pending = Some(PyKeyboardInterrupt::new_err("interrupted"));
            return false;
        }
        if let Some(limit) = time_limit_s {
            if start.elapsed().as_secs_f64() > limit {
                *pending = Some(PyTimeoutError::new_err(format!(
                    "scenario '{}' (seed {seed}, replication {replication}) exceeded \
                     its time limit of {limit} s",
                    sc.name
                )));
                return false;
            }
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => true,
            Err(e) => {
                *pending = Some(e);
                false
            }
        }
    }
}

/// Simulates with the GIL released, checking for Python signals (Ctrl-C) while it runs:
/// a pending `KeyboardInterrupt` (or an exception from another signal handler) stops the
/// run within a few milliseconds and is raised here, as does [`cancel_runs`]. Past
/// `time_limit_s` of wall-clock time the run stops with `TimeoutError` (sweeps use it so
/// one point cannot hang them).
fn simulate_interruptible(
    py: Python<'_>,
    sc: &Scenario,
    seed: u64,
    replication: u32,
    time_limit_s: Option<f64>,
    tap: Option<&mut (dyn Tap + Send)>,
) -> PyResult<tcplab_sim::Results> {
    if let Some(t) = time_limit_s {
        if !(t > 0.0 && t.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "time_limit must be a finite number of seconds > 0 (or None), not {t}"
            )));
        }
    }
    let mut pending: Option<PyErr> = None;
    let res = py.detach(|| {
        guard("simulate", || {
            let mut control = run_control(sc, (seed, replication), time_limit_s, &mut pending);
            let tap = tap.map(|t| t as &mut dyn Tap);
            simulate_tapped(sc, seed, replication, Some(&mut control), tap)
        })
    })?;
    if let Some(e) = pending {
        return Err(e);
    }
    res.map_err(to_py_err)
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

/// Simulates a parsed scenario; returns (info dict, {table name: pyarrow.RecordBatch}).
/// `time_limit_s` bounds the wall-clock time of the simulation (`TimeoutError`).
/// With `pcap_link` and `pcap_path`, the packets that link carries are written to
/// `pcap_path` as pcapng (see `capture::open`); `info["pcap"]` says what was written.
#[pyfunction]
#[pyo3(signature = (scenario, seed, replication=0, time_limit_s=None,
                    pcap_link=None, pcap_path=None, pcap_direction="both",
                    pcap_snaplen=capture::DEFAULT_SNAPLEN))]
#[allow(clippy::too_many_arguments)] // keyword arguments from Python
fn run<'py>(
    py: Python<'py>,
    scenario: &ParsedScenario,
    seed: u64,
    replication: u32,
    time_limit_s: Option<f64>,
    pcap_link: Option<&str>,
    pcap_path: Option<std::path::PathBuf>,
    pcap_direction: &str,
    pcap_snaplen: u32,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let sc = scenario.sc.clone();
    let mut cap = match (pcap_link, pcap_path) {
        (None, None) => None,
        (Some(link), Some(path)) => Some(capture::open(
            &sc,
            (seed, replication),
            link,
            pcap_direction,
            pcap_snaplen,
            path,
        )?),
        _ => {
            return Err(PyValueError::new_err(
                "pcap: give both pcap_link and pcap_path, or neither",
            ))
        }
    };
    // The GIL is released: sweeps may run simulations on several threads.
    let tap = cap
        .as_mut()
        .map(|c| &mut c.capture as &mut (dyn Tap + Send));
    let res = simulate_interruptible(py, &sc, seed, replication, time_limit_s, tap);
    // Whatever happened, the packets seen so far are flushed to the file.
    let pcap = cap.map(|c| c.finish(py)).transpose()?;
    let res = res?;
    let info = PyDict::new(py);
    if let Some(p) = pcap {
        info.set_item("pcap", p)?;
    }
    info.set_item("scenario", &res.info.scenario)?;
    info.set_item("seed", res.info.seed)?;
    info.set_item("replication", res.info.replication)?;
    info.set_item("events", res.info.events)?;
    info.set_item("packet_hops", res.info.packet_hops)?;
    info.set_item("end_time_s", res.info.end_time_s)?;
    info.set_item("end_reason", res.info.end_reason)?;
    info.set_item("series_stride", res.info.series_stride)?;
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
    let sc = guard("parse", || parse_scenario_str(text, source))?
        .map_err(|e| to_py_err(SimError::Config(e)))?;
    // Interruptible like `run`: the hook costs one atomic load and a signal check every
    // 65,536 events, nothing measurable beside the events themselves.
    let mut pending: Option<PyErr> = None;
    let (res, wall) = py.detach(|| {
        guard("simulate", || {
            let mut control = run_control(&sc, (seed, 0), None, &mut pending);
            let t0 = std::time::Instant::now();
            let r = simulate_with(&sc, seed, 0, Some(&mut control));
            (r, t0.elapsed().as_secs_f64())
        })
    })?;
    if let Some(e) = pending {
        return Err(e);
    }
    let res = res.map_err(to_py_err)?;
    let d = PyDict::new(py);
    d.set_item("wall_s", wall)?;
    d.set_item("events", res.info.events)?;
    d.set_item("packet_hops", res.info.packet_hops)?;
    d.set_item("end_time_s", res.info.end_time_s)?;
    Ok(d)
}

/// The names `cc = "..."` accepts: the built-in controllers (aliases included).
#[pyfunction]
fn congestion_controls() -> Vec<&'static str> {
    tcplab_transport::cc::BUILTIN.to_vec()
}

/// The names `transport = "..."` accepts: built-ins first, then registered ones.
#[pyfunction]
fn transports() -> Vec<String> {
    tcplab_transport::transport::names()
}

/// One declared column as Python sees it: (name, unit, description, low, high).
type ColumnRow = (&'static str, &'static str, &'static str, f64, f64);

/// The results columns, each declared in Rust beside the code that publishes it: table →
/// list of (name, unit, description, low, high), in the order a row writes them (the
/// simulator's tables, then the emulator's packet log). `tcplab.columns` builds its
/// reference from this.
#[pyfunction]
fn columns() -> Vec<(&'static str, Vec<ColumnRow>)> {
    let row = |c: &tcplab_core::ColumnDef| (c.name, c.unit, c.description, c.low, c.high);
    let mut tables: Vec<_> = tcplab_sim::columns()
        .into_iter()
        .map(|t| (t.table, t.columns.iter().map(row).collect()))
        .collect();
    tables.push(("packets", packet_columns::ALL.iter().map(row).collect()));
    tables
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
    m.add_class::<ParsedScenario>()?;
    m.add_function(wrap_pyfunction!(parsed::parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(bench_run, m)?)?;
    m.add_function(wrap_pyfunction!(cancel_runs, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(transports, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    // submodules register here
    coding::register(m)?;
    net::register(m)?;
    units::register(m)?;
    links::register(m)?;
    Ok(())
}
