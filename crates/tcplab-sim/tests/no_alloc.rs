//! The per-packet path does not allocate: doubling the transfer (twice the packets, events
//! and ACKs) adds only the few allocations of containers growing to a new high-water mark.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tcplab_sim::{parse_scenario_str, simulate};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwards to the system allocator with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `System` with layout `l` (see `alloc`).
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwards to the system allocator; `p` came from it with layout `l`.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations(bytes: &str) -> (u64, u64) {
    allocations_with(bytes, "")
}

/// The allocation counter is global: one measurement at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// `link` adds keys to the `[link]` table.
fn allocations_with(bytes: &str, link: &str) -> (u64, u64) {
    allocations_flow(bytes, link, "")
}

/// `flow` adds keys to the `[[flow]]` table.
fn allocations_flow(bytes: &str, link: &str, flow: &str) -> (u64, u64) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sc = parse_scenario_str(
        &format!(
            "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"1ms\"\nloss = \"0.5%\"\n{link}\n\
             [[flow]]\nrecovery = \"sack\"\nbytes = \"{bytes}\"\n{flow}\n"
        ),
        "alloc.toml",
    )
    .unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = simulate(&sc, 1, 0).unwrap();
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    (n, r.info.events)
}

#[test]
fn allocations_do_not_grow_with_packets() {
    let (a1, e1) = allocations("20MiB");
    let (a2, e2) = allocations("40MiB");
    eprintln!("allocations: {a1} for {e1} events, {a2} for {e2} events");
    assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
    // Allow a few dozen extra reallocations of rings growing to a larger high-water mark.
    assert!(
        a2 < a1 + 64,
        "allocations grew with packets: {a1} -> {a2} ({e1} -> {e2} events)"
    );
    assert!(
        a1 < 1000,
        "a run should need few allocations, got {a1} for {e1} events"
    );
}

#[test]
fn reordering_link_allocates_nothing_per_packet() {
    let link = "jitter = { dist = \"normal\", mean = \"1ms\", sd = \"300us\" }\nreorder = true";
    let (a1, e1) = allocations_with("20MiB", link);
    let (a2, e2) = allocations_with("40MiB", link);
    eprintln!("reordering: {a1} allocations for {e1} events, {a2} for {e2} events");
    assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
    assert!(a2 < a1 + 64, "allocations grew with packets: {a1} -> {a2}");
}

/// Every queue discipline: its queues, slab and drop list grow to a high-water mark only.
#[test]
fn queue_disciplines_allocate_nothing_per_packet() {
    for d in ["fifo", "codel", "fq_codel", "pie", "red"] {
        let link = format!("discipline = \"{d}\"");
        let (a1, e1) = allocations_with("20MiB", &link);
        let (a2, e2) = allocations_with("40MiB", &link);
        eprintln!("{d}: {a1} allocations for {e1} events, {a2} for {e2} events");
        assert!(
            e2 > e1 * 19 / 10,
            "{d}: twice the work: {e1} -> {e2} events"
        );
        assert!(
            a2 < a1 + 64,
            "{d}: allocations grew with packets: {a1} -> {a2}"
        );
    }
}

#[test]
fn rack_allocates_nothing_per_packet() {
    let flow = "loss_detection = \"rack\"";
    let (a1, e1) = allocations_flow("20MiB", "", flow);
    let (a2, e2) = allocations_flow("40MiB", "", flow);
    eprintln!("rack: {a1} allocations for {e1} events, {a2} for {e2} events");
    assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
    assert!(a2 < a1 + 64, "allocations grew with packets: {a1} -> {a2}");
}

#[test]
fn controller_options_allocate_nothing_per_packet() {
    for flow in [
        "cc = \"newreno\"\ncc_params = { ca_growth = \"per-ack\" }",
        "cc = \"cubic\"\ncc_params = { hystart = \"classic\" }",
        "cc = \"vegas\"\ncc_params = { vegas_variant = \"brakmo\" }",
    ] {
        let (a1, e1) = allocations_flow("20MiB", "", flow);
        let (a2, e2) = allocations_flow("40MiB", "", flow);
        eprintln!("{flow}: {a1} allocations for {e1} events, {a2} for {e2} events");
        assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
        assert!(
            a2 < a1 + 64,
            "{flow}: allocations grew with packets: {a1} -> {a2}"
        );
    }
}

/// Timestamps, D-SACK and undo on a reordering, lossy link (undo episodes, D-SACK blocks
/// and Eifel checks on the per-packet path).
#[test]
fn timestamps_dsack_undo_allocate_nothing_per_packet() {
    let link = "jitter = { dist = \"normal\", mean = \"1ms\", sd = \"300us\" }\nreorder = true";
    for flow in [
        "timestamps = true\ndsack = true\nundo = true",
        "dsack = true\nundo = true",
    ] {
        let (a1, e1) = allocations_flow("20MiB", link, flow);
        let (a2, e2) = allocations_flow("40MiB", link, flow);
        eprintln!("{flow:?}: {a1} allocations for {e1} events, {a2} for {e2} events");
        assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
        assert!(a2 < a1 + 64, "allocations grew with packets: {a1} -> {a2}");
    }
}

/// A coded flow (`transport` with its `coding` table) on a lossy link.
fn allocations_coded(bytes: &str, transport: &str) -> (u64, u64) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sc = parse_scenario_str(
        &format!(
            "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"1ms\"\nloss = \"5%\"\n\
             [[flow]]\ncc = \"vegas\"\nbytes = \"{bytes}\"\n{transport}\n"
        ),
        "alloc.toml",
    )
    .unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    let r = simulate(&sc, 1, 0).unwrap();
    let n = ALLOCS.load(Ordering::Relaxed) - before;
    (n, r.info.events)
}

#[test]
fn coded_transports_allocate_nothing_per_packet() {
    for transport in [
        "transport = \"tcp-nc\"\ncoding = { redundancy = 1.25 }",
        "transport = \"tcp-nc\"\ncoding = { redundancy = 1.25, window = 64 }",
        "transport = \"tcp-forward\"",
    ] {
        let (a1, e1) = allocations_coded("5MiB", transport);
        let (a2, e2) = allocations_coded("10MiB", transport);
        eprintln!("{transport}: {a1} allocations for {e1} events, {a2} for {e2} events");
        assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
        assert!(
            a2 < a1 + 64,
            "{transport}: allocations grew with packets: {a1} -> {a2}"
        );
    }
}

#[test]
fn packet_capture_allocates_nothing_per_packet() {
    use std::io::{sink, BufWriter};
    use tcplab_sim::capture::{Directions, PcapCapture};
    use tcplab_sim::simulate_tapped;
    let run = |bytes: &str| {
        let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let sc = parse_scenario_str(
            &format!(
                "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"1ms\"\nloss = \"0.5%\"\n\
                 [[flow]]\nrecovery = \"sack\"\nbytes = \"{bytes}\"\n"
            ),
            "alloc.toml",
        )
        .unwrap();
        let before = ALLOCS.load(Ordering::Relaxed);
        let mut cap = PcapCapture::new(
            BufWriter::new(sink()),
            &sc,
            (1, 0),
            "link",
            Directions::Both,
            80,
        )
        .unwrap();
        let r = simulate_tapped(&sc, 1, 0, None, Some(&mut cap)).unwrap();
        let stats = cap.finish().unwrap();
        let n = ALLOCS.load(Ordering::Relaxed) - before;
        (n, r.info.events, stats.packets[0] + stats.packets[1])
    };
    let (a1, e1, p1) = run("20MiB");
    let (a2, e2, p2) = run("40MiB");
    eprintln!("capture: {a1} allocations for {p1} packets, {a2} for {p2} packets");
    assert!(
        p2 > p1 * 19 / 10,
        "twice the packets captured: {p1} -> {p2}"
    );
    assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
    assert!(a2 < a1 + 64, "allocations grew with packets: {a1} -> {a2}");
}

/// TACK (sender, receiver, and the 802.11 cell it crosses) allocates nothing per packet.
#[test]
fn tack_over_wlan_allocates_nothing_per_packet() {
    let run = |bytes: &str| {
        let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let sc = parse_scenario_str(
            &format!(
                "sample = \"off\"\n[[node]]\nname = \"s\"\n[[node]]\nname = \"ap\"\n\
                 [[node]]\nname = \"sta\"\n[[link]]\nbetween = [\"s\", \"ap\"]\n\
                 rate = \"1Gbps\"\ndelay = \"2ms\"\nloss = \"0.2%\"\n\
                 [[wlan]]\nstandard = \"802.11n\"\nap = \"ap\"\nstations = [\"sta\"]\n\
                 [[flow]]\ntransport = \"tack\"\nfrom = \"s\"\nto = \"sta\"\nbytes = \"{bytes}\"\n"
            ),
            "alloc.toml",
        )
        .unwrap();
        let before = ALLOCS.load(Ordering::Relaxed);
        let r = simulate(&sc, 1, 0).unwrap();
        (ALLOCS.load(Ordering::Relaxed) - before, r.info.events)
    };
    let (a1, e1) = run("20MiB");
    let (a2, e2) = run("40MiB");
    eprintln!("tack: {a1} allocations for {e1} events, {a2} for {e2} events");
    assert!(e2 > e1 * 19 / 10, "twice the work: {e1} -> {e2} events");
    assert!(a2 < a1 + 64, "allocations grew with packets: {a1} -> {a2}");
}
