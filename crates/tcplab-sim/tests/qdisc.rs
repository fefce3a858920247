//! Queue disciplines at a bottleneck, end to end.

use tcplab_sim::{parse_scenario_str, simulate, Results};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The bottleneck's forward row of the links table: (column value) for `col`.
fn bottleneck(r: &Results, col: &str) -> Option<f64> {
    let links = r.links.texts("link").unwrap();
    let dirs = r.links.texts("direction").unwrap();
    let i = (0..links.len()).find(|&i| links[i] == "bottleneck" && dirs[i] == "fwd")?;
    r.links.opt_floats(col).and_then(|v| v[i])
}

/// The CoDel example with its discipline replaced by `discipline`.
fn codel_example(discipline: &str) -> Results {
    let path = format!("{ROOT}/examples/codel-bufferbloat.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace(
        "discipline = \"codel\"",
        &format!("discipline = {discipline}"),
    );
    let sc = parse_scenario_str(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap()
}

/// The AQM validation: on a 10 Mbit/s bottleneck with a 1,000-packet buffer and 4
/// Cubic flows, CoDel holds the median sojourn near its 5 ms target (at most 10 ms),
/// where the same drop-tail queue stands at hundreds of milliseconds.
#[test]
fn codel_holds_the_median_sojourn_near_its_target() {
    let codel = codel_example("\"codel\"");
    let fifo = codel_example("\"fifo\"");
    let (c50, f50) = (
        bottleneck(&codel, "sojourn_p50_ms").unwrap(),
        bottleneck(&fifo, "sojourn_p50_ms").unwrap(),
    );
    eprintln!(
        "median sojourn: codel {c50:.2} ms, drop-tail {f50:.1} ms; p95 codel {:.2} ms; codel drops {:?}",
        bottleneck(&codel, "sojourn_p95_ms").unwrap(),
        codel.links.opt_ints("dropped_aqm").unwrap()
    );
    assert!(c50 <= 10.0, "CoDel median sojourn {c50} ms");
    assert!(f50 >= 100.0, "drop-tail median sojourn {f50} ms");
    let goodput = |r: &Results| r.flows.ints("bytes_delivered").unwrap().iter().sum::<u64>();
    // CoDel keeps the link busy: at least 90 % of drop-tail's goodput.
    assert!(goodput(&codel) as f64 >= 0.9 * goodput(&fifo) as f64);
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

fn example(name: &str, discipline: Option<&str>) -> Results {
    let path = format!("{ROOT}/examples/{name}");
    let mut text = std::fs::read_to_string(&path).unwrap();
    if let Some(d) = discipline {
        let line = text
            .lines()
            .find(|l| l.starts_with("discipline = "))
            .unwrap()
            .to_string();
        text = text.replace(&line, &format!("discipline = {d}"));
    }
    let sc = parse_scenario_str(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap()
}

/// FQ-CoDel shares the bottleneck evenly between two Cubic flows whose round trips
/// differ tenfold (Jain index >= 0.99), where drop-tail does not.
#[test]
fn fq_codel_is_fair_across_a_tenfold_rtt_difference() {
    let per_flow = |r: &Results| -> Vec<f64> {
        r.flows
            .ints("bytes_delivered")
            .unwrap()
            .iter()
            .map(|&b| b as f64)
            .collect()
    };
    let fq = per_flow(&example("fq-codel-rtt-fairness.toml", None));
    let tail = per_flow(&example(
        "fq-codel-rtt-fairness.toml",
        Some("\"drop-tail\""),
    ));
    eprintln!(
        "bytes: fq_codel {fq:?} (Jain {:.4}), drop-tail {tail:?} (Jain {:.4})",
        jain(&fq),
        jain(&tail)
    );
    assert!(jain(&fq) >= 0.99, "FQ-CoDel Jain {}", jain(&fq));
    assert!(jain(&tail) < jain(&fq));
}

/// PIE and RED run their examples, drop early (not only at the buffer's limit) and keep
/// the median sojourn well below the drop-tail queue's.
#[test]
fn pie_and_red_drop_early_and_cut_the_delay() {
    for name in ["pie-bufferbloat.toml", "red-gentle.toml"] {
        let r = example(name, None);
        let fifo = example(name, Some("\"fifo\""));
        let (p50, f50) = (
            bottleneck(&r, "sojourn_p50_ms").unwrap(),
            bottleneck(&fifo, "sojourn_p50_ms").unwrap(),
        );
        let aqm = |r: &Results, col: &str| -> u64 {
            r.links.opt_ints(col).unwrap().iter().flatten().sum()
        };
        eprintln!(
            "{name}: median sojourn {p50:.2} ms (drop-tail {f50:.1} ms), early drops {}, limit drops {}",
            aqm(&r, "dropped_aqm"),
            aqm(&r, "dropped_limit")
        );
        assert!(aqm(&r, "dropped_aqm") > 0, "{name}: no early drop");
        assert!(p50 < f50 / 2.0, "{name}: {p50} vs drop-tail {f50}");
    }
}

/// One clear error per bad value: the file, the key (its path), the value and why.
#[test]
fn bad_discipline_values_get_one_clear_error() {
    let cases = [
        ("\"blue\"", "bottleneck.discipline", "unknown discipline"),
        ("3", "bottleneck.discipline", "expected a name"),
        (
            "{ target = \"5ms\" }",
            "bottleneck.discipline.kind",
            "required",
        ),
        (
            "{ kind = \"codel\", target = \"0ms\" }",
            "bottleneck.discipline.target",
            "must be > 0",
        ),
        (
            "{ kind = \"codel\", target = \"200ms\" }",
            "bottleneck.discipline.target",
            "must be below interval",
        ),
        (
            "{ kind = \"codel\", ecn = \"yes\" }",
            "bottleneck.discipline.ecn",
            "true or false",
        ),
        (
            "{ kind = \"codel\", flows = 8 }",
            "bottleneck.discipline.flows",
            "unknown key",
        ),
        (
            "{ kind = \"fq_codel\", flows = 0 }",
            "bottleneck.discipline.flows",
            "between 1 and 65536",
        ),
        (
            "{ kind = \"fq_codel\", quantum = \"0B\" }",
            "bottleneck.discipline.quantum",
            "between 1 byte",
        ),
        (
            "{ kind = \"pie\", alpha = -1 }",
            "bottleneck.discipline.alpha",
            "weight >= 0",
        ),
        (
            "{ kind = \"pie\", t_update = \"0s\" }",
            "bottleneck.discipline.t_update",
            "must be > 0",
        ),
        (
            "{ kind = \"red\", min_th = 20 }",
            "bottleneck.discipline.max_th",
            "above min_th",
        ),
        (
            "{ kind = \"red\", max_p = 1.5 }",
            "bottleneck.discipline.max_p",
            "(0, 1]",
        ),
        (
            "{ kind = \"red\", weight = 0 }",
            "bottleneck.discipline.weight",
            "(0, 1]",
        ),
    ];
    for (value, key, why) in cases {
        let text = format!(
            "[topology]\nkind = \"dumbbell\"\n[bottleneck]\nrate = \"10Mbps\"\ndiscipline = {value}\n\
             [access]\nrate = \"1Gbps\"\n[[flow]]\nbytes = \"1MB\"\n"
        );
        let e = parse_scenario_str(&text, "bad.toml").expect_err(value);
        let msg = e.to_string();
        assert!(msg.starts_with("bad.toml"), "{msg}");
        assert_eq!(e.key, key, "{value}: {msg}");
        assert!(msg.contains(why), "{value}: {msg}");
    }
    let half = "[link]\nrate = \"10Mbps\"\nduplex = \"half\"\ndiscipline = \"codel\"\n[[flow]]\nbytes = \"1MB\"\n";
    let e = parse_scenario_str(half, "half.toml").unwrap_err();
    assert!(e.to_string().contains("full-duplex links only"), "{e}");
}

/// The discipline's state is a link series: PIE's probability rises above 0 under the
/// four flows, CoDel enters its dropping state.
#[test]
fn discipline_state_is_a_series() {
    let pie = example("pie-bufferbloat.toml", None);
    let p = pie.link_series.opt_floats("pie_drop_prob").unwrap();
    let max = p.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
    assert!(max > 0.0 && max <= 1.0, "PIE's peak probability {max}");
    let codel = codel_example("\"codel\"");
    let d = codel.link_series.opt_ints("codel_dropping").unwrap();
    assert!(d.iter().flatten().any(|&x| x == 1));
    assert!(codel
        .link_series
        .opt_ints("codel_count")
        .unwrap()
        .iter()
        .flatten()
        .any(|&c| c > 1));
}
