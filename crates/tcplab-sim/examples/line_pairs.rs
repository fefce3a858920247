//! What a second cache line costs on this machine: a dependent pointer chase over random
//! 128-byte pairs of lines, reading the first line only, then the pair's second line, then
//! the second line of another random pair (each address taken from the line just read, so
//! every read waits for the one before); and last, the pair's second line read beside the
//! first (its address known without it).
//!
//! The simulator's per-flow state is laid out on the belief that the core fetches both
//! lines of an aligned pair on a miss (Intel's adjacent-line prefetcher): this measures
//! whether that holds for misses served by the L3 (the 1000-flow run's working set) and by
//! DRAM.
//!
//! ```sh
//! cargo run --release -p tcplab-sim --example line_pairs -- 6 64   # working sets in MiB
//! ```

use std::hint::black_box;
use std::time::Instant;
use tcplab_core::Rng;

/// Two cache lines: what the chase reads first (line 0) and second (line 1).
#[repr(C, align(128))]
#[derive(Clone, Copy, Default)]
struct Pair {
    next: u64,
    /// Where the pair's second-line read goes, in words from the pair's start (always
    /// 8, but read from memory so that the read depends on this line).
    second: u64,
    /// Another random pair, for the third mode.
    other: u64,
    _pad: [u64; 5],
    val: u64,
    _pad2: [u64; 7],
}

const STEPS: usize = 4_000_000;

fn chase(p: &[Pair], mode: u8) -> f64 {
    let (mut cur, mut acc) = (0usize, 0u64);
    let t = Instant::now();
    for _ in 0..STEPS {
        let e = &p[cur];
        let mut nx = e.next;
        match mode {
            0 => {}
            1 => {
                let words = (e as *const Pair).cast::<u64>();
                // SAFETY: `second` is 8, the index of `val` in the 16 words of the pair.
                nx += unsafe { *words.add(e.second as usize) };
            }
            2 => nx += p[e.other as usize].val,
            // The pair's second line, its address known with the first's: both in flight
            // at once (how a link direction's two lines are read).
            _ => nx += p[cur].val,
        }
        acc = acc.wrapping_add(nx);
        cur = nx as usize;
    }
    black_box(acc);
    t.elapsed().as_secs_f64() / STEPS as f64 * 1e9
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("working-set sizes in MiB"))
        .collect();
    for mib in if sizes.is_empty() { vec![6, 64] } else { sizes } {
        let n = mib * 1024 * 1024 / std::mem::size_of::<Pair>();
        let mut rng = Rng::from_seed(7);
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut p = vec![Pair::default(); n];
        for i in 0..n {
            let e = &mut p[perm[i]];
            e.next = perm[(i + 1) % n] as u64;
            e.second = 8;
            e.other = perm[(i * 7919 + 13) % n] as u64;
        }
        for (mode, what) in [
            (0, "first line only"),
            (1, "then the pair's second line"),
            (2, "then another pair's second line"),
            (3, "and the pair's second line, not waiting for the first"),
        ] {
            let best = (0..3).map(|_| chase(&p, mode)).fold(f64::MAX, f64::min);
            println!("{mib} MiB, {what}: {best:.1} ns a step");
        }
    }
}
