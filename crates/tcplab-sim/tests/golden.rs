//! Golden results: per-column digests of a fixed set of scenarios, pinned in
//! `golden/digests.txt`. A refactor must not change any pinned column; a deliberate
//! change of results is re-pinned with `TCPLAB_GOLDEN=update` and explained in its commit.
//! Columns that are not pinned yet (new ones) are listed but do not fail the test.

use std::collections::BTreeMap;
use tcplab_sim::{parse_scenario_file, simulate};

/// (table, column) -> digest of one run.
type Digests = BTreeMap<(String, String), u64>;

fn column_digests(r: &tcplab_sim::Results) -> Digests {
    r.column_digests()
        .into_iter()
        .map(|(t, c, d)| ((t.to_string(), c), d))
        .collect()
}

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Scenario files (relative to the repository root) and the seeds each is run with.
const CASES: &[(&str, &[u64])] = &[
    ("examples/newreno-lossy.toml", &[1, 2]),
    ("examples/dumbbell-bbr-vs-cubic.toml", &[1]),
    ("examples/handover-wave.toml", &[1]),
    ("examples/trace-stepped.toml", &[1]),
    ("python/tcplab/data/b1.toml", &[1]),
    ("python/tcplab/data/b2.toml", &[1]),
    ("crates/tcplab-sim/tests/golden/p2p-variants.toml", &[1, 7]),
    ("crates/tcplab-sim/tests/golden/bbr-rack.toml", &[2]),
    ("crates/tcplab-sim/tests/golden/dumbbell-mixed.toml", &[3]),
    ("crates/tcplab-sim/tests/golden/jitter-reorder.toml", &[4]),
];

fn pinned_path() -> String {
    format!("{ROOT}/crates/tcplab-sim/tests/golden/digests.txt")
}

#[test]
fn golden_results_unchanged() {
    let mut now: BTreeMap<(String, u64, String, String), u64> = BTreeMap::new();
    for (file, seeds) in CASES {
        let sc = parse_scenario_file(&format!("{ROOT}/{file}")).unwrap_or_else(|e| panic!("{e}"));
        for &seed in *seeds {
            let r = simulate(&sc, seed, 0).unwrap_or_else(|e| panic!("{file}: {e}"));
            for ((t, c), d) in column_digests(&r) {
                now.insert((file.to_string(), seed, t, c), d);
            }
        }
    }
    let render = |m: &BTreeMap<(String, u64, String, String), u64>| {
        m.iter()
            .map(|((f, s, t, c), d)| format!("{f} {s} {t} {c} {d:016x}\n"))
            .collect::<String>()
    };
    if std::env::var("TCPLAB_GOLDEN").as_deref() == Ok("update") {
        std::fs::write(pinned_path(), render(&now)).unwrap();
        return;
    }
    let text = std::fs::read_to_string(pinned_path()).expect("golden/digests.txt exists");
    let mut changed = Vec::new();
    let mut missing = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let key = (
            p[0].to_string(),
            p[1].parse().unwrap(),
            p[2].to_string(),
            p[3].to_string(),
        );
        match now.get(&key) {
            None => missing.push(line.to_string()),
            Some(d) if format!("{d:016x}") != p[4] => changed.push(line.to_string()),
            Some(_) => {}
        }
    }
    let pinned: std::collections::BTreeSet<_> = text
        .lines()
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect();
    let new: Vec<String> = now
        .keys()
        .map(|(f, s, t, c)| format!("{f} {s} {t} {c}"))
        .filter(|k| !pinned.contains(k))
        .collect();
    if !new.is_empty() {
        eprintln!(
            "columns not pinned yet (run with TCPLAB_GOLDEN=update to pin):\n{}",
            new.join("\n")
        );
    }
    assert!(
        changed.is_empty() && missing.is_empty(),
        "golden results changed:\n{}\nmissing:\n{}",
        changed.join("\n"),
        missing.join("\n")
    );
}
