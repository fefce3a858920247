//! Prints one digest per (scenario file, seed) over every table, for before/after checks
//! of changes that must not move results: `digests FILE:SEED[:DURATION_S]...`.
//! Run it from two builds on the same list and `diff` the outputs.

use tcplab_sim::{parse_scenario_file, simulate};

fn main() {
    for arg in std::env::args().skip(1) {
        let mut it = arg.split(':');
        let file = it.next().unwrap_or_default();
        let seed: u64 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let mut sc = match parse_scenario_file(file) {
            Ok(sc) => sc,
            Err(e) => {
                println!("{arg} error {e}");
                continue;
            }
        };
        if let Some(d) = it.next().and_then(|s| s.parse::<f64>().ok()) {
            sc.duration = Some(tcplab_core::Dur::from_secs_f64(d));
        }
        match simulate(&sc, seed, 0) {
            Ok(r) => println!("{arg} {:016x} events {}", r.digest(), r.info.events),
            Err(e) => println!("{arg} error {e}"),
        }
    }
}
