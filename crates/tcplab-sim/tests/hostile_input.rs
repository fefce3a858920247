//! Inputs a careless or hostile user tried: each one a clear error naming the
//! file, key and value, never a run with a silently different meaning.

use tcplab_sim::{parse_scenario_file, parse_scenario_str, simulate};

const LINK: &str = "[link]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";
const FLOW: &str = "[[flow]]\nbytes = \"100KB\"\n";

fn err(toml: &str) -> String {
    parse_scenario_str(toml, "bad.toml")
        .unwrap_err()
        .to_string()
}

fn assert_err(toml: &str, needles: &[&str]) {
    let e = err(toml);
    for n in needles {
        assert!(e.contains(n), "error {e:?} should mention {n:?}");
    }
}

#[test]
fn names_cannot_leave_the_output_directory() {
    // Defect 4: the scenario name prefixes output files; "../../x" wrote outside `--out`.
    for (name, why) in [
        ("../../escaped", "'/'"),
        ("a\\\\b", "'/'"),
        ("..", "not empty"),
        ("", "not empty"),
        ("a\\u0000b", "control characters"),
        ("a\\nb", "control characters"),
    ] {
        let e = err(&format!("name = \"{name}\"\n{LINK}{FLOW}"));
        assert!(
            e.starts_with("bad.toml: name = ") && e.contains(why) && e.contains("output file"),
            "{name}: {e}"
        );
        assert!(
            !e.contains('\0') && !e.contains('\n'),
            "one printable line: {e:?}"
        );
    }
    let long = "x".repeat(201);
    assert_err(
        &format!("name = \"{long}\"\n{LINK}{FLOW}"),
        &["at most 200"],
    );
    let sc = parse_scenario_str(&format!("name = \"a b-1.2_é\"\n{LINK}{FLOW}"), "ok").unwrap();
    assert_eq!(sc.name, "a b-1.2_é");
}

#[test]
fn byte_rates_are_refused() {
    // Defect 5: "100MBps" ran at 100 Mbit/s.
    assert_err(
        &format!("[link]\nrate = \"100MBps\"\n{FLOW}"),
        &["link.rate = \"100MBps\"", "bits per second", "\"800Mbps\""],
    );
    assert_err(
        &format!("{LINK}reverse_rate = \"1MB/s\"\n{FLOW}"),
        &["link.reverse_rate", "\"8Mbps\""],
    );
}

#[test]
fn zero_timers_are_refused() {
    // Defect 8: min_rto = max_rto = "0s" fired the RTO at one instant forever.
    assert_err(
        &format!("{LINK}{FLOW}min_rto = \"0s\"\nmax_rto = \"0s\"\n"),
        &["flow[0].max_rto = \"0s\"", "> 0"],
    );
    assert_err(
        &format!("max_time = \"0s\"\n{LINK}{FLOW}"),
        &["max_time = \"0s\"", "> 0"],
    );
    // Controller timers that round to 0 ns: fixed_burst then looped inside one event,
    // where neither the stall guard nor Ctrl-C is checked.
    for (cc, param) in [("fixed_burst", "interval_ms"), ("wave", "init_timer_ms")] {
        assert_err(
            &format!("{LINK}{FLOW}cc = \"{cc}\"\ncc_params = {{ {param} = 1e-9 }}\n"),
            &["flow[0].cc_params", param, "1 ns"],
        );
    }
    // A zero RTO floor is harmless: the 1 ms clock granularity keeps the RTO positive.
    let sc = parse_scenario_str(
        &format!(
            "sample = \"off\"\n[link]\nrate = \"10Mbps\"\nloss = \"5%\"\n{FLOW}min_rto = \"0s\"\n"
        ),
        "ok",
    )
    .unwrap();
    let res = simulate(&sc, 1, 0).unwrap();
    assert!(res.flows.bools("completed").unwrap()[0]);
}

#[test]
fn rate_and_trace_together_are_refused() {
    // Defect 11: `trace` with `rate` silently ignored the rate.
    let dir = std::env::temp_dir().join(format!("tcplab-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.mahi"), "1\n2\n").unwrap();
    let parse = |body: &str| {
        let p = dir.join("s.toml");
        std::fs::write(&p, format!("{body}{FLOW}")).unwrap();
        parse_scenario_file(p.to_str().unwrap())
    };
    let e = parse("[link]\nrate = \"1Gbps\"\ntrace = \"t.mahi\"\n").unwrap_err();
    assert!(
        e.to_string().contains("link.rate") && e.why.contains("not both"),
        "{e}"
    );
    let e =
        parse("[link]\nrate = \"1Gbps\"\nreverse_rate = \"1Mbps\"\nreverse_trace = \"t.mahi\"\n")
            .unwrap_err();
    assert!(
        e.to_string().contains("link.reverse_rate") && e.why.contains("not both"),
        "{e}"
    );
    let e = parse("[link]\nrate = \"1Gbps\"\n[[link.schedule]]\nat = \"1s\"\nrate = \"1Mbps\"\ntrace = \"t.mahi\"\n")
        .unwrap_err();
    assert!(e.to_string().contains("link.schedule[0].rate"), "{e}");
    // `trace` with `reverse_rate`: the reverse direction runs at that constant rate.
    let sc = parse("[link]\ntrace = \"t.mahi\"\nreverse_rate = \"3Mbps\"\n").unwrap();
    assert!(sc.links[0].fwd.trace.is_some());
    assert!(sc.links[0].rev.trace.is_none());
    assert_eq!(sc.links[0].rev.rate_bps, 3_000_000);
    // Defect 9 through the parser: the trace error names the key and the file.
    std::fs::write(dir.join("t.mahi"), "1\n288230376151711745\n").unwrap();
    let e = parse("[link]\ntrace = \"t.mahi\"\n").unwrap_err();
    assert!(
        e.key == "link.trace" && e.why.contains("t.mahi: line 2") && e.why.contains("too large"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Parses `body` (plus a flow) written to a fresh folder holding `files`, on a thread, and
/// fails the test if that takes more than 10 s (a blocking open would hang it forever).
fn parse_in_dir(tag: &str, body: &str, fifo: &[&str]) -> Result<tcplab_sim::Scenario, String> {
    let dir = std::env::temp_dir().join(format!("tcplab-hostile-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in fifo {
        let st = std::process::Command::new("mkfifo")
            .arg(dir.join(f))
            .status()
            .unwrap();
        assert!(st.success());
    }
    let p = dir.join("s.toml");
    std::fs::write(&p, body).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let path = p.to_str().unwrap().to_string();
    std::thread::spawn(move || {
        let _ = tx.send(parse_scenario_file(&path).map_err(|e| e.to_string()));
    });
    let r = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("parsing hung (a FIFO opened for reading blocks)");
    std::fs::remove_dir_all(&dir).unwrap();
    r
}

#[test]
fn a_fifo_is_refused_not_opened() {
    // A trace path naming a FIFO made check and run hang in open().
    let e = parse_in_dir(
        "fifo",
        &format!("[link]\ntrace = \"t.mahi\"\n{FLOW}"),
        &["t.mahi"],
    )
    .unwrap_err();
    assert!(
        e.contains("link.trace") && e.contains("t.mahi: not a regular file"),
        "{e}"
    );
    let e = parse_in_dir(
        "fifo3",
        &format!(
            "{LINK}[[flow]]\nbytes = \"1MB\"\ntransport = \"datagram\"\npattern = \"trace\"\n\
             trace = \"d.txt\"\n"
        ),
        &["d.txt"],
    )
    .unwrap_err();
    assert!(
        e.contains("flow[0].trace") && e.contains("not a regular file"),
        "{e}"
    );
    // The scenario file itself.
    let dir = std::env::temp_dir().join(format!("tcplab-hostile-fifo4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("s.toml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap()
        .success());
    let e = parse_scenario_file(p.to_str().unwrap()).unwrap_err();
    assert!(e.why.contains("not a regular file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_queue_string_needs_a_unit_and_must_hold_a_packet() {
    // `queue = "100"` meant 100 bytes (a queue that holds no packet: a
    // 500 kB transfer took 63.5 s with 6 RTOs) while `queue = 100` means 100 packets.
    assert_err(
        &format!("[link]\nrate = \"10Mbps\"\nqueue = \"100\"\n{FLOW}"),
        &["link.queue = \"100\"", "needs a unit", "\"100pkt\""],
    );
    for q in ["0B", "1B", "100B", "1499B", "1KB"] {
        assert_err(
            &format!("[link]\nrate = \"10Mbps\"\nqueue = \"{q}\"\n{FLOW}"),
            &[
                &format!("link.queue = \"{q}\""),
                "holds no packet",
                "1500 bytes",
            ],
        );
    }
    // The largest packet is the flows' largest: a jumbo MTU raises the floor, a small
    // one lowers it; in a dumbbell the bottleneck and the access links are checked.
    assert_err(
        &format!("[link]\nrate = \"10Mbps\"\nqueue = \"2KB\"\n{FLOW}mtu = 9000\n"),
        &["holds no packet", "9000 bytes"],
    );
    assert_err(
        "topology = { kind = \"dumbbell\" }\n[bottleneck]\nrate = \"10Mbps\"\n\
         [access]\nrate = \"1Gbps\"\nqueue = \"200B\"\n[[flow]]\nbytes = \"1MB\"\n",
        &["access.queue = \"200B\"", "holds no packet"],
    );
    let ok = |q: &str, extra: &str| {
        parse_scenario_str(
            &format!("[link]\nrate = \"10Mbps\"\nqueue = {q}\n{FLOW}{extra}"),
            "ok",
        )
        .unwrap()
    };
    ok("\"1500B\"", "");
    ok("\"600B\"", "mtu = 576\n");
    ok("\"100pkt\"", "");
    ok("100", "");
    ok("\"unlimited\"", "");
    // A schedule entry's queue is held to the same rule.
    assert_err(
        &format!("{LINK}[[link.schedule]]\nat = \"1s\"\nqueue = \"10\"\n{FLOW}"),
        &["link.schedule[0].queue", "needs a unit"],
    );
}

#[test]
fn fractions_and_overflowing_values_are_refused() {
    // 2^64 bytes saturated, "1.5B" and 1.5 became 2, "0.5bps" 1 bit/s.
    assert_err(
        &format!("{LINK}[[flow]]\nbytes = \"18446744073709551616B\"\n"),
        &["flow[0].bytes", "too large"],
    );
    assert_err(
        &format!("{LINK}[[flow]]\nbytes = \"1.5B\"\n"),
        &["flow[0].bytes = \"1.5B\"", "whole number of bytes"],
    );
    assert_err(
        &format!("{LINK}[[flow]]\nbytes = 1.5\n"),
        &["flow[0].bytes = 1.5", "whole number of bytes"],
    );
    assert_err(
        &format!("[link]\nrate = \"0.5bps\"\n{FLOW}"),
        &["link.rate = \"0.5bps\"", "whole number of bit/s"],
    );
    assert_err(
        &format!("[link]\nrate = \"10Mbps\"\ndelay = \"0.5ns\"\n{FLOW}"),
        &["link.delay", "whole number of ns"],
    );
    // Whole values written with a fraction of a larger unit still parse.
    let sc = parse_scenario_str(
        "[link]\nrate = \"2.5Mbps\"\ndelay = \"1.5ms\"\n[[flow]]\nbytes = \"1.5KB\"\n",
        "ok",
    )
    .unwrap();
    assert_eq!(sc.links[0].fwd.rate_bps, 2_500_000);
    assert_eq!(sc.flows[0].bytes, Some(1500));
}

#[test]
fn a_syntax_error_on_a_long_line_quotes_a_short_excerpt() {
    // A 5,000-deep inline array echoed its 10 kB line in the error.
    let deep = format!("x = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
    let e = err(&format!("{deep}{LINK}{FLOW}"));
    assert!(e.len() < 400, "{} chars: {e}", e.len());
    assert!(
        e.contains("bad.toml") && e.contains("line 1, column"),
        "{e}"
    );
    // A short line keeps the parser's message with the line and a caret.
    let e = err("[link\nrate=");
    assert!(
        e.contains("TOML syntax error") && e.contains("[link"),
        "{e}"
    );
}

#[test]
fn a_controller_error_names_cc_or_cc_params_by_its_kind_not_its_wording() {
    // The parsers once picked the key by searching the message for "parameter": an
    // unknown controller whose name holds the word was blamed on cc_params.
    for transport in ["tcp", "tack", "tcp-nc", "tcp-forward"] {
        let e = err(&format!(
            "{LINK}[[flow]]\nbytes = \"1MB\"\ntransport = \"{transport}\"\ncc = \"parameterless\"\n"
        ));
        assert!(
            e.contains("flow[0].cc = \"parameterless\"") && e.contains("unknown congestion"),
            "{transport}: {e}"
        );
        let e = err(&format!(
            "{LINK}[[flow]]\nbytes = \"1MB\"\ntransport = \"{transport}\"\ncc = \"cubic\"\n\
             cc_params = {{ nonsense = 1 }}\n"
        ));
        assert!(
            e.contains("flow[0].cc_params") && e.contains("nonsense"),
            "{transport}: {e}"
        );
    }
}
