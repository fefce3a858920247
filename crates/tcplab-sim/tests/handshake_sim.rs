//! The handshake in whole runs: a lost SYN costs the 1 s SYN timeout (and a slow start
//! from one segment) exactly as on a real stack, goodput counts from the first SYN, and
//! `handshake = false` starts data at once.

use tcplab_sim::{simulate, Results};

/// Parses with tcplab's own defaults pinned (`stack = "tcplab"`), which these checks were
/// written for (TCP flows default to the `linux` profile).
fn parse_pinned(text: &str, source: &str) -> Result<tcplab_sim::Scenario, tcplab_sim::ConfigError> {
    tcplab_sim::parse_scenario_str(&format!("stack = \"tcplab\"\n{text}"), source)
}

fn run(extra_flow: &str, loss: &str) -> Results {
    let text = format!(
        "sample = \"off\"\n[link]\nrate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = \"100pkt\"\n\
         loss = {loss}\n[[flow]]\ncc = \"newreno\"\nbytes = \"100KB\"\n{extra_flow}\n"
    );
    let sc = parse_pinned(&text, "handshake_sim.rs").unwrap();
    simulate(&sc, 1, 0).unwrap()
}

fn completion(r: &Results) -> f64 {
    r.flows.opt_floats("completion_s").unwrap()[0].expect("completes")
}

#[test]
fn a_lost_syn_costs_one_second() {
    let clean = run("", "\"0%\"");
    let lost = run("", "{ model = \"list\", drop = [1] }");
    let none = run("handshake = false", "\"0%\"");
    // The handshake costs one round trip (20 ms + serialisation).
    let rtt = completion(&clean) - completion(&none);
    assert!((0.020..0.025).contains(&rtt), "handshake costs {rtt} s");
    assert_eq!(lost.flows.ints("syn_retransmits").unwrap()[0], 1);
    assert_eq!(clean.flows.ints("syn_retransmits").unwrap()[0], 0);
    // 1 s SYN timeout, then a slow start from one segment (IW 1, RFC 5681 3.1) instead of
    // ten: its lone first segment waits for the 200 ms delayed ACK, and three more round
    // trips follow (measured: 1.263 s).
    let extra = completion(&lost) - completion(&clean);
    assert!((1.2..1.3).contains(&extra), "a lost SYN costs {extra} s");
    let est = lost.flows.opt_floats("established_s").unwrap()[0].unwrap();
    assert!((1.020..1.025).contains(&est), "established at {est}");
    // Goodput counts from the first SYN (the flow's start).
    let g = clean.flows.floats("goodput_bps").unwrap()[0];
    let want = 100_000.0 * 8.0 / completion(&clean);
    assert!((g - want).abs() < 1.0, "{g} vs {want}");
}
