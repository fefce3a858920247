//! Same scenario + seed => identical tables; seeds and flows are independent streams.

use tcplab_sim::{parse_scenario_str, simulate};

const LOSSY: &str = r#"
    name = "det"
    sample = "5ms"
    [topology]
    kind = "dumbbell"
    [bottleneck]
    rate = "50Mbps"
    delay = "5ms"
    queue = "60pkt"
    loss = { model = "gilbert-elliott", p_good_bad = "0.5%", p_bad_good = "20%", loss_bad = "50%" }
    [access]
    rate = "1Gbps"
    delay = "1ms"
    ack_loss = "1%"
    [[flow]]
    bytes = "3MiB"
    count = 3
    recovery = "sack"
"#;

#[test]
fn same_seed_same_digest_different_seed_differs() {
    let sc = parse_scenario_str(LOSSY, "det.toml").unwrap();
    let a = simulate(&sc, 42, 0).unwrap();
    let b = simulate(&sc, 42, 0).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.digest(), b.digest());
    let c = simulate(&sc, 43, 0).unwrap();
    assert_ne!(a.digest(), c.digest());
    let d = simulate(&sc, 42, 1).unwrap();
    assert_ne!(
        a.digest(),
        d.digest(),
        "replications draw different streams"
    );
    assert_eq!(d.info.replication, 1);
}

/// A flow added later (it starts after the first finishes) does not change the first
/// flow's losses or behaviour: every component has its own named random stream.
#[test]
fn adding_a_flow_does_not_perturb_another() {
    let one = r#"
        sample = "off"
        [topology]
        kind = "dumbbell"
        [bottleneck]
        rate = "20Mbps"
        delay = "5ms"
        [access]
        rate = "100Mbps"
        delay = "1ms"
        loss = "2%"
        [[flow]]
        bytes = "2MiB"
    "#;
    let two = format!("{one}\n[[flow]]\nbytes = \"2MiB\"\nstart = \"100s\"\n");
    let a = simulate(&parse_scenario_str(one, "one").unwrap(), 5, 0).unwrap();
    let b = simulate(&parse_scenario_str(&two, "two").unwrap(), 5, 0).unwrap();
    assert!(
        a.flows.ints("retransmitted_segments").unwrap()[0] > 0,
        "the access link loses packets"
    );
    for (x, y) in [
        (
            &a.flows.ints("segments_sent").unwrap(),
            &b.flows.ints("segments_sent").unwrap(),
        ),
        (
            &a.flows.ints("retransmitted_segments").unwrap(),
            &b.flows.ints("retransmitted_segments").unwrap(),
        ),
        (
            &a.flows.ints("fast_retransmits").unwrap(),
            &b.flows.ints("fast_retransmits").unwrap(),
        ),
    ] {
        assert_eq!(x[0], y[0]);
    }
    assert_eq!(
        a.flows.opt_floats("completion_s").unwrap()[0],
        b.flows.opt_floats("completion_s").unwrap()[0]
    );
    assert_eq!(
        a.links.ints("dropped_loss").unwrap()[2],
        b.links.ints("dropped_loss").unwrap()[2],
        "access0.src forward losses"
    );
}
