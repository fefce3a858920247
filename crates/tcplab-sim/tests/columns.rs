//! Every column of every table a simulation writes is declared, once, beside the code
//! that publishes it (`ColumnDef`), and `tcplab_sim::columns()` gathers them: run a set
//! of representative scenarios (every transport, a WLAN cell, each queue discipline, a
//! half-duplex link, every bundled example) and look each column up.

use tcplab_core::Dur;
use tcplab_sim::{
    columns, parse_scenario_file, parse_scenario_str, simulate, undeclared_columns, Scenario,
};

fn scenario(body: &str) -> Scenario {
    parse_scenario_str(body, "columns.toml").unwrap_or_else(|e| panic!("{e}\n{body}"))
}

fn flow_on_a_link(flow: &str, link: &str) -> Scenario {
    scenario(&format!(
        "duration = \"2s\"\nsample = \"20ms\"\n[link]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         loss = \"1%\"\n{link}\n[[flow]]\nbytes = \"300KB\"\n{flow}\n"
    ))
}

fn representative() -> Vec<(String, Scenario)> {
    let mut out = vec![];
    for (name, flow) in [
        ("tcp", "cc = \"cubic\"\nrecovery = \"sack\""),
        ("tack", "transport = \"tack\"\ncc = \"bbr\""),
        ("datagram", "transport = \"datagram\"\nrate = \"2Mbps\""),
        ("tcp-nc", "transport = \"tcp-nc\"\ncc = \"vegas\""),
        ("tcp-forward", "transport = \"tcp-forward\"\ncc = \"vegas\""),
        (
            "stopwait",
            "transport = \"stopwait\"\nparams = { timeout_ms = 50 }",
        ),
    ] {
        out.push((name.to_string(), flow_on_a_link(flow, "")));
    }
    for d in ["codel", "fq_codel", "pie", "red", "fifo"] {
        let link = format!("discipline = \"{d}\"");
        out.push((d.to_string(), flow_on_a_link("cc = \"reno\"", &link)));
    }
    out.push((
        "half-duplex".into(),
        flow_on_a_link("cc = \"newreno\"", "duplex = \"half\""),
    ));
    out.push((
        "wlan".into(),
        scenario(
            "duration = \"0.5s\"\nsample = \"20ms\"\n[[node]]\nname = \"ap\"\n[[node]]\n\
             name = \"sta\"\n[[wlan]]\nname = \"cell\"\nstandard = \"802.11n\"\nap = \"ap\"\n\
             stations = [\"sta\"]\n[[flow]]\nfrom = \"ap\"\nto = \"sta\"\ntransport = \"tack\"\n\
             cc = \"bbr\"\nbytes = \"unlimited\"\n[[flow]]\nfrom = \"sta\"\nto = \"ap\"\n\
             bytes = \"unlimited\"\n",
        ),
    ));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    for entry in std::fs::read_dir(dir).expect("examples/ exists") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            let p = path.to_str().unwrap();
            let mut sc = parse_scenario_file(p).unwrap_or_else(|e| panic!("{e}"));
            let cap = Dur::from_secs(3);
            sc.duration = Some(sc.duration.map_or(cap, |d| d.min(cap)));
            out.push((p.to_string(), sc));
        }
    }
    out
}

#[test]
fn every_published_column_is_declared_once() {
    // Gathering them panics on a name declared twice, differently.
    let declared = columns();
    let names: Vec<_> = declared.iter().map(|t| t.table).collect();
    assert_eq!(
        names,
        ["flows", "links", "flow_series", "link_series", "cc_trace"]
    );
    let mut seen = std::collections::BTreeSet::new();
    for (name, sc) in representative() {
        let r = simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (table, t) in r.clone().into_tables() {
            seen.extend(t.columns().iter().map(|c| format!("{table}.{}", c.name)));
        }
        let missing = undeclared_columns(&r);
        assert!(
            missing.is_empty(),
            "{name}: {missing:?} have no ColumnDef beside the code that publishes them"
        );
    }
    // And no declaration is stale: the scenarios publish every declared column.
    let unused: Vec<_> = declared
        .iter()
        .flat_map(|t| {
            t.columns
                .iter()
                .map(move |c| format!("{}.{}", t.table, c.name))
        })
        .filter(|c| !seen.contains(c))
        .collect();
    assert!(unused.is_empty(), "declared, never published: {unused:?}");
}

/// A column every transport's sink publishes is one definition, however many declare
/// that they publish it.
#[test]
fn a_shared_column_is_listed_once() {
    let declared = columns();
    for t in &declared {
        let mut names: Vec<_> = t.columns.iter().map(|c| c.name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "{}", t.table);
    }
    let flows = &declared[0];
    assert!(flows.get("acks_sent").is_some() && flows.get("delivered").is_none());
    assert!(declared[2].get("delivered").is_some());
}

/// The Rust sources under `crates/` (each file's code before its `#[cfg(test)]` module,
/// without comments, so tests' and examples' own columns do not count), with their paths. The Python binding's own
/// `packets` table is not the simulator's and is left out.
fn library_sources() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            if path.is_dir() {
                if !matches!(name, "target" | "tests" | "benches" | "tcplab-py") {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code: String = text
                    .split("#[cfg(test)]")
                    .next()
                    .unwrap()
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .flat_map(|l| [l, "\n"])
                    .collect();
                out.push((path.display().to_string(), code));
            }
        }
    }
    let mut out = vec![];
    walk(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")),
        &mut out,
    );
    assert!(out.len() > 100, "found the crates' sources");
    out
}

/// The string literal that starts `rest` (after white space), if one does.
fn literal(rest: &str) -> Option<&str> {
    let rest = rest.trim_start().strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// Each column's name is written once, in its declaration: one `ColumnDef::new` per
/// distinct definition in the reference (a name two tables use, such as `t_s`, is one
/// const or one declaration per table). Components publish through
/// `Metrics::put(&ColumnDef, ..)`, which takes no name; the one call that takes a name,
/// `Row::put_named` (copying rows between tables), must not be given a literal.
#[test]
fn each_column_name_is_written_once() {
    let mut definitions: Vec<tcplab_core::ColumnDef> = vec![];
    for t in columns() {
        for c in t.columns {
            if !definitions.contains(&c) {
                definitions.push(c);
            }
        }
    }
    let mut declared: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let sources = library_sources();
    for (path, code) in &sources {
        for (i, _) in code.match_indices("ColumnDef::new(") {
            let name = literal(&code[i + "ColumnDef::new(".len()..])
                .unwrap_or_else(|| panic!("{path}: a ColumnDef::new without a literal name"));
            declared.entry(name).or_default().push(path.clone());
        }
        for (i, _) in code.match_indices(".put_named(") {
            assert!(
                literal(&code[i + ".put_named(".len()..]).is_none(),
                "{path}: put_named with a literal column name; declare the column \
                 (ColumnDef) and publish with Metrics::put"
            );
        }
    }
    for (name, places) in &declared {
        let n = definitions.iter().filter(|c| c.name == *name).count();
        assert_eq!(
            places.len(),
            n,
            "column `{name}`: {} declarations ({places:?}) for {n} definitions in the \
             reference; name the existing const instead of declaring it again",
            places.len()
        );
    }
    for c in &definitions {
        assert!(declared.contains_key(c.name), "{} is declared", c.name);
    }
}
