//! Prints `Results::digest()` of a fixed, varied set of runs, one line each, so that a
//! refactor can be shown to change no result: run it before and after and diff.
//!
//! ```sh
//! cargo run --release -p tcplab-sim --example digests > before.txt
//! # ... change the code ...
//! cargo run --release -p tcplab-sim --example digests | diff before.txt -
//! ```
//!
//! The set: every bundled example, B1 and B2, and one small lossy link (loss both ways)
//! run with every controller under every recovery mode it accepts (RFC 5681 Reno, RFC
//! 6582 NewReno, RFC 6675 SACK with DupThresh and with RACK-TLP), plus variants for
//! per-ACK sampling, jitter with reordering, outages, a dumbbell, receive-window limits,
//! a receiver without SACK, NewReno's timer variants, Vegas' INET timing, HyStart++ and
//! start/stop times; the coded transports (the NC/FWD benches and their payload modes, and
//! small high-loss, Pi-speed and window-32 variants). Each with two seeds.

use tcplab_sim::{parse_scenario_file, parse_scenario_str, simulate, Scenario};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

const CONTROLLERS: &[&str] = &[
    "tahoe",
    "reno",
    "newreno",
    "vegas",
    "westwood",
    "westwood+",
    "cubic",
    "bbr",
    "wave",
];

/// (recovery, loss_detection) pairs.
const RECOVERIES: &[(&str, &str)] = &[
    ("reno", "dupack"),
    ("newreno", "dupack"),
    ("sack", "dupack"),
    ("sack", "rack"),
];

const LOSSY: &str = "[link]\nrate = \"40Mbps\"\ndelay = \"8ms\"\nqueue = \"50pkt\"\n\
                     loss = \"1%\"\nack_loss = \"0.5%\"\n";

/// Named extra scenarios (TOML bodies).
const VARIANTS: &[(&str, &str)] = &[
    (
        "per-ack-sampling",
        "sample = \"ack\"\n[link]\nrate = \"20Mbps\"\ndelay = \"10ms\"\nqueue = \"40pkt\"\n\
         loss = \"0.5%\"\n[[flow]]\ncc = \"bbr\"\nbytes = \"2MB\"\n[[flow]]\ncc = \"cubic\"\n\
         recovery = \"sack\"\nbytes = \"2MB\"\n[[flow]]\ncc = \"vegas\"\nbytes = \"1MB\"\n",
    ),
    (
        "jitter-reorder",
        "sample = \"5ms\"\n[link]\nrate = \"30Mbps\"\ndelay = \"6ms\"\nqueue = \"60pkt\"\n\
         loss = \"0.3%\"\njitter = { dist = \"normal\", mean = \"1ms\", sd = \"2ms\" }\n\
         reorder = true\n[[flow]]\ncc = \"newreno\"\nrecovery = \"sack\"\nbytes = \"3MB\"\n\
         [[flow]]\ncc = \"cubic\"\nrecovery = \"sack\"\nloss_detection = \"rack\"\n\
         bytes = \"3MB\"\n[[flow]]\ncc = \"reno\"\nbytes = \"2MB\"\n",
    ),
    (
        "uniform-jitter-rack",
        "sample = \"10ms\"\n[link]\nrate = \"50Mbps\"\ndelay = \"5ms\"\nqueue = \"80pkt\"\n\
         loss = \"0.5%\"\njitter = { dist = \"uniform\", max = \"3ms\" }\nreorder = true\n\
         [[flow]]\ncc = \"bbr\"\nloss_detection = \"rack\"\nbytes = \"4MB\"\n",
    ),
    (
        "outage",
        "sample = \"20ms\"\n[link]\nrate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = \"50pkt\"\n\
         [[link.schedule]]\nat = \"1s\"\nup = false\n[[link.schedule]]\nat = \"2.5s\"\n\
         up = true\n[[flow]]\ncc = \"newreno\"\nrecovery = \"sack\"\nbytes = \"4MB\"\n\
         [[flow]]\ncc = \"wave\"\nbytes = \"2MB\"\n[[flow]]\ncc = \"tahoe\"\nbytes = \"2MB\"\n",
    ),
    (
        "dumbbell",
        "duration = \"4s\"\nsample = \"20ms\"\n[topology]\nkind = \"dumbbell\"\n\
         [bottleneck]\nrate = \"30Mbps\"\ndelay = \"10ms\"\nqueue = \"60pkt\"\nloss = \"0.2%\"\n\
         [access]\nrate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = \"1000pkt\"\n\
         [[flow]]\ncc = \"bbr\"\nbytes = \"unlimited\"\n[[flow]]\ncc = \"cubic\"\n\
         bytes = \"unlimited\"\nstart = \"0.5s\"\nstop = \"3s\"\naccess_delay = \"5ms\"\n\
         [[flow]]\ncc = \"westwood+\"\nrecovery = \"sack\"\nbytes = \"3MB\"\nstart = \"1s\"\n",
    ),
    (
        "small-rwnd-no-sack",
        "sample = \"10ms\"\n[link]\nrate = \"50Mbps\"\ndelay = \"10ms\"\nqueue = \"100pkt\"\n\
         loss = \"1%\"\n[[flow]]\ncc = \"newreno\"\nrcv_buf = \"64KiB\"\nbytes = \"3MB\"\n\
         [[flow]]\ncc = \"reno\"\nsack = false\nbytes = \"2MB\"\n[[flow]]\ncc = \"newreno\"\n\
         sack = false\npartial_ack_timer = \"slow-but-steady\"\nack = \"per-packet\"\n\
         bytes = \"2MB\"\n",
    ),
    (
        "cc-params",
        "sample = \"10ms\"\n[link]\nrate = \"100Mbps\"\ndelay = \"1ms\"\nqueue = \"100pkt\"\n\
         loss = \"2%\"\n[[flow]]\ncc = \"vegas\"\ncc_params = { fine_rto_from = 1 }\n\
         bytes = \"3MB\"\n[[flow]]\ncc = \"cubic\"\ncc_params = { hystart = 1 }\n\
         recovery = \"sack\"\nbytes = \"3MB\"\n[[flow]]\ncc = \"newreno\"\n\
         cc_params = { abc_limit = 1 }\nbytes = \"3MB\"\nack_every = 3\nack_delay = \"40ms\"\n",
    ),
];

/// Coded-transport scenarios: 30 % loss, a slower CPU, a larger window, both directions
/// lossy (ACK loss and Diff_p repairs), in both symbol modes.
const CODED: &[(&str, &str)] = &[
    ("forward-w32", "coding = { window = 32 }"),
    ("forward-pi", "coding = { cpu_scale = 100 }"),
    ("forward-w8-pay", "coding = { window = 8, payload = true }"),
    ("nc-reno", "coding = { redundancy = 1.6 }"),
    ("nc-pay", "coding = { redundancy = 1.6, payload = true }"),
];

fn file(path: &str) -> Scenario {
    parse_scenario_file(&format!("{ROOT}/{path}")).unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    let mut runs: Vec<(String, Scenario)> = Vec::new();
    let mut examples: Vec<_> = std::fs::read_dir(format!("{ROOT}/examples"))
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    examples.sort();
    for p in examples {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        runs.push((name.clone(), file(&format!("examples/{name}"))));
    }
    for b in ["b1", "b2", "nc", "fwd", "nc-pay", "fwd-pay"] {
        runs.push((b.to_string(), file(&format!("python/tcplab/data/{b}.toml"))));
    }
    for cc in CONTROLLERS {
        for (recovery, detection) in RECOVERIES {
            let body = format!(
                "sample = \"10ms\"\n{LOSSY}[[flow]]\ncc = \"{cc}\"\nrecovery = \"{recovery}\"\n\
                 loss_detection = \"{detection}\"\nbytes = \"2MB\"\n"
            );
            let name = format!("{cc}/{recovery}/{detection}");
            match parse_scenario_str(&body, &name) {
                Ok(sc) => runs.push((name, sc)),
                Err(e) => println!("{name}: not accepted: {e}"),
            }
        }
    }
    for (name, body) in VARIANTS {
        let sc = parse_scenario_str(body, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        runs.push((name.to_string(), sc));
    }
    for (name, coding) in CODED {
        let transport = if name.starts_with("nc") {
            "tcp-nc"
        } else {
            "tcp-forward"
        };
        let cc = if *name == "nc-reno" { "reno" } else { "vegas" };
        let body = format!(
            "sample = \"10ms\"\n[link]\nrate = \"20Mbps\"\ndelay = \"5ms\"\n\
             queue = \"50pkt\"\nloss = \"30%\"\nack_loss = \"10%\"\n[[flow]]\n\
             transport = \"{transport}\"\ncc = \"{cc}\"\nbytes = \"1MB\"\n{coding}\n"
        );
        let sc = parse_scenario_str(&body, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        runs.push((format!("coded/{name}"), sc));
    }
    for (name, sc) in &runs {
        for seed in [1, 2] {
            let r = simulate(sc, seed, 0).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            println!("{name} seed {seed}: {:016x}", r.digest());
        }
    }
}
