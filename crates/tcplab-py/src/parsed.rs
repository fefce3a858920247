//! A scenario parsed once: Python's `Scenario` holds one of these, and running it,
//! drawing its links or writing their traces reuse it instead of parsing again.

use crate::convert::{dict_to_table, table_to_dict};
use crate::{guard, to_py_err};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use tcplab_sim::{parse_scenario_table, parse_toml, Scenario, SimError};

/// A validated scenario, ready to run (immutable; share it freely).
#[pyclass(frozen, module = "tcplab._tcplab")]
pub struct ParsedScenario {
    pub sc: Arc<Scenario>,
}

#[pymethods]
impl ParsedScenario {
    /// ``{name, flows, nodes, links, duration_s}``.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sc = &self.sc;
        let d = PyDict::new(py);
        d.set_item("name", &sc.name)?;
        d.set_item("flows", sc.flows.len())?;
        d.set_item(
            "nodes",
            sc.nodes.iter().map(|n| n.name.clone()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "links",
            sc.links.iter().map(|l| l.name.clone()).collect::<Vec<_>>(),
        )?;
        d.set_item("duration_s", sc.duration.map(|x| x.as_secs_f64()))?;
        Ok(d)
    }

    /// Refuses (`ScenarioError`) a scenario whose estimated memory exceeds its
    /// `memory_limit` (default 80 % of this machine's memory): the check `run` makes
    /// before it starts, so `tcplab check` passes exactly what `run` accepts.
    fn check_memory(&self) -> PyResult<()> {
        tcplab_sim::check_memory(&self.sc).map_err(|e| to_py_err(SimError::Config(e)))
    }

    /// Where the scenario came from (named in error messages).
    #[getter]
    fn source(&self) -> &str {
        &self.sc.source
    }
}

/// Parses and validates a scenario from TOML text or a dict (give exactly one). Returns
/// the parsed scenario and, for text, the document as a dict (else None).
#[pyfunction]
#[pyo3(signature = (source, text=None, dict=None))]
pub fn parse_scenario<'py>(
    py: Python<'py>,
    source: &str,
    text: Option<&str>,
    dict: Option<&Bound<'py, PyDict>>,
) -> PyResult<(ParsedScenario, Option<Bound<'py, PyDict>>)> {
    let (table, data) = match (text, dict) {
        (Some(t), None) => {
            let table = parse_toml(t, source).map_err(|e| to_py_err(SimError::Config(e)))?;
            let data = table_to_dict(py, &table)?;
            (table, Some(data))
        }
        (None, Some(d)) => (dict_to_table(d, source)?, None),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "give exactly one of text or dict",
            ))
        }
    };
    let sc = guard("parse", || parse_scenario_table(&table, source))?
        .map_err(|e| to_py_err(SimError::Config(e)))?;
    Ok((ParsedScenario { sc: Arc::new(sc) }, data))
}
