//! Every bundled example scenario parses and runs to a valid result.

use tcplab_sim::{parse_scenario_file, simulate};

#[test]
fn bundled_examples_parse_and_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("examples/ exists") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let p = path.to_str().unwrap();
        let mut sc = parse_scenario_file(p).unwrap_or_else(|e| panic!("{e}"));
        // Keep the suite fast: at most 20 simulated seconds per example.
        let cap = tcplab_core::Dur::from_secs(20);
        sc.duration = Some(sc.duration.map_or(cap, |d| d.min(cap)));
        let r = simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert!(
            r.flows
                .ints("bytes_delivered")
                .unwrap()
                .iter()
                .all(|&b| b > 0),
            "{p}: every flow delivers data"
        );
        n += 1;
    }
    assert!(n >= 4, "found {n} example scenarios");
}
