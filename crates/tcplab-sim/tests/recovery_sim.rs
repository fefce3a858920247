//! Whole-simulation check of loss recovery with an explicit drop list: three segments of
//! one window are lost (forward-link packets 5, 6 and 7, i.e. segments 4, 5 and 6).
//!
//! RFC 6582 (NewReno) repairs them inside one fast recovery, one hole per partial ACK, so
//! no retransmission timeout. RFC 5681 Reno leaves recovery on the first partial ACK with
//! cwnd = ssthresh and typically has to wait for the timer (Fall & Floyd, "Simulation-based
//! comparisons of Tahoe, Reno and SACK TCP", 1996: Reno with three drops in a window
//! generally needs a retransmit timeout). RFC 6675 SACK also needs no timeout.

use tcplab_sim::{parse_scenario_str, simulate, Results};

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
    let sc = parse_scenario_str(&text, "recovery_sim.rs").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    assert!(r.flows.completed[0], "{recovery}: transfer must complete");
    assert_eq!(r.flows.bytes_delivered[0], 100_000);
    r
}

/// NewReno: one fast retransmit, three retransmissions, no RTO. Reno: needs a timeout and
/// finishes later. SACK: no timeout either.
#[test]
fn newreno_recovers_three_losses_without_rto_reno_does_not() {
    let nr = run("newreno");
    assert_eq!(
        nr.links.dropped_loss[0], 3,
        "the three listed packets were dropped"
    );
    assert_eq!(nr.flows.rtos[0], 0, "NewReno: no timeout");
    assert_eq!(
        nr.flows.fast_retransmits[0], 1,
        "NewReno: one recovery episode"
    );
    assert_eq!(nr.flows.retransmitted_segments[0], 3);

    let reno = run("reno");
    assert!(reno.flows.rtos[0] >= 1, "Reno: a timeout is needed");
    let (t_nr, t_reno) = (
        nr.flows.completion_s[0].unwrap(),
        reno.flows.completion_s[0].unwrap(),
    );
    // The timeout costs at least the 1 s minimum RTO, far more than NewReno's 3 RTTs.
    assert!(t_reno > t_nr + 0.5, "reno {t_reno} s vs newreno {t_nr} s");

    let sack = run("sack");
    assert_eq!(sack.flows.rtos[0], 0, "SACK: no timeout");
    assert_eq!(sack.flows.retransmitted_segments[0], 3);
    assert!(sack.flows.completion_s[0].unwrap() <= t_nr);
}
