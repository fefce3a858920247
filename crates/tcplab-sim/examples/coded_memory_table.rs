//! Seed 004's Table I (memory use of TCP-Forward and TCP/NC) measured on tcplab: the peak
//! heap one coded flow adds to a simulation, beside the paper's process sizes.
//!
//! The paper gives the resident and virtual size of its user-space programs (Table I,
//! "RSS/VM Size in bytes"; the values, 1283-1541 and 3360-17028, can only be KiB for a
//! Linux process). tcplab runs both ends in one process, so it measures what the coding
//! adds: the peak heap of simulating the flow with `payload = true` (real bytes through
//! `tcplab-coding`'s encoders and decoders, as a real implementation holds them) minus
//! the peak heap of the same run of TCP Vegas alone on the same path. The path is the
//! study's tandem hop (10 Mbit/s, 5 ms, 50 packets, 20 % end-to-end loss), 3 s of a
//! transfer that does not end in that time.
//!
//! ```sh
//! cargo run --release -p tcplab-sim --example coded_memory_table
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tcplab_sim::{parse_scenario_str, simulate};

/// Live heap bytes, and the most since the last reset.
struct Peak;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwards to the system allocator with the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if n >= l.size() {
            grew(n - l.size());
        } else {
            LIVE.fetch_sub(l.size() - n, Ordering::Relaxed);
        }
        // SAFETY: forwards to the system allocator; `p` came from it with layout `l`.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// Seed 004, Table I: (system, TCP-Forward RSS/VM, TCP/NC RSS/VM), in KiB.
const PAPER: [(&str, &str, &str); 3] = [
    ("32-bit Intel + Linux", "1283/3716", "1508/4020"),
    ("64-bit Intel + Linux", "1476/16876", "1541/17028"),
    ("Raspberry Pi", "1360/3360", "1512/3680"),
];

/// Peak heap growth (bytes) while simulating one flow with keys `flow`.
fn peak(flow: &str) -> usize {
    let p = 1.0 - (1.0f64 - 0.2).sqrt();
    let link = |a: &str, b: &str| {
        format!(
            "[[link]]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
             queue = \"50pkt\"\nloss = {p}\n"
        )
    };
    let sc = parse_scenario_str(
        &format!(
            "duration = \"3s\"\nsample = \"off\"\n[[node]]\nname = \"s\"\n[[node]]\n\
             name = \"m\"\n[[node]]\nname = \"r\"\n{}{}[[flow]]\nfrom = \"s\"\nto = \"r\"\n\
             bytes = \"1GB\"\n{flow}\n",
            link("s", "m"),
            link("m", "r")
        ),
        "table-i.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{flow}: {e}"));
    let grown = PEAK.load(Ordering::Relaxed) - base;
    let delivered = r.flows.ints("bytes_delivered").unwrap()[0];
    assert!(delivered > 10_000, "{flow}: {delivered} bytes delivered");
    grown
}

fn main() {
    let tcp = peak("cc = \"vegas\"\nrecovery = \"newreno\"");
    println!("Seed 004, Table I (paper: RSS/VM of its user-space programs, KiB):\n");
    println!("| system | TCP-Forward | TCP/NC |\n|---|---|---|");
    for (sys, fwd, nc) in PAPER {
        println!("| {sys} | {fwd} | {nc} |");
    }
    println!(
        "\ntcplab: peak heap the coding adds to a 3 s payload-mode run (KiB; TCP Vegas alone: \
         {:.0} KiB):\n",
        tcp as f64 / 1024.0
    );
    println!("| coding window [segments] | TCP-Forward | TCP/NC (sliding window) | TCP/NC (generations) |");
    println!("|---|---|---|---|");
    for w in [4, 16, 64] {
        let fwd = peak(&format!(
            "transport = \"tcp-forward\"\ncc = \"vegas\"\ncoding = {{ window = {w}, payload = true }}"
        ));
        let nc = peak(&format!(
            "transport = \"tcp-nc\"\ncc = \"vegas\"\n\
             coding = {{ window = {w}, redundancy = 1.375, payload = true }}"
        ));
        let gen = peak(&format!(
            "transport = \"tcp-nc\"\ncc = \"vegas\"\n\
             coding = {{ generation = {w}, redundancy = 1.375, payload = true }}"
        ));
        let kib = |b: usize| format!("{:.0}", b.saturating_sub(tcp) as f64 / 1024.0);
        println!("| {w} | {} | {} | {} |", kib(fwd), kib(nc), kib(gen));
    }
}
