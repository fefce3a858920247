//! Links over time, for figures and trace files: each link's schedule as data, and the
//! delivery opportunities a link direction offered (also as a Mahimahi trace).

use crate::parsed::ParsedScenario;
use crate::ScenarioError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tcplab_core::{Dur, Time};
use tcplab_link::LinkParams;
use tcplab_sim::{Duplex, LinkSpec, Scenario};

fn params<'py>(py: Python<'py>, p: &LinkParams) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("up", p.up)?;
    d.set_item("rate_bps", p.trace.is_none().then_some(p.rate_bps))?;
    d.set_item("trace", p.trace.is_some())?;
    d.set_item(
        "trace_mean_rate_bps",
        p.trace.as_ref().map(|t| t.mean_rate_bps()),
    )?;
    d.set_item("delay_s", p.delay.as_secs_f64())?;
    Ok(d)
}

/// Each link's parameters and scheduled changes (handovers appear as a change to
/// ``up = False`` and one back): a list of dicts ``{name, duplex, fwd, rev, changes}``,
/// ``changes`` being ``[{at_s, fwd, rev}]``; parameters are ``{up, rate_bps (None when a
/// trace drives the link), trace, trace_mean_rate_bps, delay_s}``.
#[pyfunction]
fn link_timeline<'py>(py: Python<'py>, scenario: &ParsedScenario) -> PyResult<Bound<'py, PyList>> {
    let sc = &scenario.sc;
    let out = PyList::empty(py);
    for l in &sc.links {
        let d = PyDict::new(py);
        d.set_item("name", &l.name)?;
        d.set_item(
            "duplex",
            if l.duplex == Duplex::Full {
                "full"
            } else {
                "half"
            },
        )?;
        d.set_item("fwd", params(py, &l.fwd)?)?;
        d.set_item("rev", params(py, &l.rev)?)?;
        let changes = PyList::empty(py);
        for c in &l.schedule {
            let e = PyDict::new(py);
            e.set_item("at_s", c.at.as_secs_f64())?;
            e.set_item("fwd", params(py, &c.fwd)?)?;
            e.set_item("rev", params(py, &c.rev)?)?;
            changes.append(e)?;
        }
        d.set_item("changes", changes)?;
        out.append(d)?;
    }
    Ok(out)
}

fn find<'a>(sc: &'a Scenario, link: &str, direction: &str) -> PyResult<(&'a LinkSpec, bool)> {
    let names = || {
        sc.links
            .iter()
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let l = sc.links.iter().find(|l| l.name == link).ok_or_else(|| {
        ScenarioError::new_err(format!(
            "{}: no link named '{link}' (links: {})",
            sc.source,
            names()
        ))
    })?;
    let reverse = match (direction, l.duplex) {
        ("fwd", _) | ("shared", Duplex::Half) => false,
        ("rev", Duplex::Full) => true,
        _ => {
            return Err(ScenarioError::new_err(format!(
                "{}: link '{link}': direction '{direction}' is not one of {}",
                sc.source,
                if l.duplex == Duplex::Full {
                    "fwd, rev"
                } else {
                    "fwd, shared (a half-duplex link)"
                }
            )))
        }
    };
    Ok((l, reverse))
}

fn opportunities(
    scenario: &ParsedScenario,
    link: &str,
    direction: &str,
    until_s: f64,
) -> PyResult<(Vec<u64>, Time)> {
    let sc = &scenario.sc;
    let source = &sc.source;
    if !(until_s.is_finite() && until_s > 0.0) {
        return Err(ScenarioError::new_err(format!(
            "{source}: until = {until_s}: must be a positive number of seconds"
        )));
    }
    let (l, reverse) = find(sc, link, direction)?;
    let pick = |fwd: &'_ LinkParams, rev: &'_ LinkParams| -> LinkParams {
        if reverse {
            rev.clone()
        } else {
            fwd.clone()
        }
    };
    let initial = pick(&l.fwd, &l.rev);
    let changed: Vec<(Time, LinkParams)> = l
        .schedule
        .iter()
        .map(|c| (Time::ZERO + c.at, pick(&c.fwd, &c.rev)))
        .collect();
    let refs: Vec<(Time, &LinkParams)> = changed.iter().map(|(t, p)| (*t, p)).collect();
    let until = Time::ZERO + Dur::from_secs_f64(until_s);
    let times = tcplab_link::realised_opportunities(&initial, &refs, until).map_err(|why| {
        ScenarioError::new_err(format!("{source}: link '{link}' {direction}: {why}"))
    })?;
    Ok((times, until))
}

/// Times (integer ns) of the delivery opportunities of 1500 bytes that a link direction
/// (``"fwd"``, ``"rev"``; ``"shared"`` for a half-duplex link) offers in ``[0, until_s)``,
/// replaying its rate or trace, schedule and outages.
#[pyfunction]
fn link_opportunities(
    scenario: &ParsedScenario,
    link: &str,
    direction: &str,
    until_s: f64,
) -> PyResult<Vec<u64>> {
    Ok(opportunities(scenario, link, direction, until_s)?.0)
}

/// The same opportunities as Mahimahi trace text (one millisecond timestamp per line;
/// the last line is ``until_s`` so the trace repeats with the run's length).
#[pyfunction]
fn mahimahi_trace(
    scenario: &ParsedScenario,
    link: &str,
    direction: &str,
    until_s: f64,
) -> PyResult<String> {
    let source = &scenario.sc.source;
    let (times, until) = opportunities(scenario, link, direction, until_s)?;
    let trace = tcplab_link::to_mahimahi(&times, until)
        .map_err(|why| ScenarioError::new_err(format!("{source}: link '{link}': {why}")))?;
    Ok(trace.to_text())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(link_timeline, m)?)?;
    m.add_function(wrap_pyfunction!(link_opportunities, m)?)?;
    m.add_function(wrap_pyfunction!(mahimahi_trace, m)?)?;
    Ok(())
}
