//! The run heap as the program's allocator (as in the Python extension): a run of many
//! flows takes its memory from a region advised into huge pages, gives the same results
//! as in the system heap, and returns the pages when its results are dropped; a small
//! run never touches the region.

use tcplab_sim::{parse_scenario_str, simulate, RunHeap, Scenario};

#[global_allocator]
static GLOBAL: RunHeap = RunHeap;

fn b2(flows: usize) -> Scenario {
    let text = format!(
        r#"
name = "B2-heap"
duration = "300ms"
sample = "10ms"
[topology]
kind = "dumbbell"
[bottleneck]
rate = "1Gbps"
delay = "10ms"
queue = "1000pkt"
[access]
rate = "1Gbps"
delay = "1ms"
queue = "1000pkt"
[[flow]]
cc = "newreno"
bytes = "unlimited"
count = {flows}
"#
    );
    parse_scenario_str(&text, "b2-heap.toml").unwrap()
}

/// The mapping at `base` in `/proc/self/smaps`: (resident bytes, advised into huge pages).
fn mapping(base: usize) -> (usize, bool) {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let start = format!("{base:x}-");
    let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
    assert!(lines.next().is_some(), "no mapping at {start}");
    let (mut rss, mut huge) = (None, false);
    for l in lines {
        let mut words = l.split_whitespace();
        match words.next() {
            Some("Rss:") => rss = words.next().and_then(|kb| kb.parse::<usize>().ok()),
            Some("VmFlags:") => {
                huge = words.any(|f| f == "hg");
                break;
            }
            _ => {}
        }
    }
    (rss.expect("an Rss line") * 1024, huge)
}

/// One test, in order: the region is the process's, so its counts are too.
#[test]
fn a_large_run_lives_in_huge_pages_and_gives_them_back() {
    let large = b2(40);

    RunHeap::set_enabled(false);
    let plain = simulate(&large, 1, 0).unwrap();
    assert_eq!(RunHeap::stats().touched, 0, "off: the region is not used");

    RunHeap::set_enabled(true);
    let small = simulate(&b2(1), 1, 0).unwrap();
    assert_eq!(
        RunHeap::stats().touched,
        0,
        "a one-flow run stays in the system heap"
    );
    drop(small);

    let r = simulate(&large, 1, 0).unwrap();
    let s = RunHeap::stats();
    assert!(s.base != 0, "the region was reserved");
    assert!(s.live > 0, "the results live in the region");
    assert!(s.touched >= s.live);
    // The flows' table came from the region (the run's allocations, not the system's).
    assert!(RunHeap::holds(r.flows.columns().as_ptr().cast()));
    assert!(!RunHeap::holds(plain.flows.columns().as_ptr().cast()));
    assert_eq!(r, plain, "the same results from either heap");
    assert_eq!(r.digest(), plain.digest());
    #[cfg(target_os = "linux")]
    {
        let (resident, huge) = mapping(s.base);
        assert!(huge, "the region is advised into huge pages");
        // The run's own blocks are freed and the pages without a live block returned
        // (kept, all `touched` bytes would be resident, in whole huge pages).
        assert!(
            resident + (1 << 20) < s.touched,
            "resident {resident} touched {} live {}",
            s.touched,
            s.live
        );
    }

    drop(r);
    let s = RunHeap::stats();
    assert_eq!(
        (s.live, s.touched),
        (0, 0),
        "all freed, the pages given back"
    );

    // A second run reuses the region from its front.
    let again = simulate(&large, 1, 0).unwrap();
    assert_eq!(again, plain);
    assert_eq!(RunHeap::stats().base, s.base);
}
