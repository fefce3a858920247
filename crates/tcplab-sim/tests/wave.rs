//! TCP Wave through the simulator: one flow on a lossless bottleneck settles near the
//! link rate with RTT bounded by propagation + one ACK train + one burst of queueing.

use tcplab_sim::{parse_scenario_str, simulate, Results};

fn delivered_at(r: &Results, t: f64) -> u64 {
    let fs = &r.flow_series;
    (0..fs.floats("t_s").unwrap().len())
        .filter(|&i| fs.ints("flow").unwrap()[i] == 0 && fs.floats("t_s").unwrap()[i] <= t + 1e-9)
        .map(|i| fs.ints("delivered").unwrap()[i])
        .max()
        .unwrap_or(0)
}

fn trace(r: &Results, key: &str) -> Vec<(f64, f64)> {
    let tr = &r.cc_trace;
    (0..tr.t_s.len())
        .filter(|&i| tr.key[i] == key)
        .map(|i| (tr.t_s[i], tr.value[i]))
        .collect()
}

#[test]
fn single_flow_settles_near_link_rate() {
    let sc = parse_scenario_str(
        r#"
        duration = "20s"
        sample = "10ms"
        [link]
        rate = "6Mbps"
        delay = "10ms"
        queue = "1000pkt"
        [[flow]]
        cc = "wave"
        bytes = "unlimited"
        "#,
        "wave.toml",
    )
    .unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    let rate = (delivered_at(&r, 20.0) - delivered_at(&r, 5.0)) as f64 * 8.0 / 15.0;
    // Goodput counts payload (1460 of 1500 wire bytes): the wire rate is 6 Mbit/s.
    let wire = rate * 1500.0 / 1460.0;
    println!("goodput {rate:.0} bit/s, wire {wire:.0} bit/s");
    assert!(wire > 0.9 * 6e6 && wire <= 6e6 * 1.001, "wire rate {wire}");
    assert_eq!(r.flows.ints("rtos").unwrap()[0], 0);
    assert_eq!(r.links.ints("dropped_queue").unwrap()[0], 0);
    // One burst of 10 × 1500 B at 6 Mbit/s lasts 20 ms: ATD ≈ 20 ms; a burst queues
    // behind at most one earlier burst's remainder. Bound: 2·10 ms + 20 ms + 20 ms.
    let max_rtt = r.flows.opt_floats("rtt_max_s").unwrap()[0].unwrap();
    let min_rtt = r.flows.opt_floats("rtt_min_s").unwrap()[0].unwrap();
    println!("rtt min {min_rtt} max {max_rtt}");
    assert!(max_rtt <= 0.060 + 1e-6, "max RTT {max_rtt}");
    let atd = trace(&r, "atd_s");
    let last_atd = atd.last().unwrap().1;
    println!("atd {last_atd}");
    assert!((0.015..=0.021).contains(&last_atd), "ATD {last_atd}");
    let modes = trace(&r, "mode");
    assert!(
        modes
            .iter()
            .filter(|(t, _)| *t > 2.0)
            .all(|(_, m)| *m == 1.0),
        "left tracking"
    );
}
