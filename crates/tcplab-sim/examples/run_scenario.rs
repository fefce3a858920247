//! Runs a scenario file from Rust and prints the run info and the flows table:
//! `cargo run --release -p tcplab-sim --example run_scenario -- FILE [SEED] [DURATION_S]`.
//! Also the fixture for instruction-count comparisons (`valgrind --tool=callgrind`).

use tcplab_sim::{parse_scenario_file, simulate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(file) = args.get(1) else {
        eprintln!("usage: run_scenario FILE [SEED] [DURATION_S]");
        std::process::exit(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut sc = match parse_scenario_file(file) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Some(d) = args.get(3).and_then(|s| s.parse::<f64>().ok()) {
        sc.duration = Some(tcplab_core::Dur::from_secs_f64(d));
    }
    match simulate(&sc, seed, 0) {
        Ok(r) => {
            println!("{:?}", r.info);
            let f = &r.flows;
            let names = f.texts("name").unwrap_or_default();
            let goodput = f.floats("goodput_bps").unwrap_or_default();
            for (n, g) in names.iter().zip(goodput) {
                println!("{n}: {:.3} Mbit/s", g / 1e6);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
