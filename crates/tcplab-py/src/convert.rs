//! Python dict → TOML table, so scenarios built in Python get the same validation.
//!
//! The walk keeps the containers on its current path: a dict or list that contains itself
//! is reported instead of recursing until the stack overflows (which killed the
//! interpreter), and so is nesting deeper than any scenario needs.

use crate::ScenarioError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toml::{Table, Value};

/// Deepest nesting accepted; scenarios use about five levels (`link.schedule[0].to.loss`).
const MAX_DEPTH: usize = 64;

struct Walk<'s> {
    source: &'s str,
    /// Containers from the root to the value being converted.
    path: Vec<*mut pyo3::ffi::PyObject>,
}

impl Walk<'_> {
    fn err(&self, key: &str, why: &str) -> PyErr {
        ScenarioError::new_err(format!("{}: {key}: {why}", self.source))
    }

    /// Enters container `v` at `key`, refusing cycles and deep nesting.
    fn enter(&mut self, v: &Bound<'_, PyAny>, key: &str) -> PyResult<()> {
        if self.path.contains(&v.as_ptr()) {
            return Err(self.err(
                key,
                "the value refers to itself (a dict or list that contains itself)",
            ));
        }
        if self.path.len() >= MAX_DEPTH {
            return Err(self.err(key, &format!("nested more than {MAX_DEPTH} levels deep")));
        }
        self.path.push(v.as_ptr());
        Ok(())
    }

    fn value(&mut self, v: &Bound<'_, PyAny>, key: &str) -> PyResult<Value> {
        if v.is_instance_of::<PyBool>() {
            return Ok(Value::Boolean(v.extract()?));
        }
        if v.is_instance_of::<PyInt>() {
            let i: i64 = v
                .extract()
                .map_err(|_| self.err(&format!("{key} = {v}"), "integer out of range"))?;
            return Ok(Value::Integer(i));
        }
        if v.is_instance_of::<PyFloat>() {
            return Ok(Value::Float(v.extract()?));
        }
        if let Ok(s) = v.cast::<PyString>() {
            // A lone surrogate ("\ud800") is a str but not Unicode text.
            return s.extract::<String>().map(Value::String).map_err(|_| {
                self.err(
                    key,
                    "the string is not valid Unicode text (it holds a lone surrogate)",
                )
            });
        }
        if let Some(x) = numpy_scalar(v)? {
            // numpy.bool_, numpy.int64, ...: their Python value (`.item()`).
            return self.value(&x, key);
        }
        if let Ok(d) = v.cast::<PyDict>() {
            self.enter(v, key)?;
            let t = self.table(d, key)?;
            self.path.pop();
            return Ok(Value::Table(t));
        }
        if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            self.enter(v, key)?;
            let mut out = Vec::new();
            for (i, x) in v.try_iter()?.enumerate() {
                out.push(self.value(&x?, &format!("{key}[{i}]"))?);
            }
            self.path.pop();
            return Ok(Value::Array(out));
        }
        Err(self.err(
            key,
            &format!(
                "unsupported value of type {} (use str, int, float, bool, list or dict)",
                v.get_type().fully_qualified_name()?
            ),
        ))
    }

    fn table(&mut self, d: &Bound<'_, PyDict>, prefix: &str) -> PyResult<Table> {
        let mut t = Table::new();
        for (k, v) in d.iter() {
            let k: String = match k.cast::<PyString>() {
                Ok(s) => s.extract::<String>().map_err(|_| {
                    self.err(
                        if prefix.is_empty() {
                            "(top level)"
                        } else {
                            prefix
                        },
                        &format!(
                            "the key {} is not valid Unicode text (it holds a lone surrogate)",
                            s.repr().map(|r| r.to_string()).unwrap_or_default()
                        ),
                    )
                })?,
                Err(_) => return Err(self.err(prefix, "keys must be strings")),
            };
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if v.is_none() {
                continue; // None means "use the default".
            }
            t.insert(k, self.value(&v, &path)?);
        }
        Ok(t)
    }
}

/// A numpy scalar (`numpy.bool_`, `numpy.int64`, a 0-d array, ...) as the Python value its
/// `.item()` gives; None for anything else. Found without importing numpy.
fn numpy_scalar<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let module = v.get_type().module()?;
    let module: String = module.extract()?;
    if !(module == "numpy" || module.starts_with("numpy.")) {
        return Ok(None);
    }
    match v.getattr("ndim") {
        Ok(n) if n.extract::<usize>().is_ok_and(|n| n == 0) => Ok(Some(v.call_method0("item")?)),
        _ => Ok(None),
    }
}

/// Converts a scenario dict; `source` names it in error messages.
pub fn dict_to_table(d: &Bound<'_, PyDict>, source: &str) -> PyResult<Table> {
    let mut w = Walk {
        source,
        path: vec![d.as_ptr()],
    };
    w.table(d, "")
}

/// A TOML table as a Python dict (the inverse of [`dict_to_table`]): so Python reads a
/// scenario file through the same TOML parser as the simulator. Datetimes become strings.
pub fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, value_to_py(py, v)?)?;
    }
    Ok(d)
}

fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(x) => PyFloat::new(py, *x).into_any(),
        Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Datetime(dt) => PyString::new(py, &dt.to_string()).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| value_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Table(t) => table_to_dict(py, t)?.into_any(),
    })
}
