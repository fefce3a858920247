//! Scenario-level checks of the Reno-family built-ins: Tahoe, Reno, NewReno, Vegas,
//! Westwood and Westwood+ (reference: /work/shared/reference/algorithms.md).

use tcplab_sim::{parse_scenario_str, simulate, Results};

/// Pins tcplab's own defaults (`stack = "tcplab"`), which these checks were written for
/// (TCP flows default to the `linux` profile).
fn pinned(toml: &str) -> String {
    format!("stack = \"tcplab\"\n{toml}")
}

fn run(toml: &str) -> Results {
    let sc = parse_scenario_str(&pinned(toml), "variants_reno_family.rs").expect("valid scenario");
    simulate(&sc, 1, 0).expect("run succeeds")
}

/// Mean of the forward queue (packets) of link 0 over samples at t >= `from` seconds.
fn mean_queue(r: &Results, from: f64) -> f64 {
    let ls = &r.link_series;
    let (t, q) = (ls.floats("t_s").unwrap(), ls.ints("queue_pkts").unwrap());
    let (link, dir) = (ls.texts("link").unwrap(), ls.texts("direction").unwrap());
    let first = link[0];
    let v: Vec<f64> = (0..t.len())
        .filter(|&i| link[i] == first && dir[i] == "fwd" && t[i] >= from)
        .map(|i| q[i] as f64)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Jain's fairness index of the given throughputs.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * q)
}

/// One unlimited flow for 20 s on a 10 Mbit/s, 10 ms (one-way) link.
fn single(cc: &str, params: &str, sample: &str, queue: &str) -> String {
    format!(
        r#"
        sample = "{sample}"
        duration = "20s"
        [link]
        rate = "10Mbps"
        delay = "10ms"
        queue = "{queue}"
        [[flow]]
        cc = "{cc}"
        cc_params = {{ {params} }}
        bytes = "unlimited"
        "#
    )
}

fn dumbbell(cc: [&str; 2], duration: &str) -> String {
    format!(
        r#"
        sample = "off"
        duration = "{duration}"
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
        cc = "{}"
        bytes = "unlimited"
        [[flow]]
        cc = "{}"
        bytes = "unlimited"
        "#,
        cc[0], cc[1]
    )
}

/// Loss events of flow 0 after `from` s in a per-ACK series: (cwnd just before, ssthresh
/// set by the event, index of the event sample).
fn loss_events(r: &Results, from: f64, is_event: impl Fn(usize) -> bool) -> Vec<(u64, u64, usize)> {
    let fs = &r.flow_series;
    let (t, cwnd) = (fs.floats("t_s").unwrap(), fs.ints("cwnd").unwrap());
    let ssthresh = fs.opt_ints("ssthresh").unwrap();
    (1..t.len())
        .filter(|&i| t[i] >= from && is_event(i))
        .map(|i| (cwnd[i - 1], ssthresh[i].expect("set by a loss"), i))
        .collect()
}

const MSS: u64 = 1460;

/// Reno (RFC 5681) on a 10 Mbit/s, 20 ms, 20-packet drop-tail path: after the start-up,
/// every loss event (entry into fast recovery) sets ssthresh to half the window and
/// recovery ends with cwnd = ssthresh — the sawtooth halves at each loss.
#[test]
fn reno_sawtooth_halves_cwnd_at_each_loss() {
    let r = run(&single("reno", "", "ack", "20pkt"));
    assert_eq!(
        r.flows.texts("recovery").unwrap()[0],
        "reno",
        "cc = \"reno\" selects RFC 5681 recovery"
    );
    let fs = &r.flow_series;
    let state = fs.texts("state").unwrap();
    let events = loss_events(&r, 3.0, |i| {
        state[i] == "recovery" && state[i - 1] != "recovery"
    });
    assert!(events.len() >= 10, "{} loss events", events.len());
    for &(before, ssthresh, i) in &events {
        let ratio = ssthresh as f64 / before as f64;
        assert!(
            (0.45..=0.55).contains(&ratio),
            "t {}: {ssthresh} / {before}",
            fs.floats("t_s").unwrap()[i]
        );
        let exit = (i..fs.floats("t_s").unwrap().len())
            .find(|&j| state[j] != "recovery")
            .unwrap();
        assert_eq!(
            fs.ints("cwnd").unwrap()[exit],
            ssthresh,
            "recovery ends at cwnd = ssthresh"
        );
    }
}

/// Tahoe on the same path: every loss restarts slow start from one segment, with
/// ssthresh = half the window, and no timeouts after the start-up.
#[test]
fn tahoe_restarts_from_one_segment_at_each_loss() {
    let r = run(&single("tahoe", "", "ack", "20pkt"));
    let fs = &r.flow_series;
    let state = fs.texts("state").unwrap();
    let events = loss_events(&r, 1.0, |i| {
        fs.ints("cwnd").unwrap()[i] == MSS && fs.ints("cwnd").unwrap()[i - 1] > 4 * MSS
    });
    assert!(events.len() >= 10, "{} loss events", events.len());
    for &(before, ssthresh, i) in &events {
        let ratio = ssthresh as f64 / before as f64;
        assert!(
            (0.45..=0.55).contains(&ratio),
            "t {}: {ssthresh} / {before}",
            fs.floats("t_s").unwrap()[i]
        );
        assert_eq!(state[i], "slow_start");
    }
    assert!(!state.contains(&"recovery"), "Tahoe has no fast recovery");
    assert_eq!(
        r.flows.ints("rtos").unwrap()[0],
        0,
        "go-back-N repairs every loss without a timeout"
    );
}

/// Three losses in one window (forward packets 5, 6, 7): `cc = "newreno"` gets RFC 6582
/// recovery and repairs them in one recovery without a timeout; `cc = "reno"` gets
/// RFC 5681 recovery and needs the retransmission timer (Fall & Floyd 1996). An explicit
/// `recovery` key overrides the default.
#[test]
fn reno_and_newreno_names_select_their_recovery() {
    let drops = |cc: &str, extra: &str| {
        run(&format!(
            r#"
            sample = "off"
            [link]
            rate = "100Mbps"
            delay = "10ms"
            queue = "1000pkt"
            loss = {{ model = "list", drop = [5, 6, 7] }}
            [[flow]]
            cc = "{cc}"
            bytes = "100KB"
            {extra}
            "#
        ))
    };
    let nr = drops("newreno", "");
    assert_eq!(nr.flows.texts("recovery").unwrap()[0], "newreno");
    assert_eq!(
        (
            nr.flows.ints("rtos").unwrap()[0],
            nr.flows.ints("fast_retransmits").unwrap()[0]
        ),
        (0, 1)
    );
    let reno = drops("reno", "");
    assert_eq!(reno.flows.texts("recovery").unwrap()[0], "reno");
    assert!(
        reno.flows.ints("rtos").unwrap()[0] >= 1,
        "Reno waits for the timer"
    );
    let overridden = drops("reno", "recovery = \"newreno\"");
    assert_eq!(overridden.flows.texts("recovery").unwrap()[0], "newreno");
    assert_eq!(overridden.flows.ints("rtos").unwrap()[0], 0);
    for cc in ["tahoe", "vegas", "westwood", "westwoodplus"] {
        assert_eq!(
            drops(cc, "").flows.texts("recovery").unwrap()[0],
            "newreno",
            "{cc}"
        );
    }
}

/// Vegas on a lossless 10 Mbit/s, 20 ms path with a 100-packet queue keeps between alpha
/// and beta segments queued at the bottleneck (mean of the queue samples after 5 s, with
/// half a packet of tolerance for the packet in service), for the defaults (2, 4) and for
/// (6, 8); it never loses a packet.
#[test]
fn vegas_keeps_alpha_to_beta_packets_queued() {
    for (alpha, beta) in [(2.0, 4.0), (6.0, 8.0)] {
        let r = run(&single(
            "vegas",
            &format!("alpha = {alpha}, beta = {beta}"),
            "10ms",
            "100pkt",
        ));
        let q = mean_queue(&r, 5.0);
        assert!(
            (alpha - 0.5..=beta + 0.5).contains(&q),
            "alpha {alpha}, beta {beta}: mean queue {q:.2} packets"
        );
        assert_eq!(r.links.ints("dropped_queue").unwrap()[0], 0);
        assert_eq!(r.flows.ints("retransmitted_segments").unwrap()[0], 0);
        assert!(r.flows.floats("goodput_bps").unwrap()[0] > 0.95 * 10e6 * 1460.0 / 1500.0);
    }
}

/// Two flows of one variant on a 10 Mbit/s dumbbell (equal RTTs, 50-packet queue) for
/// 30 s share it fairly: Jain's index of the delivered bytes >= 0.9.
#[test]
fn same_variant_flows_share_fairly() {
    for cc in ["tahoe", "reno", "newreno", "westwoodplus"] {
        let r = run(&dumbbell([cc, cc], "30s"));
        let x: Vec<f64> = r
            .flows
            .ints("bytes_delivered")
            .unwrap()
            .iter()
            .map(|&b| b as f64)
            .collect();
        let j = jain(&x);
        assert!(j >= 0.9, "{cc}: Jain {j:.3} for {x:?}");
        assert!(x.iter().sum::<f64>() * 8.0 / 30.0 > 0.9 * 10e6 * 1460.0 / 1500.0);
    }
}

/// Vegas against Reno on one bottleneck gets less: Reno fills the queue until it loses,
/// which Vegas reads as congestion and backs off (Mo et al., "Analysis and comparison of
/// TCP Reno and Vegas", INFOCOM 1999).
#[test]
fn vegas_gets_less_than_reno() {
    let r = run(&dumbbell(["vegas", "reno"], "30s"));
    let (v, reno) = (
        r.flows.ints("bytes_delivered").unwrap()[0],
        r.flows.ints("bytes_delivered").unwrap()[1],
    );
    assert!(v < reno, "vegas {v} B, reno {reno} B");
}

/// Westwood+ and Westwood after a loss in congestion avoidance: ssthresh = bandwidth ×
/// RTTmin, where the bandwidth is the bottleneck's payload rate (10 Mbit/s × 1460/1500,
/// the link is the bottleneck) and RTTmin the flow's minimum RTT. Loss events after 5 s
/// (filters converged); within 10 %. Reno's rule (half the window, ~120 packets here)
/// would be ~3× too large.
#[test]
fn westwood_sets_ssthresh_to_bandwidth_times_rtt_min() {
    for cc in ["westwoodplus", "westwood"] {
        let r = run(&single(cc, "", "ack", "100pkt"));
        let bdp =
            10e6 * 1460.0 / 1500.0 / 8.0 * r.flows.opt_floats("rtt_min_s").unwrap()[0].unwrap();
        let fs = &r.flow_series;
        let ssthresh = fs.opt_ints("ssthresh").unwrap();
        let events = loss_events(&r, 5.0, |i| ssthresh[i] != ssthresh[i - 1]);
        assert!(!events.is_empty(), "{cc}: no loss after 5 s");
        for &(before, ssthresh, i) in &events {
            let err = (ssthresh as f64 - bdp).abs() / bdp;
            assert!(
                err < 0.10,
                "{cc} t {}: ssthresh {ssthresh} vs bw·RTTmin {bdp:.0}",
                fs.floats("t_s").unwrap()[i]
            );
            assert!(
                ssthresh < before / 3,
                "far below Reno's half window {before}"
            );
        }
        // The estimate is traced for analysis.
        assert!(r.cc_trace.key.contains(&"bwe_bps"));
    }
}
