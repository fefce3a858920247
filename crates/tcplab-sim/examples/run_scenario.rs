//! Runs a scenario file from Rust and prints the run info, the peak of live heap bytes
//! during the simulation and the flows table:
//! `cargo run --release -p tcplab-sim --example run_scenario -- FILE [SEED] [DURATION_S]`.
//! Also the fixture for instruction-count comparisons (`valgrind --tool=callgrind`).
//! `QUIET=1` prints only the run info and the wall/heap line; `REPEAT=N` runs the
//! simulation N more times in the same process and prints each wall time (the first run
//! of a process pays for page faults and cold caches, the repeats show how much).

use tcplab_core::peak_heap::PeakHeap;
use tcplab_sim::{parse_scenario_file, simulate};

#[global_allocator]
static GLOBAL: PeakHeap = PeakHeap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(file) = args.get(1) else {
        eprintln!("usage: run_scenario FILE [SEED] [DURATION_S]");
        std::process::exit(2);
    };
    let seed: u64 = arg(args.get(2).map(String::as_str), "SEED", "a whole number").unwrap_or(1);
    let mut sc = match parse_scenario_file(file) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let duration: Option<f64> = arg(args.get(3).map(String::as_str), "DURATION_S", "seconds");
    if let Some(d) = duration {
        if !(d.is_finite() && d > 0.0) {
            fail("DURATION_S", &d.to_string(), "a positive number of seconds");
        }
        sc.duration = Some(tcplab_core::Dur::from_secs_f64(d));
    }
    // The parse's peak, then a new one from the scenario's live bytes.
    let base = PeakHeap::peak();
    let scenario = PeakHeap::reset_peak();
    let t0 = std::time::Instant::now();
    let r = simulate(&sc, seed, 0);
    let wall = t0.elapsed().as_secs_f64();
    let repeat = std::env::var("REPEAT").ok();
    let repeats: usize = arg(repeat.as_deref(), "REPEAT", "a whole number of runs").unwrap_or(0);
    for _ in 0..repeats {
        let t = std::time::Instant::now();
        let _ = simulate(&sc, seed, 0);
        eprintln!("again: wall {:.6} s", t.elapsed().as_secs_f64());
    }
    let peak = PeakHeap::peak() - scenario;
    match r {
        Ok(r) => {
            println!("{:?}", r.info);
            println!(
                "wall {wall:.6} s; heap: scenario {:.2} MB (parse peak {:.2} MB), simulation peak {:.2} MB ({:.0} B per flow)",
                scenario as f64 / 1e6,
                base as f64 / 1e6,
                peak as f64 / 1e6,
                peak as f64 / sc.flows.len().max(1) as f64,
            );
            if std::env::var_os("QUIET").is_some() {
                return;
            }
            let f = &r.flows;
            let names = f.texts("name").unwrap_or_default();
            let goodput = f.floats("goodput_bps").unwrap_or_default();
            for (i, (n, g)) in names.iter().zip(goodput).enumerate() {
                print!("{n}: {:.3} Mbit/s", g / 1e6);
                // COLS=rtos,fast_retransmits prints those integer columns too.
                for c in std::env::var("COLS").unwrap_or_default().split(',') {
                    if let Some(v) = f.ints(c).and_then(|v| v.get(i)) {
                        print!(" {c}={v}");
                    }
                }
                println!();
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

/// Parses an optional argument; a value that does not parse ends the program with one
/// line naming the argument, the value and what it must be.
fn arg<T: std::str::FromStr>(v: Option<&str>, name: &str, what: &str) -> Option<T> {
    let v = v?;
    match v.parse() {
        Ok(x) => Some(x),
        Err(_) => fail(name, v, what),
    }
}

fn fail(name: &str, value: &str, what: &str) -> ! {
    eprintln!("run_scenario: {name} = {value:?}: must be {what}");
    std::process::exit(2);
}
