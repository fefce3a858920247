//! Python dict → TOML table, so scenarios built in Python get the same validation.

use crate::ScenarioError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toml::{Table, Value};

fn value(v: &Bound<'_, PyAny>, key: &str, source: &str) -> PyResult<Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| {
            ScenarioError::new_err(format!("{source}: {key} = {v}: integer out of range"))
        })?;
        return Ok(Value::Integer(i));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(Value::Table(table(d, key, source)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            out.push(value(&x?, &format!("{key}[{i}]"), source)?);
        }
        return Ok(Value::Array(out));
    }
    Err(ScenarioError::new_err(format!(
        "{source}: {key}: unsupported value of type {} (use str, int, float, bool, list or dict)",
        v.get_type().name()?
    )))
}

fn table(d: &Bound<'_, PyDict>, prefix: &str, source: &str) -> PyResult<Table> {
    let mut t = Table::new();
    for (k, v) in d.iter() {
        let k: String = k.extract().map_err(|_| {
            ScenarioError::new_err(format!("{source}: {prefix}: keys must be strings"))
        })?;
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if v.is_none() {
            continue; // None means "use the default".
        }
        t.insert(k, value(&v, &path, source)?);
    }
    Ok(t)
}

/// Converts a scenario dict; `source` names it in error messages.
pub fn dict_to_table(d: &Bound<'_, PyDict>, source: &str) -> PyResult<Table> {
    table(d, "", source)
}
