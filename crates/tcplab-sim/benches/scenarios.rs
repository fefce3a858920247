//! Whole-run benchmarks: B1 (one NewReno flow, 10 MiB, 100 Mbit/s, 1 ms, PER 0.5 %) and a
//! shortened B2 (100 flows over a 1 Gbit/s dumbbell; 1 simulated second to keep it quick —
//! `tcplab bench` runs the full 10 s). B1 is also run with a pcapng capture of its link
//! (both directions, 80-byte snapshots, to a file) to price the capture per packet.

use criterion::{criterion_group, criterion_main, Criterion};
use std::io::BufWriter;
use tcplab_sim::capture::{Directions, PcapCapture};
use tcplab_sim::{parse_scenario_file, simulate, simulate_tapped};

fn path(name: &str) -> String {
    format!(
        "{}/../../python/tcplab/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn scenarios(c: &mut Criterion) {
    let b1 = parse_scenario_file(&path("b1.toml")).expect("b1");
    c.bench_function("B1_newreno_10MiB_100Mbps_per0.5%", |b| {
        b.iter(|| simulate(&b1, 1, 0).expect("runs"))
    });
    let file = std::env::temp_dir().join(format!("tcplab-bench-{}.pcapng", std::process::id()));
    c.bench_function("B1_with_pcap_capture", |b| {
        b.iter(|| {
            let out = BufWriter::with_capacity(1 << 16, std::fs::File::create(&file).unwrap());
            let mut cap =
                PcapCapture::new(out, &b1, (1, 0), "link", Directions::Both, 80).expect("capture");
            let r = simulate_tapped(&b1, 1, 0, None, Some(&mut cap)).expect("runs");
            (r, cap.finish().expect("written"))
        })
    });
    let _ = std::fs::remove_file(&file);
    let mut b2 = parse_scenario_file(&path("b2.toml")).expect("b2");
    b2.duration = Some(tcplab_core::Dur::from_secs(1));
    let mut g = c.benchmark_group("B2");
    g.sample_size(10);
    g.bench_function("B2_100flows_1Gbps_1s", |b| {
        b.iter(|| simulate(&b2, 1, 0).expect("runs"))
    });
    g.finish();
}

criterion_group!(benches, scenarios);
criterion_main!(benches);
