//! RFC 6937 PRR (`recovery_cwnd = "prr"`) against RFC 6675's cwnd = ssthresh in whole
//! simulations on the seed-001 channel (100 Mbit/s, 100-packet drop-tail buffer, PER
//! 0.5 % on data, 10 MiB, SACK recovery).

use tcplab_sim::{parse_scenario_str, simulate};

/// Pins tcplab's own defaults (`stack = "tcplab"`), which these checks were written for
/// (TCP flows default to the `linux` profile).
fn pinned(toml: &str) -> String {
    format!("stack = \"tcplab\"\n{toml}")
}

fn parse(flow: &str) -> Result<tcplab_sim::Scenario, tcplab_sim::ConfigError> {
    parse_scenario_str(
        &pinned(&format!(
            "[link]\nrate = \"1Mbps\"\n[[flow]]\nbytes = \"1MB\"\n{flow}"
        )),
        "t.toml",
    )
}

/// (goodput bit/s, RTOs, retransmitted segments, queue drops) of one run.
fn run(cc: &str, delay: &str, recovery_cwnd: &str, seed: u64) -> (f64, u64, u64, u64) {
    let sc = parse_scenario_str(
        &pinned(&format!(
            "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"{delay}\"\nqueue = \"100pkt\"\n\
             loss = \"0.5%\"\n[[flow]]\ncc = \"{cc}\"\nrecovery = \"sack\"\nbytes = \"10MiB\"\n\
             mss = 1448\nrecovery_cwnd = \"{recovery_cwnd}\"\n"
        )),
        "prr_sim.rs",
    )
    .unwrap();
    let r = simulate(&sc, seed, 0).unwrap();
    let f = &r.flows;
    assert!(
        f.bools("completed").unwrap()[0],
        "{cc}/{recovery_cwnd} seed {seed}"
    );
    let fwd = r
        .links
        .texts("direction")
        .unwrap()
        .iter()
        .position(|d| *d == "fwd")
        .unwrap();
    (
        f.floats("goodput_bps").unwrap()[0],
        f.ints("rtos").unwrap()[0],
        f.ints("retransmitted_segments").unwrap()[0],
        r.links.ints("dropped_queue").unwrap()[fwd],
    )
}

/// Where every loss episode is a single random loss (seeds 2–5: no queue overflow), PRR
/// keeps sending through recovery instead of pausing until pipe < ssthresh, so each
/// episode costs less time. Measured (mean goodput, Mbit/s, RFC 6675 -> PRR): NewReno
/// 1 ms 67.35 -> 67.87, 10 ms 9.10 -> 9.15; Cubic 1 ms 81.83 -> 81.86, 10 ms 10.15 ->
/// 10.16. Same losses, same retransmissions and RTOs; the option must reach the sender.
#[test]
fn prr_recovers_single_losses_sooner() {
    for cc in ["newreno", "cubic"] {
        for delay in ["1ms", "10ms"] {
            let mean = |mode| (2..=5).map(|s| run(cc, delay, mode, s).0).sum::<f64>() / 4.0;
            let (rfc, prr) = (mean("ssthresh"), mean("prr"));
            eprintln!("{cc} {delay}: RFC 6675 {rfc:.0}, PRR {prr:.0} bit/s");
            assert!(prr > rfc, "{cc} {delay}: PRR {prr} vs RFC 6675 {rfc}");
            for seed in 2..=5 {
                let (a, b) = (
                    run(cc, delay, "ssthresh", seed),
                    run(cc, delay, "prr", seed),
                );
                assert_eq!((a.1, a.2, a.3), (b.1, b.2, b.3), "{cc} {delay} seed {seed}");
            }
        }
    }
}

#[test]
fn prr_needs_sack_recovery() {
    let e = parse("cc = \"newreno\"\nrecovery_cwnd = \"prr\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("recovery_cwnd") && e.contains("recovery = \"sack\""),
        "{e}"
    );
    let e = parse("recovery = \"sack\"\nrecovery_cwnd = \"halve\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"ssthresh\"") && e.contains("\"prr\""), "{e}");
    assert!(parse("recovery = \"sack\"\nrecovery_cwnd = \"prr\"\n").is_ok());
    assert!(parse("cc = \"bbr\"\nrecovery_cwnd = \"prr\"\n").is_ok());
}
