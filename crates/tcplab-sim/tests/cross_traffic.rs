//! Cross traffic: datagram sources (CBR, on/off, packet trace) and their rows in the
//! flows table — sent, delivered, lost, one-way delay.

use tcplab_sim::{parse_scenario_str, simulate, Results};

fn run(toml: &str, seed: u64) -> Results {
    let sc = parse_scenario_str(toml, "cross_traffic.rs").unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, seed, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn int(r: &Results, col: &str, row: usize) -> u64 {
    r.flows
        .ints(col)
        .unwrap_or_else(|| panic!("no column {col}"))[row]
}

fn float(r: &Results, col: &str, row: usize) -> Option<f64> {
    r.flows
        .opt_floats(col)
        .unwrap_or_else(|| panic!("no column {col}"))[row]
}

/// 5 Mbit/s of 1500-byte packets for 10 s over an idle 10 Mbit/s link: one packet every
/// 2.4 ms from t = 0, each delayed by exactly propagation + serialisation.
#[test]
fn cbr_rate_count_and_delay_are_exact_on_an_idle_link() {
    let r = run(
        r#"
        duration = "10s"
        [link]
        rate = "10Mbps"
        delay = "10ms"
        [[flow]]
        transport = "datagram"
        rate = "5Mbps"
        bytes = "unlimited"
        "#,
        1,
    );
    // Sends at 0, 2.4 ms, ..., 9.9984 s: 4167 packets.
    assert_eq!(int(&r, "packets_sent", 0), 4167);
    let delivered = int(&r, "packets_delivered", 0);
    let in_flight = int(&r, "packets_in_flight", 0);
    assert_eq!(int(&r, "packets_lost", 0), 0);
    assert_eq!(delivered + in_flight, 4167);
    // Those sent after 9.9888 s (which arrives at exactly 10 s) are still on their way.
    assert_eq!(in_flight, 4);
    assert_eq!(int(&r, "bytes_delivered", 0), delivered * 1472);
    // 10 ms propagation + 1.2 ms serialisation, no queueing.
    let owd_min = float(&r, "owd_min_s", 0).unwrap();
    let owd_max = float(&r, "owd_max_s", 0).unwrap();
    assert!((owd_min - 0.0112).abs() < 1e-9, "{owd_min}");
    assert!((owd_max - 0.0112).abs() < 1e-9, "{owd_max}");
    let p50 = float(&r, "owd_p50_s", 0).unwrap();
    assert!((p50 - 0.0112).abs() < 1e-9, "{p50}");
    // Goodput counts payload: 5 Mbit/s × 1472/1500.
    let g = r.flows.floats("goodput_bps").unwrap()[0];
    assert!((g / (5e6 * 1472.0 / 1500.0) - 1.0).abs() < 0.01, "{g}");
    assert_eq!(r.flows.texts("transport").unwrap()[0], "datagram");
}

/// Random loss: every packet sent is delivered, lost (by the network, counted) or still
/// in flight, and the loss ratio matches the link's.
#[test]
fn loss_accounting_balances_and_matches_the_loss_rate() {
    for seed in 1..=3 {
        let r = run(
            r#"
            duration = "20s"
            sample = "off"
            [link]
            rate = "20Mbps"
            delay = "5ms"
            loss = "10%"
            [[flow]]
            transport = "datagram"
            rate = "8Mbps"
            packet_size = 972
            bytes = "unlimited"
            "#,
            seed,
        );
        let sent = int(&r, "packets_sent", 0);
        let lost = int(&r, "packets_lost", 0);
        let delivered = int(&r, "packets_delivered", 0);
        assert_eq!(sent, delivered + lost + int(&r, "packets_in_flight", 0));
        // Binomial(20000, 0.1): sd 42 packets.
        let ratio = lost as f64 / sent as f64;
        assert!(
            (ratio - 0.10).abs() < 0.007,
            "seed {seed}: loss ratio {ratio}"
        );
        // The link's own counters agree with the flow's.
        assert_eq!(r.links.ints("dropped_loss").unwrap()[0], lost);
    }
}

/// On/off with exponential periods sends for the on share of the time.
#[test]
fn on_off_source_averages_its_duty_cycle() {
    let toml = r#"
        duration = "200s"
        sample = "off"
        [link]
        rate = "100Mbps"
        delay = "1ms"
        [[flow]]
        transport = "datagram"
        pattern = "onoff"
        rate = "10Mbps"
        on_time = "200ms"
        off_time = "600ms"
        bytes = "unlimited"
        "#;
    // On a quarter of the time at 10 Mbit/s: 2.5 Mbit/s of IP packets on average. One
    // 200 s run varies by about 7 % (250 exponential cycles); eight average to about 2.5 %.
    let seeds = 1..=8u64;
    let mean = seeds
        .clone()
        .map(|s| int(&run(toml, s), "packets_sent", 0) as f64 * 1500.0 * 8.0 / 200.0)
        .sum::<f64>()
        / seeds.count() as f64;
    assert!((mean / 2.5e6 - 1.0).abs() < 0.05, "{mean} bit/s");
}

/// A finite datagram flow ends when its last packet arrives; it completed only if
/// nothing was lost.
#[test]
fn finite_flows_complete_only_without_loss() {
    let toml = |loss: &str| {
        format!(
            r#"
            [link]
            rate = "10Mbps"
            delay = "5ms"
            loss = "{loss}"
            [[flow]]
            transport = "datagram"
            rate = "5Mbps"
            bytes = "1MB"
            "#
        )
    };
    let clean = run(&toml("0%"), 1);
    assert!(clean.flows.bools("completed").unwrap()[0]);
    assert_eq!(int(&clean, "bytes_delivered", 0), 1_000_000);
    assert_eq!(clean.info.end_reason, "completed");
    let lossy = run(&toml("5%"), 1);
    assert!(!lossy.flows.bools("completed").unwrap()[0]);
    assert!(int(&lossy, "packets_lost", 0) > 0);
    assert_eq!(
        int(&lossy, "packets_in_flight", 0),
        0,
        "the run drains the network"
    );
    assert_eq!(lossy.info.end_reason, "completed");
}

/// Constant-rate cross traffic takes its share of a bottleneck from TCP.
#[test]
fn cross_traffic_takes_capacity_from_tcp() {
    let r = run(
        r#"
        duration = "30s"
        sample = "off"
        [link]
        rate = "20Mbps"
        delay = "10ms"
        queue = "50pkt"
        [[flow]]
        name = "tcp"
        cc = "cubic"
        bytes = "unlimited"
        [[flow]]
        name = "udp"
        transport = "datagram"
        rate = "12Mbps"
        bytes = "unlimited"
        "#,
        1,
    );
    let g = r.flows.floats("goodput_bps").unwrap();
    let udp_ip = g[1] * 1500.0 / 1472.0;
    assert!(udp_ip > 11.0e6, "UDP keeps most of its rate: {udp_ip}");
    // TCP gets what is left, 8 Mbit/s less headers (about 7.8 Mbit/s), and not more.
    assert!(g[0] > 6.5e6 && g[0] < 8.0e6, "TCP goodput {}", g[0]);
    // Rows of both kinds: TCP columns are null for the datagram flow and vice versa.
    let c = r.flows.column("segments_sent").unwrap();
    assert!(!c.is_null(0) && c.is_null(1));
    let c = r.flows.column("owd_p99_s").unwrap();
    assert!(c.is_null(0) && !c.is_null(1));
}

/// A packet trace drives the source: one datagram per millisecond timestamp.
#[test]
fn packet_trace_source_follows_the_trace() {
    let dir = std::env::temp_dir().join("tcplab-cross-trace");
    std::fs::create_dir_all(&dir).unwrap();
    // 3 packets in the first 10 ms, the file repeats every 10 ms.
    std::fs::write(dir.join("burst.trace"), "0\n0\n10\n").unwrap();
    let file = dir.join("scenario.toml");
    std::fs::write(
        &file,
        r#"
        duration = "1s"
        [link]
        rate = "100Mbps"
        [[flow]]
        transport = "datagram"
        pattern = "trace"
        trace = "burst.trace"
        bytes = "unlimited"
        "#,
    )
    .unwrap();
    let sc = tcplab_sim::parse_scenario_file(file.to_str().unwrap()).unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    // The file repeats with a period of its last timestamp (as Mahimahi's): sends at
    // 0, 0, 10, then 10, 10, 20, ... — two at t = 0 and three at every 10 ms up to 1 s.
    assert_eq!(int(&r, "packets_sent", 0), 2 + 3 * 100);
}

#[test]
fn bad_datagram_keys_are_rejected_clearly() {
    let err = |extra: &str| {
        parse_scenario_str(
            &format!(
                "duration = \"1s\"\n[link]\nrate = \"10Mbps\"\n[[flow]]\ntransport = \"datagram\"\nbytes = \"unlimited\"\n{extra}"
            ),
            "x.toml",
        )
        .unwrap_err()
        .to_string()
    };
    assert!(err("").contains("rate"), "{}", err(""));
    assert!(err("rate = \"1Mbps\"\npattern = \"poisson\"").contains("use \"cbr\""));
    assert!(err("rate = \"1Mbps\"\npattern = \"onoff\"").contains("on_time"));
    let e = err("rate = \"1Mbps\"\npattern = \"onoff\"\non_time = \"1s\"\noff_time = \"1s\"\non_dist = \"pareto\"\npareto_shape = 1.0");
    assert!(e.contains("pareto_shape") && e.contains("> 1"), "{e}");
    // TCP keys do not apply to datagrams.
    let e = err("rate = \"1Mbps\"\ncc = \"cubic\"");
    assert!(e.contains("flow[0].cc") && e.contains("unknown key"), "{e}");
}
