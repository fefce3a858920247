//! General topologies: nodes, links, routing, the shorthands' expansion, shared media.

use tcplab_sim::{parse_scenario_str, simulate, Results, Scenario};

fn parse(toml: &str) -> Scenario {
    parse_scenario_str(toml, "topology.rs").unwrap_or_else(|e| panic!("{e}"))
}

fn err(toml: &str) -> String {
    parse_scenario_str(toml, "topology.rs")
        .unwrap_err()
        .to_string()
}

/// Packets each link direction carried, by (link, direction).
fn carried(r: &Results) -> Vec<(String, String, u64)> {
    let l = &r.links;
    let (n, d, s) = (
        l.texts("link").unwrap(),
        l.texts("direction").unwrap(),
        l.ints("sent_pkts").unwrap(),
    );
    (0..n.len())
        .map(|i| (n[i].to_string(), d[i].to_string(), s[i]))
        .collect()
}

const DIAMOND: &str = r#"
    [[node]]
    name = "a"
    [[node]]
    name = "b"
    [[node]]
    name = "c"
    [[node]]
    name = "d"
    [[link]]
    between = ["a", "b"]
    rate = "10Mbps"
    [[link]]
    between = ["b", "d"]
    rate = "10Mbps"
    [[link]]
    name = "low1"
    between = ["a", "c"]
    rate = "10Mbps"
    [[link]]
    name = "low2"
    between = ["c", "d"]
    rate = "10Mbps"
"#;

#[test]
fn routes_follow_costs_and_explicit_paths() {
    // Equal costs: the earlier-declared upper path.
    let sc = parse(&format!(
        "{DIAMOND}\n[[flow]]\nfrom = \"a\"\nto = \"d\"\nbytes = \"100KB\"\n"
    ));
    let names: Vec<&str> = sc.flows[0]
        .path
        .iter()
        .map(|h| sc.links[h.link].name.as_str())
        .collect();
    assert_eq!(names, vec!["a-b", "b-d"]);
    let r = simulate(&sc, 1, 0).unwrap();
    let c = carried(&r);
    assert!(c.iter().any(|x| x.0 == "a-b" && x.1 == "fwd" && x.2 > 0));
    assert!(
        c.iter().any(|x| x.0 == "b-d" && x.1 == "rev" && x.2 > 0),
        "ACKs come back"
    );
    assert!(c
        .iter()
        .filter(|x| x.0.starts_with("low"))
        .all(|x| x.2 == 0));

    // Flows from d to a cross the same links backwards: data on the reverse directions.
    let sc = parse(&format!(
        "{DIAMOND}\n[[flow]]\nfrom = \"d\"\nto = \"a\"\nbytes = \"100KB\"\n"
    ));
    let r = simulate(&sc, 1, 0).unwrap();
    let c = carried(&r);
    let data = |l: &str, d: &str| c.iter().find(|x| x.0 == l && x.1 == d).unwrap().2;
    assert!(data("a-b", "rev") > data("a-b", "fwd"), "data goes b -> a");

    // An explicit path takes the lower branch.
    let sc = parse(&format!(
        "{DIAMOND}\n[[flow]]\npath = [\"a\", \"c\", \"d\"]\nbytes = \"100KB\"\n"
    ));
    assert_eq!((sc.flows[0].src, sc.flows[0].dst), (0, 3));
    let r = simulate(&sc, 1, 0).unwrap();
    let c = carried(&r);
    assert!(c.iter().filter(|x| x.0.starts_with("low")).all(|x| x.2 > 0));
    assert!(c
        .iter()
        .filter(|x| !x.0.starts_with("low"))
        .all(|x| x.2 == 0));

    // A cost makes the upper path dearer.
    let costly = DIAMOND.replacen(
        "between = [\"b\", \"d\"]",
        "between = [\"b\", \"d\"]\ncost = 5",
        1,
    );
    let sc = parse(&format!(
        "{costly}\n[[flow]]\nfrom = \"a\"\nto = \"d\"\nbytes = \"100KB\"\n"
    ));
    let names: Vec<&str> = sc.flows[0]
        .path
        .iter()
        .map(|h| sc.links[h.link].name.as_str())
        .collect();
    assert_eq!(names, vec!["low1", "low2"]);
}

#[test]
fn topology_errors_name_the_problem() {
    let flow = "[[flow]]\nfrom = \"a\"\nto = \"d\"\nbytes = \"1MB\"\n";
    let e = err(&format!(
        "{DIAMOND}\n[[flow]]\nfrom = \"a\"\nto = \"z\"\nbytes = \"1MB\"\n"
    ));
    assert!(
        e.contains("flow[0].to = \"z\"") && e.contains("unknown node (nodes: a, b, c, d)"),
        "{e}"
    );
    let island = format!(
        "{DIAMOND}\n[[node]]\nname = \"e\"\n[[flow]]\nfrom = \"a\"\nto = \"e\"\nbytes = \"1MB\"\n"
    );
    let e = err(&island);
    assert!(e.contains("no route from a to e"), "{e}");
    let dup = DIAMOND.to_string() + "[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n" + flow;
    let e = err(&dup);
    assert!(
        e.contains("second link between a and b") && e.contains("give each a name"),
        "{e}"
    );
    let dup_name = DIAMOND.to_string()
        + "[[link]]\nname = \"low1\"\nbetween = [\"b\", \"c\"]\nrate = \"1Mbps\"\n"
        + flow;
    assert!(err(&dup_name).contains("two links have this name"));
    let e = err(&(DIAMOND.to_string()
        + "[[link]]\nbetween = [\"a\", \"q\"]\nrate = \"1Mbps\"\n"
        + flow));
    assert!(
        e.contains("link[4].between") && e.contains("unknown node"),
        "{e}"
    );
    let e = err(&(DIAMOND.to_string() + "[[node]]\nname = \"a\"\n" + flow));
    assert!(e.contains("two nodes have this name"), "{e}");
    let e = err(&format!(
        "{DIAMOND}\n[[flow]]\npath = [\"a\", \"d\"]\nbytes = \"1MB\"\n"
    ));
    assert!(e.contains("no link between a and d"), "{e}");
    let e = err(&format!(
        "{DIAMOND}\n[[flow]]\nfrom = \"b\"\npath = [\"a\", \"b\", \"d\"]\nbytes = \"1MB\"\n"
    ));
    assert!(e.contains("must start at `from`"), "{e}");
    let e = err(&format!("{DIAMOND}\n[[flow]]\nbytes = \"1MB\"\n"));
    assert!(
        e.contains("flow[0].from") && e.contains("needs from"),
        "{e}"
    );
    let e =
        err("[[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n[[flow]]\nbytes = \"1MB\"\n");
    assert!(e.contains("needs [[node]] tables"), "{e}");
    let e = err(&format!("{DIAMOND}\n[[flow]]\nname = \"x\"\nfrom = \"a\"\nto = \"d\"\nbytes = \"1MB\"\n[[flow]]\nname = \"x\"\nfrom = \"a\"\nto = \"d\"\nbytes = \"1MB\"\n"));
    assert!(e.contains("flow[1].name") && e.contains("unique"), "{e}");
}

/// The dumbbell shorthand and the same topology written as nodes and links are the
/// same scenario: identical tables, column by column.
#[test]
fn the_dumbbell_shorthand_is_a_graph() {
    let short = parse(
        r#"
        duration = "3s"
        sample = "50ms"
        [topology]
        kind = "dumbbell"
        [bottleneck]
        rate = "20Mbps"
        delay = "10ms"
        queue = "50pkt"
        loss = "0.2%"
        [access]
        rate = "100Mbps"
        delay = "1ms"
        [[flow]]
        cc = "cubic"
        bytes = "unlimited"
        count = 2
        [[flow]]
        cc = "newreno"
        bytes = "2MB"
        access_delay = "15ms"
        "#,
    );
    let mut g = String::from("duration = \"3s\"\nsample = \"50ms\"\n");
    for n in [
        "left", "right", "src0", "dst0", "src1", "dst1", "src2", "dst2",
    ] {
        g += &format!("[[node]]\nname = \"{n}\"\n");
    }
    g += "[[link]]\nname = \"bottleneck\"\nbetween = [\"left\", \"right\"]\nrate = \"20Mbps\"\ndelay = \"10ms\"\nqueue = \"50pkt\"\nloss = \"0.2%\"\n";
    for i in 0..3 {
        let d = if i == 2 { "15ms" } else { "1ms" };
        g += &format!(
            "[[link]]\nname = \"access{i}.src\"\nbetween = [\"src{i}\", \"left\"]\nrate = \"100Mbps\"\ndelay = \"{d}\"\n\
             [[link]]\nname = \"access{i}.dst\"\nbetween = [\"right\", \"dst{i}\"]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n"
        );
    }
    for i in 0..2 {
        g += &format!("[[flow]]\nname = \"flow{i}\"\nfrom = \"src{i}\"\nto = \"dst{i}\"\ncc = \"cubic\"\nbytes = \"unlimited\"\n");
    }
    g += "[[flow]]\nname = \"flow2\"\nfrom = \"src2\"\nto = \"dst2\"\ncc = \"newreno\"\nbytes = \"2MB\"\n";
    let graph = parse(&g);
    let a = simulate(&short, 5, 0).unwrap();
    let b = simulate(&graph, 5, 0).unwrap();
    assert!(a.flows.rows() == 3 && a.flow_series.rows() > 100);
    assert_eq!(a.column_digests(), b.column_digests());
}

/// A half-duplex link is one transmitter for both directions: ACKs take turns with data.
/// With an ACK per 576-byte packet, data gets at most 576/616 of the wire; and since ACKs
/// queue behind data in the one FIFO, the ACK clock slows and the link idles a little
/// after each window cut, so the flow gets somewhat less than that.
#[test]
fn half_duplex_link_shares_its_transmitter_between_directions() {
    let toml = |duplex: &str| {
        format!(
            r#"
            duration = "20s"
            sample = "off"
            [link]
            rate = "10Mbps"
            delay = "5ms"
            queue = "100pkt"
            duplex = "{duplex}"
            [[flow]]
            cc = "newreno"
            mtu = 576
            ack = "per-packet"
            bytes = "unlimited"
            "#
        )
    };
    let full = simulate(&parse(&toml("full")), 1, 0).unwrap();
    let half = simulate(&parse(&toml("half")), 1, 0).unwrap();
    let g = |r: &Results| r.flows.floats("goodput_bps").unwrap()[0];
    let ratio = g(&half) / g(&full);
    assert!(
        ratio < 576.0 / 616.0 && ratio > 0.8,
        "half/full goodput {ratio}"
    );
    // Data and ACKs together never exceed the one transmitter's rate; on the full-duplex
    // link they do (each direction has its own 10 Mbit/s).
    let busy = |r: &Results| {
        r.links.ints("sent_bytes").unwrap().iter().sum::<u64>() as f64 * 8.0 / 20.0 / 10e6
    };
    assert!(busy(&half) <= 1.0 && busy(&half) > 0.85, "{}", busy(&half));
    assert!(busy(&full) > 1.05, "{}", busy(&full));
    // One row for the shared medium, carrying data and ACKs.
    let dirs = half.links.texts("direction").unwrap();
    assert_eq!(dirs, vec!["shared"]);
    let sent = half.links.ints("sent_pkts").unwrap()[0];
    let f = &half.flows;
    let acks = f.ints("acks_sent").unwrap()[0];
    let segs = f.ints("segments_sent").unwrap()[0];
    assert!(
        sent >= acks + segs - 200 && sent <= acks + segs,
        "{sent} vs {acks} + {segs}"
    );
    assert!(
        err(&toml("half").replace("duplex", "ack_loss = \"1%\"\nduplex")).contains("half-duplex")
    );
}

/// `reverse = { ... }` sets the other direction's parameters with the same keys.
#[test]
fn reverse_table_sets_the_other_direction() {
    let sc = parse(
        r#"
        [link]
        rate = "10Mbps"
        delay = "5ms"
        reverse = { rate = "1Mbps", delay = "50ms", loss = "3%" }
        [[flow]]
        bytes = "1MB"
        "#,
    );
    let l = &sc.links[0];
    assert_eq!((l.fwd.rate_bps, l.rev.rate_bps), (10_000_000, 1_000_000));
    assert_eq!(l.rev.delay, tcplab_core::Dur::from_millis(50));
    assert_eq!(l.fwd.loss, tcplab_link::LossModel::None);
    assert_eq!(l.rev.loss, tcplab_link::LossModel::Bernoulli { p: 0.03 });
    let e = err(
        "[link]\nrate = \"1Mbps\"\nreverse = { ack_loss = \"1%\" }\n[[flow]]\nbytes = \"1MB\"\n",
    );
    assert!(
        e.contains("link.reverse.ack_loss") && e.contains("not allowed inside"),
        "{e}"
    );
}

/// Routes have no hop limit: a 30-hop chain carries a flow end to end.
#[test]
fn long_chains_route_without_a_hop_limit() {
    let mut t = String::new();
    for i in 0..=30 {
        t += &format!("[[node]]\nname = \"n{i}\"\n");
    }
    for i in 0..30 {
        t += &format!(
            "[[link]]\nbetween = [\"n{i}\", \"n{}\"]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n",
            i + 1
        );
    }
    t += "[[flow]]\nfrom = \"n0\"\nto = \"n30\"\nbytes = \"200KB\"\n";
    let sc = parse(&t);
    assert_eq!(sc.flows[0].path.len(), 30);
    let r = simulate(&sc, 1, 0).unwrap();
    assert!(r.flows.bools("completed").unwrap()[0]);
    let rtt = r.flows.opt_floats("rtt_min_s").unwrap()[0].unwrap();
    assert!(
        rtt > 0.060 && rtt < 0.065,
        "60 ms of propagation plus serialisation: {rtt}"
    );
}
