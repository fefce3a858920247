//! Strict TOML scenario parsing: units, ranges, unknown keys, all with clear errors.

use crate::error::ConfigError;
use crate::scenario::{FlowSpec, Sampling, Scenario};
use tcplab_core::units;
use tcplab_core::Dur;
use toml::{Table, Value};

type R<T> = Result<T, ConfigError>;

mod flow;
mod graph;
mod jitter;
mod link;
mod link_table;
mod qdisc;
mod routed;
mod section;
mod timevar;
mod topology;
mod trace;
mod wlan;

use section::Section;

/// Parses a scenario file.
pub fn parse_scenario_file(path: &str) -> R<Scenario> {
    let fail = |why: String| ConfigError {
        file: path.to_string(),
        key: String::new(),
        value: String::new(),
        why,
    };
    // Opening a FIFO blocks until something writes to it: look before reading.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(fail("not a regular file".into()));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    parse_scenario_str(&text, path)
}

/// Parses scenario TOML text; `source` names it in error messages.
pub fn parse_scenario_str(text: &str, source: &str) -> R<Scenario> {
    parse_scenario_table(&parse_toml(text, source)?, source)
}

/// TOML text as a table (syntax only; [`parse_scenario_table`] checks the scenario).
pub fn parse_toml(text: &str, source: &str) -> R<Table> {
    text.parse().map_err(|e: toml::de::Error| ConfigError {
        file: source.to_string(),
        key: String::new(),
        value: String::new(),
        why: syntax_error(text, &e),
    })
}

/// Longest source line a syntax error quotes whole (the parser's own message shows the
/// line with a caret under the error).
const QUOTED_LINE_CHARS: usize = 200;

/// The parser's message, but never a whole long line: an error on a 10 kB line (a deeply
/// nested inline array, a minified file) says where it is and quotes 60 characters
/// around the spot.
fn syntax_error(text: &str, e: &toml::de::Error) -> String {
    let full = e.to_string();
    if full.lines().all(|l| l.chars().count() <= QUOTED_LINE_CHARS) {
        return format!("TOML syntax error: {}", full.trim());
    }
    let at = e.span().map_or(0, |s| s.start).min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    let before: String = {
        let b: Vec<char> = text[line_start..at].chars().rev().take(30).collect();
        b.into_iter().rev().collect()
    };
    let after: String = text[at..]
        .chars()
        .take_while(|&c| c != '\n')
        .take(30)
        .collect();
    format!(
        "TOML syntax error at line {line}, column {column}: {} (near \"{}\")",
        e.message().trim(),
        format!("{before}{after}").escape_default()
    )
}

/// Parses one `[[flow]]` table on its own, as a driver that runs a single flow reads it
/// (the UDP driver's `send` and `recv`): the keys, defaults and errors of a scenario's
/// flow (`source` names it, keys are reported as `flow.<key>`), without a topology, so
/// `from`, `to` and `path` are unknown keys here. A `count` above 1 gives the first flow.
pub fn parse_flow_table(t: &Table, source: &str) -> R<FlowSpec> {
    let f = Section::new(source, "flow".into(), t);
    let flows = flow::parse_flow(&f, 0, &[])?;
    f.finish()?;
    Ok(flows.into_iter().next().expect("count is at least 1"))
}

/// Parses an already-decoded TOML table (e.g. built from a Python dict).
pub fn parse_scenario_table(t: &Table, source: &str) -> R<Scenario> {
    parse_table(t, source, true)
}

/// Parses a scenario table whose `[[flow]]` tables are optional: the network of a
/// driver whose traffic comes from elsewhere (the link emulator runs real programs).
pub fn parse_network_table(t: &Table, source: &str) -> R<Scenario> {
    parse_table(t, source, false)
}

fn parse_table(t: &Table, source: &str, flows_required: bool) -> R<Scenario> {
    let mut root = Section::new(source, String::new(), t);
    root.packet = link::largest_packet(t);
    // A top-level `stack` is the profile of every TCP flow that names none.
    if let Some(name) = root.string("stack")? {
        tcplab_transport::tcp::stack::check(&root, "stack", name)?;
        root.stack = Some(name);
    }
    let name = root.label("name")?.map(str::to_string).unwrap_or_else(|| {
        std::path::Path::new(source)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".into())
    });
    let duration = root.duration("duration")?;
    if duration == Some(Dur::ZERO) {
        return Err(root.err("duration", root.table.get("duration"), "must be > 0"));
    }
    let max_time = root
        .positive_duration("max_time")?
        .unwrap_or(Dur::from_secs(3600));
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

    // Rows kept per series table before the series are thinned (see budget.rs): about
    // 0.3 GB of flow series at ~30 columns; a 100-flow run at 10 ms reaches it at 100 s.
    let series_rows = root
        .uint("series_rows", 1000, 1 << 32)?
        .unwrap_or(1_000_000) as usize;
    let memory_limit = root.bytes("memory_limit")?;
    if memory_limit == Some(0) {
        return Err(root.err("memory_limit", root.get("memory_limit"), "must be > 0"));
    }
    let flow_secs = root.tables("flow")?;
    if flow_secs.is_empty() && flows_required {
        return Err(root.err("flow", None, "at least one [[flow]] is required"));
    }
    let topo = topology::parse(&root, &flow_secs)?;
    for f in &flow_secs {
        f.finish()?;
    }
    root.finish()?;
    let flows = topo.flows;
    let has_unlimited = flows.iter().any(|f| f.bytes.is_none() && f.stop.is_none());
    if has_unlimited && duration.is_none() {
        return Err(root.err(
            "duration",
            None,
            "required when a flow has no byte count and no stop time (bytes = \"unlimited\")",
        ));
    }
    let mut names = std::collections::HashSet::new();
    for (f, &k) in flows.iter().zip(&topo.origin) {
        let sec = &flow_secs[k];
        if !names.insert(f.name.as_str()) {
            return Err(sec.err(
                "name",
                Some(&Value::String(f.name.clone())),
                "flow names must be unique (they label result rows and name random streams)",
            ));
        }
    }
    Ok(Scenario {
        name,
        source: source.to_string(),
        duration,
        max_time,
        sampling,
        series_rows,
        memory_limit,
        nodes: topo.nodes,
        links: topo.links,
        wlans: topo.wlans,
        flows,
    })
}
