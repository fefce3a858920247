//! The run heap as the program's allocator (as in the Python extension): a run of many
//! flows takes its memory from a region advised into huge pages, gives the same results
//! as in the system heap, and returns the pages when its results are dropped; a small
//! run never touches the region. Linux: the checks read `/proc/self`.
#![cfg(target_os = "linux")]

use tcplab_sim::{parse_scenario_str, simulate, RunHeap, Scenario};

#[global_allocator]
static GLOBAL: RunHeap = RunHeap;

/// The region and its counts are the process's: one test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

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

/// A block of 4 MiB or more lives in the region too, keeps its contents as it grows, and
/// returns its pages as soon as it is freed (a doubling table leaves no old copies).
#[test]
fn a_freed_large_block_returns_its_pages() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let scope = RunHeap::scope(true);
    let mut v = vec![7u8; 6 << 20];
    assert!(RunHeap::holds(v.as_ptr()));
    v.resize(40 << 20, 9);
    assert!(RunHeap::holds(v.as_ptr()));
    assert_eq!(
        (v[0], v[(6 << 20) - 1], v[6 << 20], v[(40 << 20) - 1]),
        (7, 7, 9, 9)
    );
    let base = RunHeap::stats().base;
    let before = mapping(base).0;
    drop(v);
    let after = mapping(base).0;
    assert!(before >= after + (36 << 20), "resident {before} -> {after}");
    drop(scope);
}

/// Zeroed memory is zero from a reused region block, and outside a scope it is the
/// system's `calloc`, whose fresh pages stay untouched until written.
#[test]
fn zeroed_blocks_are_zero_and_calloc_stays_lazy() {
    use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let l = Layout::from_size_align(1000, 8).unwrap();
    {
        let _scope = RunHeap::scope(true);
        // SAFETY: non-zero sizes; each block written within bounds, freed once.
        unsafe {
            let keep = alloc(l); // keeps the region from emptying (and resetting)
            let p = alloc(l);
            p.write_bytes(0xFF, l.size());
            dealloc(p, l);
            let q = alloc_zeroed(l);
            assert_eq!(q, p, "the freed block is reused");
            assert!(std::slice::from_raw_parts(q, l.size())
                .iter()
                .all(|&b| b == 0));
            dealloc(q, l);
            dealloc(keep, l);
        }
    }
    let resident = || {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        statm
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<usize>()
            .unwrap()
            * 4096
    };
    let before = resident();
    let big = vec![0u8; 256 << 20];
    let grown = resident().saturating_sub(before);
    assert!(!RunHeap::holds(big.as_ptr()));
    assert!(
        grown < 16 << 20,
        "256 MiB of zeros made {grown} bytes resident"
    );
    drop(big);
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

#[test]
fn a_large_run_lives_in_huge_pages_and_gives_them_back() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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

/// Threads in scopes at once allocate, grow and free blocks of random layouts through the
/// global allocator: every block keeps its contents and alignment, and when all are
/// freed and the scopes ended, the region is empty and its pages returned.
#[test]
fn threads_share_the_region_without_losing_a_byte() {
    use std::alloc::{alloc, dealloc, realloc, Layout};
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let workers: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                let _scope = RunHeap::scope(true);
                let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ t;
                let mut next = move || {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                };
                let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
                for i in 0..20_000u64 {
                    let r = next();
                    if live.is_empty() || r % 3 != 0 {
                        let size = 1 + (r >> 8) as usize % 6000;
                        let layout = Layout::from_size_align(size, 1 << ((r >> 40) % 8)).unwrap();
                        // SAFETY: a non-zero size.
                        let p = unsafe { alloc(layout) };
                        assert!(!p.is_null() && p as usize % layout.align() == 0);
                        let mark = (t * 31 + i) as u8;
                        // SAFETY: `p` holds `size` bytes.
                        unsafe { p.write_bytes(mark, size) };
                        live.push((p, layout, mark));
                    } else {
                        let k = (r >> 16) as usize % live.len();
                        let (p, layout, mark) = live[k];
                        // SAFETY: a live block of `layout`, written with `mark`.
                        let bytes = unsafe { std::slice::from_raw_parts(p, layout.size()) };
                        assert!(bytes.iter().all(|&b| b == mark), "thread {t} step {i}");
                        if r % 2 == 0 {
                            live.swap_remove(k);
                            // SAFETY: freed once, with its layout.
                            unsafe { dealloc(p, layout) };
                        } else {
                            let size = 1 + (r >> 24) as usize % 9000;
                            // SAFETY: a live block of `layout`; a non-zero size.
                            let q = unsafe { realloc(p, layout, size) };
                            let kept = size.min(layout.size());
                            // SAFETY: `q` holds `size` bytes, the first `kept` preserved.
                            let grown = unsafe { std::slice::from_raw_parts(q, kept) };
                            assert!(grown.iter().all(|&b| b == mark), "thread {t} step {i}");
                            // SAFETY: as above.
                            unsafe { q.write_bytes(mark, size) };
                            let nl = Layout::from_size_align(size, layout.align()).unwrap();
                            live[k] = (q, nl, mark);
                        }
                    }
                }
                for (p, layout, _) in live {
                    // SAFETY: as above.
                    unsafe { dealloc(p, layout) };
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let s = RunHeap::stats();
    assert_eq!((s.live, s.touched), (0, 0));
}
