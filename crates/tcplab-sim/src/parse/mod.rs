//! Strict TOML scenario parsing: units, ranges, unknown keys, all with clear errors.

use crate::error::ConfigError;
use crate::scenario::{Sampling, Scenario};
use tcplab_core::units;
use tcplab_core::Dur;
use toml::{Table, Value};

type R<T> = Result<T, ConfigError>;

mod flow;
mod jitter;
mod link;
mod section;
mod timevar;
mod topology;

use flow::parse_flow;
use link::parse_link;
use section::Section;
use topology::{default_access, parse_access_overrides};

/// Parses a scenario file.
pub fn parse_scenario_file(path: &str) -> R<Scenario> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.to_string(),
        key: String::new(),
        value: String::new(),
        why: format!("cannot read the file: {e}"),
    })?;
    parse_scenario_str(&text, path)
}

/// Parses scenario TOML text; `source` names it in error messages.
pub fn parse_scenario_str(text: &str, source: &str) -> R<Scenario> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
        file: source.to_string(),
        key: String::new(),
        value: String::new(),
        why: format!("TOML syntax error: {}", e.to_string().trim()),
    })?;
    parse_scenario_table(&table, source)
}

/// Parses an already-decoded TOML table (e.g. built from a Python dict).
pub fn parse_scenario_table(t: &Table, source: &str) -> R<Scenario> {
    let root = Section::new(source, String::new(), t);
    let name = root.string("name")?.map(str::to_string).unwrap_or_else(|| {
        std::path::Path::new(source)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".into())
    });
    let duration = root.duration("duration")?;
    if duration == Some(Dur::ZERO) {
        return Err(root.err("duration", root.table.get("duration"), "must be > 0"));
    }
    let max_time = root.duration("max_time")?.unwrap_or(Dur::from_secs(3600));
    let sampling = match root.get("sample") {
        None => Sampling::Interval(Dur::from_millis(10)),
        Some(Value::String(s)) if s == "ack" => Sampling::PerAck,
        Some(Value::String(s)) if s == "off" => Sampling::Off,
        Some(v @ Value::String(s)) => {
            let d = units::parse_duration(s).map_err(|why| {
                root.err(
                    "sample",
                    Some(v),
                    format!("{why}; or use \"ack\" or \"off\""),
                )
            })?;
            if d == Dur::ZERO {
                return Err(root.err("sample", Some(v), "the sampling interval must be > 0"));
            }
            Sampling::Interval(d)
        }
        Some(v) => {
            return Err(root.err(
                "sample",
                Some(v),
                "expected an interval like \"10ms\", \"ack\" or \"off\"",
            ))
        }
    };

    let topo = root.table("topology")?;
    let kind = match &topo {
        Some(s) => {
            let k = s.string("kind")?.unwrap_or("point-to-point");
            s.finish()?;
            k
        }
        None => "point-to-point",
    };
    let flow_secs = root.tables("flow")?;
    if flow_secs.is_empty() {
        return Err(root.err("flow", None, "at least one [[flow]] is required"));
    }
    let mut links = Vec::new();
    let mut flows = Vec::new();
    match kind {
        "point-to-point" => {
            let Some(l) = root.table("link")? else {
                return Err(root.err(
                    "link",
                    None,
                    "a point-to-point topology needs a [link] table",
                ));
            };
            links.push(parse_link(&l, "link")?);
            for f in &flow_secs {
                for spec in parse_flow(f, flows.len(), &[])? {
                    let mut spec = spec;
                    spec.path = vec![0];
                    flows.push(spec);
                }
            }
        }
        "dumbbell" => {
            let Some(b) = root.table("bottleneck")? else {
                return Err(root.err(
                    "bottleneck",
                    None,
                    "a dumbbell topology needs a [bottleneck] table",
                ));
            };
            links.push(parse_link(&b, "bottleneck")?);
            let access = root.table("access")?;
            for f in &flow_secs {
                let overrides = parse_access_overrides(f)?;
                for mut spec in parse_flow(f, flows.len(), &["access_delay", "access_rate"])? {
                    let i = flows.len();
                    let mut src = match &access {
                        Some(a) => parse_link(a, &format!("access{i}.src"))?,
                        None => default_access(format!("access{i}.src")),
                    };
                    let mut dst = match &access {
                        Some(a) => parse_link(a, &format!("access{i}.dst"))?,
                        None => default_access(format!("access{i}.dst")),
                    };
                    if let Some(d) = overrides.0 {
                        src.fwd.delay = d;
                        src.rev.delay = d;
                    }
                    if let Some(r) = overrides.1 {
                        for l in [&mut src, &mut dst] {
                            l.fwd.rate_bps = r;
                            l.rev.rate_bps = r;
                        }
                    }
                    links.push(src);
                    links.push(dst);
                    spec.path = vec![links.len() - 2, 0, links.len() - 1];
                    flows.push(spec);
                }
            }
            if let Some(a) = access {
                a.finish()?;
            }
        }
        other => {
            let t = topo.as_ref().expect("kind came from [topology]");
            return Err(t.err(
                "kind",
                Some(&Value::String(other.to_string())),
                "unknown topology (use \"point-to-point\" or \"dumbbell\")",
            ));
        }
    }
    for f in &flow_secs {
        f.finish()?;
    }
    root.finish()?;
    let has_unlimited = flows
        .iter()
        .any(|f| f.sender.total_bytes.is_none() && f.stop.is_none());
    if has_unlimited && duration.is_none() {
        return Err(root.err(
            "duration",
            None,
            "required when a flow has no byte count and no stop time (bytes = \"unlimited\")",
        ));
    }
    Ok(Scenario {
        name,
        source: source.to_string(),
        duration,
        max_time,
        sampling,
        links,
        flows,
    })
}
