//! Scenario keys for time-varying links: handovers, trace-driven capacity, jitter.

use tcplab_core::Dur;
use tcplab_sim::{parse_scenario_str, simulate, Results};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/scenario.toml");

/// Forward-direction delivered bytes of link 0 at each sample.
fn fwd_delivered(r: &Results) -> Vec<(f64, u64)> {
    let ls = &r.link_series;
    let (t, d) = (
        ls.floats("t_s").unwrap(),
        ls.ints("delivered_bytes").unwrap(),
    );
    let (link, dir) = (ls.texts("link").unwrap(), ls.texts("direction").unwrap());
    (0..t.len())
        .filter(|&i| link[i] == "link" && dir[i] == "fwd")
        .map(|i| (t[i], d[i]))
        .collect()
}

fn at(v: &[(f64, u64)], t: f64) -> u64 {
    v.iter()
        .filter(|(s, _)| *s <= t + 1e-9)
        .map(|x| x.1)
        .max()
        .unwrap_or(0)
}

#[test]
fn handover_is_exactly_the_outage_then_the_new_link() {
    let sc = parse_scenario_str(
        r#"
        duration = "8s"
        sample = "10ms"
        [link]
        rate = "10Mbps"
        delay = "10ms"
        queue = "100pkt"
        [[link.handover]]
        at = "1s"
        outage = "500ms"
        to = { rate = "2Mbps", delay = "50ms", queue = "20pkt" }
        [[flow]]
        cc = "newreno"
        bytes = "unlimited"
        "#,
        "handover.toml",
    )
    .unwrap();
    let ch = &sc.links[0].schedule;
    assert_eq!(ch.len(), 2);
    assert_eq!(
        (ch[0].at, ch[0].fwd.up, ch[0].rev.up),
        (Dur::from_secs(1), false, false)
    );
    assert_eq!(ch[0].fwd.rate_bps, 10_000_000);
    assert_eq!((ch[1].at, ch[1].fwd.up), (Dur::from_millis(1500), true));
    assert_eq!(ch[1].fwd.rate_bps, 2_000_000);
    assert_eq!(ch[1].rev.delay, Dur::from_millis(50));
    assert_eq!(ch[1].fwd.queue, tcplab_link::QueueLimit::Packets(20));

    let r = simulate(&sc, 1, 0).unwrap();
    let d = fwd_delivered(&r);
    // Nothing crosses during the outage; packets in flight at 1 s are lost.
    assert_eq!(at(&d, 1.0), at(&d, 1.5));
    assert!(at(&d, 1.0) > at(&d, 0.9));
    assert!(r.links.ints("dropped_down").unwrap()[0] > 0);
    // After (once NewReno's backed-off RTO has let it restart): at most 2 Mbit/s, and it
    // does carry data.
    let after = (at(&d, 8.0) - at(&d, 5.0)) as f64 * 8.0 / 3.0;
    assert!(
        after > 1.0e6 && after <= 2.0e6 * 1.02,
        "rate after handover {after}"
    );
}

#[test]
fn trace_capacity_from_a_bundled_file() {
    let sc = parse_scenario_str(
        r#"
        duration = "12s"
        sample = "10ms"
        [link]
        trace = "traces/stepped.mahi"
        delay = "5ms"
        queue = "200pkt"
        [[flow]]
        cc = "newreno"
        bytes = "unlimited"
        "#,
        EXAMPLES,
    )
    .unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    let d = fwd_delivered(&r);
    let rate = |a: f64, b: f64| (at(&d, b) - at(&d, a)) as f64 * 8.0 / (b - a);
    // 12 → 4 → 8 Mbit/s, 4 s each; measure inside each step (skip 1 s after a change).
    for (a, b, cap) in [(1.0, 4.0, 12e6), (5.0, 8.0, 4e6), (9.0, 12.0, 8e6)] {
        let x = rate(a, b);
        assert!(
            x <= cap * 1.01 && x > 0.8 * cap,
            "{a}-{b} s: {x} bit/s vs {cap}"
        );
    }
}

#[test]
fn time_varying_keys_are_checked() {
    let base = |extra: &str| {
        format!("[link]\nrate = \"10Mbps\"\n{extra}\n[[flow]]\ncc = \"newreno\"\nbytes = \"1MB\"\n")
    };
    let err = |extra: &str| {
        parse_scenario_str(&base(extra), EXAMPLES)
            .unwrap_err()
            .to_string()
    };
    assert!(err("[[link.handover]]\nat = \"1s\"").contains("to"));
    assert!(err("[[link.handover]]\nto = { rate = \"1Mbps\" }").contains("at"));
    let e = err("[[link.handover]]\nat = \"1s\"\nto = { up = false }");
    assert!(e.contains("up"), "{e}");
    let e = err(
        "[[link.schedule]]\nat = \"1200ms\"\nloss = \"1%\"\n[[link.handover]]\nat = \"1s\"\noutage = \"500ms\"\nto = { rate = \"1Mbps\" }",
    );
    assert!(e.contains("overlaps"), "{e}");
    let e = err("[[link.handover]]\nat = \"1s\"\nto = { rate = \"1Mbps\", colour = 3 }");
    assert!(e.contains("colour"), "{e}");
    // (`trace` without `rate`: giving both is an error of its own.)
    let e = parse_scenario_str(
        "[link]\ntrace = \"traces/missing.mahi\"\n[[flow]]\nbytes = \"1MB\"\n",
        EXAMPLES,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("cannot read"), "{e}");
    let e = err("jitter = \"fast\"");
    assert!(e.contains("jitter"), "{e}");
    // Jitter parses into both directions.
    let sc = parse_scenario_str(&base("jitter = \"3ms\""), EXAMPLES).unwrap();
    assert_eq!(sc.links[0].fwd.jitter, Dur::from_millis(3).into());
    assert_eq!(sc.links[0].rev.jitter, Dur::from_millis(3).into());
}
