//! Variable delay in scenarios: the `jitter` distributions and `reorder` keys, and what a
//! reordering path does to a TCP flow.

use tcplab_core::Dur;
use tcplab_link::Jitter;
use tcplab_sim::{parse_scenario_str, simulate, Results};

fn scenario(link_extra: &str) -> String {
    format!(
        "sample = \"off\"\n[link]\nrate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = \"unlimited\"\n\
         {link_extra}\n[[flow]]\ncc = \"newreno\"\nbytes = \"5MB\"\n"
    )
}

fn run(link_extra: &str) -> Results {
    let sc = parse_scenario_str(&scenario(link_extra), "reorder.toml").unwrap();
    simulate(&sc, 1, 0).unwrap()
}

#[test]
fn reordering_link_still_delivers_every_byte_but_triggers_spurious_recovery() {
    // 1500 B take 1.2 ms at 10 Mbit/s; both jitters spread arrivals over several packets.
    for jitter in [
        "jitter = \"10ms\"",
        "jitter = { dist = \"normal\", mean = \"5ms\", sd = \"3ms\" }",
    ] {
        let kept = run(jitter);
        let reordered = run(&format!("{jitter}\nreorder = true"));
        for (r, what) in [(&kept, "kept"), (&reordered, "reordered")] {
            // Nothing is ever lost: no loss model, unlimited queue.
            assert!(
                r.links
                    .ints("dropped_queue")
                    .unwrap()
                    .iter()
                    .all(|&d| d == 0),
                "{what}"
            );
            assert!(
                r.links
                    .ints("dropped_loss")
                    .unwrap()
                    .iter()
                    .all(|&d| d == 0),
                "{what}"
            );
            // The simulator also checks in-order delivery of exactly these bytes.
            assert!(r.flows.bools("completed").unwrap()[0], "{jitter} {what}");
            assert_eq!(
                r.flows.ints("bytes_delivered").unwrap()[0],
                5_000_000,
                "{jitter} {what}"
            );
        }
        assert_eq!(
            kept.flows.ints("retransmitted_segments").unwrap()[0],
            0,
            "{jitter}"
        );
        assert_eq!(
            kept.flows.ints("fast_retransmits").unwrap()[0],
            0,
            "{jitter}"
        );
        // Out-of-order arrivals produce duplicate ACKs and, past dupthresh, fast
        // retransmits of segments that were never lost.
        let (fr, rx) = (
            reordered.flows.ints("fast_retransmits").unwrap()[0],
            reordered.flows.ints("retransmitted_segments").unwrap()[0],
        );
        eprintln!(
            "{jitter}: kept {:.2} Mbit/s; reordered {:.2} Mbit/s, {fr} fast retransmits, \
             {rx} retransmitted segments",
            kept.flows.floats("goodput_bps").unwrap()[0] / 1e6,
            reordered.flows.floats("goodput_bps").unwrap()[0] / 1e6,
        );
        assert!(
            fr >= 5 && rx >= fr,
            "{jitter}: {fr} fast retransmits, {rx} segments"
        );
    }
}

fn link_keys(extra: &str) -> Result<tcplab_sim::Scenario, String> {
    parse_scenario_str(&scenario(extra), "jit.toml").map_err(|e| e.to_string())
}

#[test]
fn jitter_and_reorder_keys_parse() {
    let sc = link_keys("jitter = { dist = \"normal\", mean = \"5ms\", sd = \"2ms\" }").unwrap();
    let normal = Jitter::Normal {
        mean: Dur::from_millis(5),
        sd: Dur::from_millis(2),
    };
    assert_eq!(
        (sc.links[0].fwd.jitter, sc.links[0].rev.jitter),
        (normal, normal)
    );
    assert!(!sc.links[0].fwd.reorder, "order is kept by default");
    let a = link_keys("jitter = \"2ms\"").unwrap();
    let b = link_keys("jitter = { dist = \"uniform\", max = \"2ms\" }").unwrap();
    assert_eq!(a.links[0].fwd.jitter, Dur::from_millis(2).into());
    assert_eq!(a.links[0].fwd.jitter, b.links[0].fwd.jitter);
    let half = link_keys("jitter = { dist = \"normal\", sd = \"1ms\" }").unwrap();
    assert_eq!(
        half.links[0].fwd.jitter,
        Jitter::Normal {
            mean: Dur::ZERO,
            sd: Dur::from_millis(1)
        }
    );
    let r = link_keys("reorder = true\n[[link.schedule]]\nat = \"1s\"\nreorder = false").unwrap();
    let l = &r.links[0];
    assert!(l.fwd.reorder && l.rev.reorder);
    assert!(!l.schedule[0].fwd.reorder && !l.schedule[0].rev.reorder);
}

#[test]
fn bad_jitter_values_are_named() {
    let cases = [
        (
            "jitter = { dist = \"normal\", mean = \"5ms\", sd = \"-2ms\" }",
            "jit.toml: link.jitter.sd = \"-2ms\": a duration must not be negative",
        ),
        (
            "jitter = { dist = \"pareto\", sd = \"2ms\" }",
            "jit.toml: link.jitter.dist = \"pareto\": unknown jitter distribution",
        ),
        (
            "reorder = \"yes\"",
            "jit.toml: link.reorder = \"yes\": expected true or false",
        ),
        (
            "jitter = { dist = \"normal\", mean = \"5ms\" }",
            "jit.toml: link.jitter.sd: the normal jitter needs sd",
        ),
        (
            "jitter = { mean = \"5ms\", sd = \"1ms\" }",
            "jit.toml: link.jitter.dist: required",
        ),
        (
            "jitter = { dist = \"normal\", sd = \"1ms\", sigma = 2 }",
            "jit.toml: link.jitter.sigma = 2: unknown key",
        ),
        (
            "jitter = { dist = \"uniform\" }",
            "jit.toml: link.jitter.max: the uniform jitter needs max",
        ),
        (
            "jitter = \"-1ms\"",
            "jit.toml: link.jitter = \"-1ms\": a duration must not be negative",
        ),
    ];
    for (extra, want) in cases {
        let e = link_keys(extra).unwrap_err();
        assert!(e.starts_with(want), "{extra}\n  got:  {e}\n  want: {want}…");
    }
}
