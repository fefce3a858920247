//! ECN end to end in the simulator: marks instead of drops at a marking queue, drops for
//! flows without ECN, and DCTCP's queue on a step-marking bottleneck against the
//! analysis of Alizadeh et al. (SIGCOMM 2010, section 3.3).

use tcplab_sim::{parse_scenario_str, simulate, Results};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The bottleneck's forward row of the links table: `col`.
fn bottleneck(r: &Results, col: &str) -> Option<f64> {
    let links = r.links.texts("link").unwrap();
    let dirs = r.links.texts("direction").unwrap();
    let i = (0..links.len()).find(|&i| links[i] == "bottleneck" && dirs[i] == "fwd")?;
    r.links.opt_floats(col).and_then(|v| v[i])
}

/// The bottleneck's forward counter `col`.
fn bottleneck_count(r: &Results, col: &str) -> u64 {
    let links = r.links.texts("link").unwrap();
    let dirs = r.links.texts("direction").unwrap();
    let i = (0..links.len())
        .find(|&i| links[i] == "bottleneck" && dirs[i] == "fwd")
        .unwrap();
    r.links.opt_ints(col).unwrap()[i].unwrap()
}

fn total(r: &Results, col: &str) -> u64 {
    r.flows.opt_ints(col).unwrap().iter().flatten().sum()
}

fn run(text: &str, name: &str) -> Results {
    let sc = parse_scenario_str(text, name).unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap()
}

/// The CoDel example (4 Cubic flows, 10 Mbit/s, 1,000 packets) with CoDel's ECN on and
/// the flows' `ecn` set to `flows_ecn`.
fn codel_ecn(flows_ecn: bool) -> Results {
    let path = format!("{ROOT}/examples/codel-bufferbloat.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text
        .replace(
            "discipline = \"codel\"",
            "discipline = { kind = \"codel\", ecn = true }",
        )
        .replace(
            "cc = \"cubic\"",
            &format!("cc = \"cubic\"\necn = {flows_ecn}"),
        );
    run(&text, &path)
}

/// CoDel with ECN and Cubic with ECN: CoDel marks where it would drop, the senders
/// answer the echoed marks with window cuts, nothing is dropped early, and the median
/// sojourn stays near CoDel's 5 ms target (at most 10 ms). The same flows without ECN
/// through the same marking queue get drops and no marks (RFC 3168 section 5: a router
/// drops a Not-ECT packet it would have marked).
#[test]
fn codel_marks_ecn_flows_and_drops_the_others() {
    let on = codel_ecn(true);
    let off = codel_ecn(false);
    let (m_on, d_on) = (
        bottleneck_count(&on, "marked_ce"),
        bottleneck_count(&on, "dropped_aqm"),
    );
    let (m_off, d_off) = (
        bottleneck_count(&off, "marked_ce"),
        bottleneck_count(&off, "dropped_aqm"),
    );
    let p50 = bottleneck(&on, "sojourn_p50_ms").unwrap();
    let p50_off = bottleneck(&off, "sojourn_p50_ms").unwrap();
    let goodput = |r: &Results| total(r, "bytes_delivered") as f64;
    eprintln!(
        "codel+ecn, cubic ecn on: {m_on} marks, {d_on} early drops, {} limit drops, \
         median sojourn {p50:.2} ms (p95 {:.2}), {} ECN cuts, {} CE received, \
         {} retransmitted segments, goodput {:.2} Mbit/s",
        bottleneck_count(&on, "dropped_limit"),
        bottleneck(&on, "sojourn_p95_ms").unwrap(),
        total(&on, "ecn_cuts"),
        total(&on, "ce_received"),
        total(&on, "retransmitted_segments"),
        goodput(&on) * 8.0 / 60.0 / 1e6,
    );
    eprintln!(
        "codel+ecn, cubic ecn off: {m_off} marks, {d_off} early drops, median sojourn \
         {p50_off:.2} ms, {} retransmitted segments, goodput {:.2} Mbit/s",
        total(&off, "retransmitted_segments"),
        goodput(&off) * 8.0 / 60.0 / 1e6,
    );
    assert!(m_on > 0 && d_on == 0, "marks, not drops: {m_on} / {d_on}");
    assert!(total(&on, "ecn_cuts") > 0 && total(&on, "ce_received") > 0);
    assert!(p50 <= 10.0, "median sojourn {p50} ms");
    assert!(
        m_off == 0 && d_off > 0,
        "drops, not marks: {m_off} / {d_off}"
    );
    assert_eq!(total(&off, "ecn_cuts") + total(&off, "ce_received"), 0);
    assert!(goodput(&on) >= 0.9 * goodput(&off));
}

/// `n` DCTCP flows on the `dctcp-step.toml` example's bottleneck (10 Gbit/s, 100 µs
/// base RTT, step marking at K packets).
fn dctcp_step(n: usize, k: u64) -> Results {
    let path = format!("{ROOT}/examples/dctcp-step.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let flow = text.find("\n[[flow]]").expect("one flow") + 1;
    let (head, one) = text.split_at(flow);
    let head = head.replace("k = 40 }", &format!("k = {k} }}"));
    let text = format!("{head}{}", one.repeat(n));
    run(&text, &path)
}

/// Queue oscillation of the bottleneck (packets, sampled each 10 µs from 100 ms on):
/// (Q_max, Q_min, cycles), the means of each cycle's maximum and minimum. A cycle is
/// told by hysteresis: it rises above the samples' upper quartile, then falls below the
/// lower one (so the one-packet jitter of a packet in service does not split cycles).
fn oscillation(r: &Results) -> (f64, f64, usize) {
    let s = &r.link_series;
    let (t, link, dir) = (
        s.floats("t_s").unwrap(),
        s.texts("link").unwrap(),
        s.texts("direction").unwrap(),
    );
    let q = s.opt_ints("queue_pkts").unwrap();
    let qs: Vec<f64> = (0..t.len())
        .filter(|&i| link[i] == "bottleneck" && dir[i] == "fwd" && t[i] >= 0.1)
        .map(|i| q[i].unwrap() as f64)
        .collect();
    let mut sorted = qs.clone();
    sorted.sort_by(f64::total_cmp);
    let (lower, upper) = (sorted[sorted.len() / 4], sorted[sorted.len() * 3 / 4]);
    let (mut maxes, mut mins) = (vec![], vec![]);
    let (mut hi, mut lo, mut rising) = (f64::MIN, f64::MAX, true);
    for &x in &qs {
        if rising {
            hi = hi.max(x);
            if x > upper {
                rising = false; // the peak of this cycle comes next
            }
        } else if x < lower {
            // Fallen: this cycle's peak is known; its trough follows.
            maxes.push(hi);
            mins.push(lo);
            (hi, lo, rising) = (x, x, true);
            continue;
        } else {
            hi = hi.max(x);
        }
        lo = lo.min(x);
    }
    // (Each record pairs a cycle's trough with the peak after it; the first cycle
    // started mid-way and is left out.)
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let n = maxes.len();
    (
        avg(&maxes[1.min(n)..]),
        avg(&mins[1.min(n)..]),
        n.saturating_sub(1),
    )
}

/// DCTCP's steady state on a step-marking queue against the analysis of Alizadeh et al.
/// (SIGCOMM 2010, section 3.3): with N synchronised flows, path capacity C·RTT packets
/// and threshold K, Q_max = K + N and the amplitude A = ½·√(2N(C·RTT + K)), so Q_min =
/// K + N − A. Measured within 20 % for N = 2 and 10 (K = 40 packets, C·RTT = 83.3
/// packets of 1,500 bytes at 10 Gbit/s and 100 µs).
#[test]
fn dctcp_queue_oscillation_matches_the_analysis() {
    let k = 40.0;
    let bdp = 10e9 / 8.0 / 1500.0 * 100e-6;
    for n in [2usize, 10, 40] {
        let r = dctcp_step(n, k as u64);
        let (qmax, qmin, cycles) = oscillation(&r);
        let nf = n as f64;
        let a_model = 0.5 * (2.0 * nf * (bdp + k)).sqrt();
        let qmax_model = k + nf;
        let a = qmax - qmin;
        let goodput = total(&r, "bytes_delivered") as f64 * 8.0 / 0.5 / 1e9;
        eprintln!(
            "DCTCP N = {n}, K = {k}: Q_max {qmax:.1} (model {qmax_model:.1}), Q_min {qmin:.1} \
             (model {:.1}), A {a:.1} (model {a_model:.1}) over {cycles} cycles; marks {}, \
             early drops {}, limit drops {}, retransmitted {}, goodput {goodput:.2} Gbit/s",
            qmax_model - a_model,
            bottleneck_count(&r, "marked_ce"),
            bottleneck_count(&r, "dropped_aqm"),
            bottleneck_count(&r, "dropped_limit"),
            total(&r, "retransmitted_segments"),
        );
        assert!(cycles >= 20, "{cycles} cycles");
        assert!(
            (a / a_model - 1.0).abs() <= 0.2,
            "N = {n}: A {a} vs {a_model}"
        );
        assert!(
            (qmax / qmax_model - 1.0).abs() <= 0.2,
            "N = {n}: Q_max {qmax} vs {qmax_model}"
        );
    }
}

/// A flow without ECN through the step-marking queue gets early drops, never marks.
#[test]
fn step_marking_drops_what_cannot_be_marked() {
    let path = format!("{ROOT}/examples/dctcp-step.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("cc = \"dctcp\"", "cc = \"newreno\"");
    let r = run(&text, &path);
    let (marks, drops) = (
        bottleneck_count(&r, "marked_ce"),
        bottleneck_count(&r, "dropped_aqm"),
    );
    eprintln!("newreno without ECN at the step queue: {marks} marks, {drops} early drops");
    assert!(marks == 0 && drops > 0);
}

/// One clear error per bad value of the ECN keys: the file, the key, the value, why.
#[test]
fn bad_ecn_values_get_one_clear_error() {
    let cases = [
        ("ecn = \"yes\"", "", "flow[0].ecn", "true or false"),
        ("ecn = 1", "", "flow[0].ecn", "true or false"),
        (
            "cc = \"dctcp\"\necn = false",
            "",
            "flow[0].ecn",
            "needs ECN",
        ),
        (
            "",
            "\"step\"",
            "bottleneck.discipline",
            "needs its threshold",
        ),
        (
            "",
            "{ kind = \"step\" }",
            "bottleneck.discipline.k",
            "required",
        ),
        (
            "",
            "{ kind = \"step\", k = 0 }",
            "bottleneck.discipline.k",
            "between 1",
        ),
        (
            "",
            "{ kind = \"step\", k = \"many\" }",
            "bottleneck.discipline.k",
            "",
        ),
        (
            "",
            "{ kind = \"step\", k = 1.5 }",
            "bottleneck.discipline.k",
            "expected",
        ),
        (
            "",
            "{ kind = \"step\", k = 20, ecn = true }",
            "bottleneck.discipline.ecn",
            "unknown key",
        ),
    ];
    for (flow, discipline, key, why) in cases {
        let discipline = if discipline.is_empty() {
            "\"codel\""
        } else {
            discipline
        };
        let text = format!(
            "[topology]\nkind = \"dumbbell\"\n[bottleneck]\nrate = \"10Mbps\"\n\
             discipline = {discipline}\n[access]\nrate = \"1Gbps\"\n[[flow]]\nbytes = \"1MB\"\n{flow}\n"
        );
        let e = parse_scenario_str(&text, "bad.toml").expect_err(&text);
        let msg = e.to_string();
        assert!(msg.starts_with("bad.toml"), "{msg}");
        assert_eq!(e.key, key, "{text}: {msg}");
        assert!(msg.contains(why), "{text}: {msg}");
    }
    // A profile's `ecn = false` gives way to DCTCP.
    let ok = "[topology]\nkind = \"dumbbell\"\n[bottleneck]\nrate = \"10Mbps\"\n[access]\n\
              rate = \"1Gbps\"\n[[flow]]\nbytes = \"1MB\"\ncc = \"dctcp\"\nstack = \"linux\"\n";
    parse_scenario_str(ok, "ok.toml").unwrap();
}
