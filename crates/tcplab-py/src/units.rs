//! The scenario unit parser (`tcplab_core::units`) for Python: one parser for files,
//! sweeps, plot axes and sort keys, so `"10MiB"` means the same everywhere.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tcplab_core::units;

fn value_error(text: &str, what: &str, why: String) -> PyErr {
    PyValueError::new_err(format!("{text:?} is not a {what}: {why}"))
}

/// A duration in seconds: ``"1.5ms"`` → 0.0015 (units ns, us, µs, ms, s, min, h).
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<f64> {
    units::parse_duration(text)
        .map(|d| d.as_secs_f64())
        .map_err(|e| value_error(text, "duration", e))
}

/// A rate in bit/s: ``"100Mbps"`` → 100000000 (bps, kbps, Mbps, Gbps, Tbps; decimal).
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    units::parse_rate(text).map_err(|e| value_error(text, "rate", e))
}

/// A size in bytes: ``"10MiB"`` → 10485760 (B, KB, MB, GB decimal; KiB, MiB, GiB binary).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    units::parse_bytes(text).map_err(|e| value_error(text, "size", e))
}

/// A probability as a fraction: ``"0.5%"`` → 0.005, ``"0.25"`` → 0.25.
#[pyfunction]
fn parse_probability(text: &str) -> PyResult<f64> {
    units::parse_probability(text).map_err(|e| value_error(text, "probability", e))
}

/// Classifies and parses a value with a unit: returns ``(kind, value)`` with kind one of
/// ``"number"`` (no unit), ``"duration"`` (s), ``"rate"`` (bit/s), ``"size"`` (bytes) or
/// ``"probability"`` (a fraction, from a ``%`` value); ValueError if none fits.
#[pyfunction]
fn parse_quantity(text: &str) -> PyResult<(&'static str, f64)> {
    let t = text.trim();
    if let Ok(x) = t.parse::<f64>() {
        if x.is_finite() {
            return Ok(("number", x));
        }
    }
    if t.ends_with('%') {
        return units::parse_probability(t)
            .map(|p| ("probability", p))
            .map_err(|e| value_error(text, "probability", e));
    }
    if let Ok(d) = units::parse_duration(t) {
        return Ok(("duration", d.as_secs_f64()));
    }
    if let Ok(r) = units::parse_rate(t) {
        return Ok(("rate", r as f64));
    }
    if let Ok(b) = units::parse_bytes(t) {
        return Ok(("size", b as f64));
    }
    Err(PyValueError::new_err(format!(
        "{text:?} is not a number, duration (e.g. \"10ms\"), rate (\"100Mbps\"), size \
         (\"10MiB\") or percentage (\"0.5%\")"
    )))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(parse_probability, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    Ok(())
}
