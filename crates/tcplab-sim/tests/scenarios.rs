//! Scenario features: errors that name file/key/value/why, topologies, schedules, timers.

use tcplab_sim::{parse_scenario_str, simulate, Sampling};

fn err(toml: &str) -> String {
    parse_scenario_str(toml, "bad.toml")
        .unwrap_err()
        .to_string()
}

const LINK: &str = "[link]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

#[test]
fn bad_input_names_file_key_value_and_reason() {
    let cases: &[(&str, &[&str])] = &[
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\ncc = \"vegaz\"\n"), &["bad.toml", "flow[0].cc", "\"vegaz\"", "unknown congestion control"]),
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\nmss = 1500\n"), &["flow[0].mss", "1500", "MTU"]),
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\ncolour = 1\n"), &["flow[0].colour", "unknown key", "known here"]),
        ("[link]\nrate = \"0Mbps\"\n[[flow]]\nbytes = \"1MB\"\n", &["link.rate", "\"0Mbps\"", "> 0"]),
        ("[link]\nrate = \"10 furlongs\"\n[[flow]]\nbytes = \"1MB\"\n", &["link.rate", "unknown rate unit"]),
        ("[link]\nrate = \"10Mbps\"\nloss = \"150%\"\n[[flow]]\nbytes = \"1MB\"\n", &["link.loss", "150%", "probability"]),
        ("[link]\nrate = \"10Mbps\"\nloss = 5\n[[flow]]\nbytes = \"1MB\"\n", &["link.loss", "5%"]),
        ("[link]\nrate = \"10Mbps\"\ndelay = \"-1ms\"\n[[flow]]\nbytes = \"1MB\"\n", &["link.delay", "negative"]),
        (&format!("{LINK}[[flow]]\nbytes = \"unlimited\"\n"), &["duration", "required"]),
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\ncc_params = {{ abc = 3 }}\n"), &["cc_params", "unknown parameter 'abc'"]),
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\nrecovery = \"tahoe\"\n"), &["flow[0].recovery", "\"tahoe\""]),
        (LINK, &["flow", "at least one"]),
        ("[link\nrate=", &["bad.toml", "TOML syntax error"]),
        (&format!("{LINK}[[flow]]\nbytes = \"1MB\"\nstart = \"2s\"\nstop = \"1s\"\n"), &["flow[0].stop", "after start"]),
        (&format!("[topology]\nkind = \"star\"\n{LINK}[[flow]]\nbytes = \"1MB\"\n"), &["topology.kind", "\"star\"", "unknown topology"]),
        ("[link]\nrate = \"10Mbps\"\n[[link.schedule]]\nat = \"2s\"\n[[link.schedule]]\nat = \"1s\"\n[[flow]]\nbytes = \"1MB\"\n", &["link.schedule[1].at", "time order"]),
    ];
    for (toml, needles) in cases {
        let e = err(toml);
        for n in *needles {
            assert!(e.contains(n), "error {e:?} should mention {n:?}");
        }
    }
}

#[test]
fn sampling_modes_parse() {
    let sc = parse_scenario_str(
        &format!("sample = \"ack\"\n{LINK}[[flow]]\nbytes = \"100KB\"\n"),
        "s",
    )
    .unwrap();
    assert_eq!(sc.sampling, Sampling::PerAck);
    let r = simulate(&sc, 1, 0).unwrap();
    // One sample per ACK processed by the sender (no ACK is lost here).
    assert_eq!(
        r.flow_series.floats("t_s").unwrap().len() as u64,
        r.flows.ints("acks_sent").unwrap()[0]
    );
}

/// A run without samples still has its series tables' schema: the same columns, in the
/// same order and of the same types, as a sampled run, and no rows.
#[test]
fn series_schema_does_not_depend_on_sampling() {
    let run = |sample: &str| {
        let sc = parse_scenario_str(
            &format!(
                "sample = \"{sample}\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\n\
                 [bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n[access]\nrate = \"100Mbps\"\n\
                 delay = \"1ms\"\n[[flow]]\ncc = \"cubic\"\nbytes = \"unlimited\"\n\
                 [[flow]]\ncc = \"bbr\"\nbytes = \"unlimited\"\n[[flow]]\ntransport = \"datagram\"\n\
                 bytes = \"unlimited\"\nrate = \"1Mbps\"\n"
            ),
            "s.toml",
        )
        .unwrap();
        simulate(&sc, 1, 0).unwrap()
    };
    let schema =
        |t: &tcplab_sim::Table| -> Vec<(String, std::mem::Discriminant<tcplab_sim::Data>)> {
            t.columns()
                .iter()
                .map(|c| (c.name.to_string(), std::mem::discriminant(&c.data)))
                .collect()
        };
    let (off, on) = (run("off"), run("100ms"));
    assert!(on.flow_series.rows() > 0 && on.link_series.rows() > 0);
    assert_eq!((off.flow_series.rows(), off.link_series.rows()), (0, 0));
    for (a, b) in [
        (&off.flow_series, &on.flow_series),
        (&off.link_series, &on.link_series),
    ] {
        assert!(schema(b).len() > 5);
        assert_eq!(schema(a), schema(b));
    }
    assert!(off.cc_trace.t_s.is_empty());
}

/// Dumbbell: flows with different access delays share the bottleneck; a flow that starts
/// later and stops early sends only inside its window.
#[test]
fn dumbbell_with_start_and_stop_times() {
    let sc = parse_scenario_str(
        r#"
        duration = "20s"
        sample = "100ms"
        [topology]
        kind = "dumbbell"
        [bottleneck]
        rate = "10Mbps"
        delay = "10ms"
        queue = "50pkt"
        [access]
        rate = "100Mbps"
        delay = "1ms"
        [[flow]]
        bytes = "unlimited"
        [[flow]]
        bytes = "unlimited"
        access_delay = "20ms"
        start = "5s"
        stop = "10s"
        "#,
        "db.toml",
    )
    .unwrap();
    assert_eq!(sc.links.len(), 5, "bottleneck + 2 access links per pair");
    let r = simulate(&sc, 3, 0).unwrap();
    let f = &r.flows;
    assert!(
        !f.bools("completed").unwrap()[0],
        "flow 0 runs until the end"
    );
    // Flow 1 stops writing at 10 s and drains: everything written is delivered, but
    // with no byte count it never "completed" a transfer.
    assert!(!f.bools("completed").unwrap()[1]);
    assert_eq!(f.opt_floats("completion_s").unwrap()[1], None);
    let written = f.ints("bytes_written").unwrap()[1];
    assert!(written > 0);
    assert_eq!(f.ints("bytes_delivered").unwrap()[1], written);
    let done = f.opt_floats("finished_s").unwrap()[1].unwrap();
    assert!(
        (10.0..12.0).contains(&done),
        "flow 1 drains soon after its stop: {done}"
    );
    // Longer access delay: larger minimum RTT.
    assert!(
        f.opt_floats("rtt_min_s").unwrap()[1].unwrap()
            > f.opt_floats("rtt_min_s").unwrap()[0].unwrap() + 0.035
    );
    // The bottleneck is shared: total goodput close to 10 Mbit/s x 1460/1500.
    let total = f.ints("bytes_delivered").unwrap().iter().sum::<u64>() as f64 * 8.0 / 20.0;
    assert!(total > 0.9 * 10e6 * 1460.0 / 1500.0, "total {total}");
    // Flow 1's series only covers its active period.
    let ts: Vec<f64> = r
        .flow_series
        .floats("t_s")
        .unwrap()
        .iter()
        .zip(r.flow_series.ints("flow").unwrap())
        .filter(|(_, &fl)| fl == 1)
        .map(|(t, _)| *t)
        .collect();
    assert!(ts.iter().all(|&t| (5.0..=12.0).contains(&t)));
}

/// An outage scheduled on the link loses everything in flight; the flow recovers by RTO.
/// A rate increase scheduled at reconnection shortens the transfer.
#[test]
fn scheduled_outage_and_rate_change() {
    let run = |new_rate: &str| {
        let sc = parse_scenario_str(
            &format!(
                r#"
                sample = "10ms"
                [link]
                rate = "10Mbps"
                delay = "10ms"
                queue = "100pkt"
                [[link.schedule]]
                at = "1s"
                up = false
                [[link.schedule]]
                at = "1.5s"
                up = true
                rate = "{new_rate}"
                [[flow]]
                bytes = "8MB"
                "#
            ),
            "outage.toml",
        )
        .unwrap();
        simulate(&sc, 1, 0).unwrap()
    };
    let slow = run("10Mbps");
    let fast = run("40Mbps");
    for r in [&slow, &fast] {
        assert!(r.flows.bools("completed").unwrap()[0]);
        assert!(
            r.flows.ints("rtos").unwrap()[0] >= 1,
            "the outage forces a timeout"
        );
        assert!(
            r.links.ints("dropped_down").unwrap()[0] > 0,
            "packets in flight were lost"
        );
        // Nothing is delivered during the outage.
        let fs = &r.flow_series;
        let at = |t: f64| {
            fs.ints("delivered").unwrap()[fs
                .floats("t_s")
                .unwrap()
                .iter()
                .position(|&x| x >= t)
                .unwrap()]
        };
        assert_eq!(at(1.02), at(1.49), "delivery stalls while the link is down");
    }
    // 8 MB at 10 Mbit/s takes at least 6.4 s of link time.
    assert!(slow.flows.opt_floats("completion_s").unwrap()[0].unwrap() > 6.4);
    assert!(
        fast.flows.opt_floats("completion_s").unwrap()[0].unwrap()
            < slow.flows.opt_floats("completion_s").unwrap()[0].unwrap() - 1.0
    );
}

/// The timer-driven test controller sends exactly `burst` segments every `interval`.
#[test]
fn fixed_burst_controller_is_timer_driven() {
    let sc = parse_scenario_str(
        r#"
        sample = "off"
        [link]
        rate = "100Mbps"
        delay = "5ms"
        queue = "1000pkt"
        [[flow]]
        cc = "fixed_burst"
        cc_params = { burst = 5, interval_ms = 20 }
        bytes = "146000"
        stack = "tcplab"  # tcplab's own defaults (MSS 1460), as the counts below assume
        "#,
        "burst.toml",
    )
    .unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    // 100 segments in bursts of 5 every 20 ms: the last burst leaves at 19 x 20 ms = 380 ms,
    // so completion is just after 380 ms + one-way delay, independent of ACK clocking.
    let done = r.flows.opt_floats("completion_s").unwrap()[0].unwrap();
    assert!((0.385..0.40).contains(&done), "completion {done}");
    assert_eq!(r.flows.ints("segments_sent").unwrap()[0], 100);
}
