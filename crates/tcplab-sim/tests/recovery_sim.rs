//! Whole-simulation check of loss recovery with an explicit drop list: three segments of
//! one window are lost (forward-link packets 5, 6 and 7, i.e. segments 4, 5 and 6).
//!
//! RFC 6582 (NewReno) repairs them inside one fast recovery, one hole per partial ACK, so
//! no retransmission timeout. RFC 5681 Reno leaves recovery on the first partial ACK with
//! cwnd = ssthresh and typically has to wait for the timer (Fall & Floyd, "Simulation-based
//! comparisons of Tahoe, Reno and SACK TCP", 1996: Reno with three drops in a window
//! generally needs a retransmit timeout). RFC 6675 SACK also needs no timeout.

use tcplab_sim::{simulate, Results};

/// Parses with tcplab's own defaults pinned (`stack = "tcplab"`), which these checks were
/// written for (TCP flows default to the `linux` profile).
fn parse_pinned(text: &str, source: &str) -> Result<tcplab_sim::Scenario, tcplab_sim::ConfigError> {
    tcplab_sim::parse_scenario_str(&format!("stack = \"tcplab\"\n{text}"), source)
}

fn run(recovery: &str) -> Results {
    let text = format!(
        r#"
name = "three-losses-{recovery}"
sample = "off"

[link]
rate = "100Mbps"
delay = "10ms"
queue = "1000pkt"
loss = {{ model = "list", drop = [5, 6, 7] }}

[[flow]]
cc = "newreno"
recovery = "{recovery}"
bytes = "100KB"
"#
    );
    let sc = parse_pinned(&text, "recovery_sim.rs").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    assert!(
        r.flows.bools("completed").unwrap()[0],
        "{recovery}: transfer must complete"
    );
    assert_eq!(r.flows.ints("bytes_delivered").unwrap()[0], 100_000);
    r
}

/// NewReno: one fast retransmit, three retransmissions, no RTO. Reno: needs a timeout and
/// finishes later. SACK: no timeout either.
#[test]
fn newreno_recovers_three_losses_without_rto_reno_does_not() {
    let nr = run("newreno");
    assert_eq!(
        nr.links.ints("dropped_loss").unwrap()[0],
        3,
        "the three listed packets were dropped"
    );
    assert_eq!(nr.flows.ints("rtos").unwrap()[0], 0, "NewReno: no timeout");
    assert_eq!(
        nr.flows.ints("fast_retransmits").unwrap()[0],
        1,
        "NewReno: one recovery episode"
    );
    assert_eq!(nr.flows.ints("retransmitted_segments").unwrap()[0], 3);

    let reno = run("reno");
    assert!(
        reno.flows.ints("rtos").unwrap()[0] >= 1,
        "Reno: a timeout is needed"
    );
    let (t_nr, t_reno) = (
        nr.flows.opt_floats("completion_s").unwrap()[0].unwrap(),
        reno.flows.opt_floats("completion_s").unwrap()[0].unwrap(),
    );
    // The timeout costs at least the 1 s minimum RTO, far more than NewReno's 3 RTTs.
    assert!(t_reno > t_nr + 0.5, "reno {t_reno} s vs newreno {t_nr} s");

    let sack = run("sack");
    assert_eq!(sack.flows.ints("rtos").unwrap()[0], 0, "SACK: no timeout");
    assert_eq!(sack.flows.ints("retransmitted_segments").unwrap()[0], 3);
    assert!(sack.flows.opt_floats("completion_s").unwrap()[0].unwrap() <= t_nr);
}

/// RFC 6582 section 4: with many losses in one window, the "Impatient" timer ends NewReno
/// recovery in a timeout, while "Slow-but-Steady" repairs one hole per RTT without one.
#[test]
fn partial_ack_timer_variants() {
    let run = |timer: &str| {
        let drops: Vec<String> = (20..80).step_by(2).map(|n| n.to_string()).collect();
        let sc = parse_pinned(
            &format!(
                "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"20ms\"\nqueue = \"1000pkt\"\n\
                 loss = {{ model = \"list\", drop = [{}] }}\n[[flow]]\nbytes = \"2MB\"\n\
                 initial_cwnd = 100\nsack = false\npartial_ack_timer = \"{timer}\"\n",
                drops.join(", ")
            ),
            "timer.toml",
        )
        .unwrap();
        tcplab_sim::simulate(&sc, 1, 0).unwrap()
    };
    let impatient = run("impatient");
    let steady = run("slow-but-steady");
    // 30 holes x 40 ms RTT = 1.2 s > the 1 s minimum RTO.
    assert!(
        impatient.flows.ints("rtos").unwrap()[0] >= 1,
        "impatient times out"
    );
    assert_eq!(
        steady.flows.ints("rtos").unwrap()[0],
        0,
        "slow-but-steady never times out"
    );
    assert!(
        steady.flows.bools("completed").unwrap()[0]
            && impatient.flows.bools("completed").unwrap()[0]
    );
    let e = parse_pinned(
        "[link]\nrate = \"1Mbps\"\n[[flow]]\nbytes = \"1MB\"\npartial_ack_timer = \"eager\"\n",
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("partial_ack_timer") && e.contains("slow-but-steady"),
        "{e}"
    );
}
