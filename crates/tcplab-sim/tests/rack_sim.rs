//! RACK-TLP (RFC 8985) against RFC 6675 IsLost in whole simulations: the seed-001 channel
//! (100 Mbit/s, 100-packet drop-tail buffer, PER 0.5 %, 10 MiB) at 30 ms one-way delay,
//! where the buffer is a fifth of the BDP and slow start (or BBR's startup) overflows it.
//! Under RFC 6675 a lost retransmission is only found by the RTO; RACK finds it about one
//! RTT after it was sent.

use tcplab_sim::simulate;

/// Parses with tcplab's own defaults pinned (`stack = "tcplab"`), which these checks were
/// written for (TCP flows default to the `linux` profile).
fn parse_pinned(text: &str, source: &str) -> Result<tcplab_sim::Scenario, tcplab_sim::ConfigError> {
    tcplab_sim::parse_scenario_str(&format!("stack = \"tcplab\"\n{text}"), source)
}

/// (RTOs, retransmitted segments, goodput bit/s) summed / averaged over `seeds` runs.
fn run(cc: &str, delay: &str, loss: &str, detection: &str, seeds: u64) -> (u64, u64, f64) {
    let sc = parse_pinned(
        &format!(
            "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"{delay}\"\nqueue = \"100pkt\"\n\
             loss = \"{loss}\"\n[[flow]]\ncc = \"{cc}\"\nrecovery = \"sack\"\nbytes = \"10MiB\"\n\
             loss_detection = \"{detection}\"\n"
        ),
        "rack_sim.rs",
    )
    .unwrap();
    let (mut rtos, mut rtx, mut goodput) = (0, 0, 0.0);
    for seed in 1..=seeds {
        let r = simulate(&sc, seed, 0).unwrap();
        assert!(
            r.flows.bools("completed").unwrap()[0],
            "{cc}/{detection} seed {seed} completes"
        );
        rtos += r.flows.ints("rtos").unwrap()[0];
        rtx += r.flows.ints("retransmitted_segments").unwrap()[0];
        goodput += r.flows.floats("goodput_bps").unwrap()[0] / seeds as f64;
    }
    (rtos, rtx, goodput)
}

/// Measured (5 seeds, sums): BBR at 30 ms / PER 0.5 %: 29 RTOs without RACK, 0 with
/// (goodput 2.6 -> 61 Mbit/s); NewReno (SACK) at 10 ms / PER 0: 5 RTOs -> 0.
#[test]
fn rack_reduces_rtos_on_a_shallow_buffer() {
    for (cc, delay, loss) in [("bbr", "30ms", "0.5%"), ("newreno", "10ms", "0%")] {
        let dup = run(cc, delay, loss, "dupack", 5);
        let rack = run(cc, delay, loss, "rack", 5);
        eprintln!("{cc}: dupack (rtos, rtx, goodput) = {dup:?}, rack = {rack:?}");
        assert!(dup.0 >= 5, "{cc}: RFC 6675 times out: {dup:?}");
        assert!(
            rack.0 < dup.0,
            "{cc}: RTOs with RACK {rack:?} vs without {dup:?}"
        );
        assert!(
            rack.2 > dup.2,
            "{cc}: goodput with RACK {rack:?} vs without {dup:?}"
        );
    }
}

#[test]
fn rack_needs_sack_recovery() {
    let parse = |flow: &str| {
        parse_pinned(
            &format!("[link]\nrate = \"1Mbps\"\n[[flow]]\nbytes = \"1MB\"\n{flow}"),
            "t.toml",
        )
    };
    let e = parse("cc = \"newreno\"\nloss_detection = \"rack\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("loss_detection") && e.contains("recovery = \"sack\""),
        "{e}"
    );
    let e = parse("cc = \"bbr\"\nsack = false\nloss_detection = \"rack\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("loss_detection"), "{e}");
    let e = parse("recovery = \"sack\"\nloss_detection = \"fack\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"dupack\"") && e.contains("\"rack\""), "{e}");
    assert!(parse("cc = \"bbr\"\nloss_detection = \"rack\"\n").is_ok());
    assert!(parse("recovery = \"sack\"\nloss_detection = \"dupack\"\n").is_ok());
}

/// The seed-001 base at 5 ms one-way delay, `recovery = "sack"`, with the receive window
/// of before the 6 MiB default (64 MiB: never the limit, so the counts below are the
/// recoveries' own): one run's
/// (goodput bit/s, window cuts, RTOs, retransmitted segments, link drops, random drops).
fn run_5ms(cc: &str, detection: &str, seed: u64) -> (f64, u64, u64, u64, u64, u64) {
    let sc = parse_pinned(
        &format!(
            "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nqueue = \"100pkt\"\n\
             loss = \"0.5%\"\n[[flow]]\ncc = \"{cc}\"\nrecovery = \"sack\"\nbytes = \"10MiB\"\n\
             mss = 1460\nloss_detection = \"{detection}\"\nrcv_buf = \"64MiB\"\n"
        ),
        "rack_sim.rs",
    )
    .unwrap();
    let r = simulate(&sc, seed, 0).unwrap();
    assert!(
        r.flows.bools("completed").unwrap()[0],
        "{cc}/{detection} seed {seed} completes"
    );
    let fwd = r
        .links
        .texts("direction")
        .unwrap()
        .iter()
        .position(|d| *d == "fwd")
        .unwrap();
    let (q, l) = (
        r.links.ints("dropped_queue").unwrap()[fwd],
        r.links.ints("dropped_loss").unwrap()[fwd],
    );
    let f = &r.flows;
    (
        f.floats("goodput_bps").unwrap()[0],
        f.ints("fast_retransmits").unwrap()[0],
        f.ints("rtos").unwrap()[0],
        f.ints("retransmitted_segments").unwrap()[0],
        q + l,
        l,
    )
}

/// Why NewReno and Cubic average less with RACK at 5 ms (NewReno 29.6 -> 18.3 Mbit/s,
/// Cubic 30.8 -> 20.5 over seeds 1-5): seed 1 alone. There slow start overflows the
/// buffer and a retransmission is lost; RFC 6675 cannot see that, so the sender stays in
/// one recovery episode until the RTO (about 1 s), sending the rest of the 10 MiB at the
/// reduced but still BDP-plus-buffer-sized window and answering none of the ~40 random
/// losses of that second with a window cut. RACK repairs the lost retransmission within
/// an RTT, recovery ends, and every later random loss halves the window as RFC 5681
/// requires. On the other seeds both detections give the same goodput, and RACK
/// retransmits exactly the segments the link dropped (no spurious retransmissions).
#[test]
fn rack_at_5ms_loses_only_rfc6675s_unanswered_losses() {
    for cc in ["newreno", "cubic"] {
        let dup = run_5ms(cc, "dupack", 1);
        let rack = run_5ms(cc, "rack", 1);
        eprintln!("{cc} seed 1: dupack {dup:?}, rack {rack:?}");
        assert_eq!((dup.1, dup.2), (1, 1), "{cc}: one cut, one RTO: {dup:?}");
        assert!(dup.5 >= 40 && dup.0 > 60e6, "{cc}: {dup:?}");
        assert!(
            rack.1 >= 35 && rack.2 == 0 && rack.0 < 25e6,
            "{cc}: {rack:?}"
        );
        assert_eq!(
            rack.3, rack.4,
            "{cc}: RACK retransmits only drops: {rack:?}"
        );
        for seed in 2..=5 {
            let dup = run_5ms(cc, "dupack", seed);
            let rack = run_5ms(cc, "rack", seed);
            assert_eq!(rack.3, rack.4, "{cc} seed {seed}: {rack:?}");
            assert!(
                rack.0 > 0.95 * dup.0,
                "{cc} seed {seed}: rack {rack:?} vs dupack {dup:?}"
            );
        }
    }
}
