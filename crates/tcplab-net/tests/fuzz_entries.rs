//! Runs the cargo-fuzz entry points on stable: random byte strings, and structured
//! chunks (raw, foreign, mutated and replayed datagrams) that reach the session logic.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use tcplab_core::Rng;
use tcplab_net::fuzzing::{session_input, session_input_for, wire_input, Exercised, FUZZ_FLOWS};
use tcplab_net::receiver_fuzzing::receiver_input;

/// Counts each thread's live heap bytes and their peak, so a test can bound what one
/// fuzz input made its own thread allocate (requested sizes: zeroed pages included).
struct Counting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn count(delta: i64) {
    let _ = LIVE.try_with(|l| {
        let v = l.get() + delta;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

// SAFETY: forwards to the system allocator; the bookkeeping touches only const-initialised
// thread-locals (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as i64);
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        count(l.size() as i64);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-(l.size() as i64));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        count(new as i64 - l.size() as i64);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap growth (bytes) of `f` on this thread.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, i64) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get) - base)
}

fn bytes(rng: &mut Rng, max: u64) -> Vec<u8> {
    (0..rng.below(max)).map(|_| rng.below(256) as u8).collect()
}

#[test]
fn wire_entry_survives_garbage_and_mutations() {
    let mut rng = Rng::from_seed(5);
    for _ in 0..20_000 {
        wire_input(&bytes(&mut rng, 120));
    }
    // Valid headers with random bodies reach the per-type decoders.
    for _ in 0..20_000 {
        let mut b = bytes(&mut rng, 120);
        if b.len() >= 6 {
            b[0] = 0x54;
            b[1] = 0x4c;
            b[2] = 1;
            b[3] = [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22][rng.below(15) as usize];
            b[5] = rng.below(40) as u8;
        }
        wire_input(&b);
    }
}

#[test]
fn session_entry_survives_hostile_chunks() {
    let mut rng = Rng::from_seed(11);
    let mut done = 0;
    let mut hostile = 0;
    for round in 0..150 {
        let mut input = Vec::new();
        for _ in 0..rng.below(40) {
            // Mostly strangers in the first rounds, every kind later.
            let op = if round < 50 { 1 } else { rng.below(8) as u8 };
            let body = bytes(&mut rng, 60);
            input.push(op);
            input.push(body.len() as u8);
            input.extend(body);
        }
        let ex: Exercised = session_input(&input);
        done += ex.completed as u32;
        hostile += ex.accepted_hostile as u32;
    }
    assert!(
        done >= 50,
        "transfers with only foreign datagrams all complete ({done})"
    );
    assert!(
        hostile > 50,
        "forged and mutated datagrams were tried ({hostile})"
    );
}

#[test]
fn session_entry_survives_hostile_chunks_for_every_transport() {
    let mut rng = Rng::from_seed(13);
    for t in 1..FUZZ_FLOWS.len() as u8 {
        let (mut done, mut hostile) = (0, 0);
        for round in 0..30 {
            let mut input = Vec::new();
            for _ in 0..rng.below(40) {
                let op = if round < 10 { 1 } else { rng.below(8) as u8 };
                let body = bytes(&mut rng, 60);
                input.push(op);
                input.push(body.len() as u8);
                input.extend(body);
            }
            let ex = session_input_for(t, &input);
            done += ex.completed as u32;
            hostile += ex.accepted_hostile as u32;
        }
        assert!(
            done >= 10,
            "transport {t}: foreign datagrams stop nothing ({done})"
        );
        assert!(
            hostile > 10,
            "transport {t}: forged datagrams were tried ({hostile})"
        );
    }
}

/// One chunk `[op, len, bytes]` of `receiver_input`.
fn chunk(input: &mut Vec<u8>, op: u8, body: &[u8]) {
    input.push(op);
    input.push(body.len() as u8);
    input.extend_from_slice(body);
}

/// The stateful receiver entry, for a bounded time (at most 400 inputs or 20 s): no
/// panic, every datagram counted, and what any sequence of datagrams makes the session
/// allocate stays under its caps (a 64 MB sink state, the 1 GiB reach) plus buffers.
#[test]
fn receiver_entry_holds_state_bounded_against_datagram_sequences() {
    const BOUND: i64 = 80 << 20;
    let mut rng = Rng::from_seed(17);
    let t0 = std::time::Instant::now();
    let (mut claimed, mut data, mut released, mut keyed, mut worst) = (0, 0, 0, 0, 0);
    let mut rounds = 0;
    while rounds < 400 && t0.elapsed() < std::time::Duration::from_secs(20) {
        rounds += 1;
        let mode = rng.below(256) as u8;
        let mut input = vec![mode];
        // Most runs open a session from a table, then send data for it.
        let table = rng.below(9) as u8;
        let op = if rng.chance(0.2) { 8 | 2 } else { 2 };
        chunk(&mut input, op, &[table, 255, 0, 0, 0, 0, 0, 0]);
        for _ in 0..rng.below(60) {
            let op = match rng.below(10) {
                0 => rng.below(32) as u8,
                1 => 7,
                _ => 3 + rng.below(4) as u8,
            };
            let body: Vec<u8> = (0..rng.below(12)).map(|_| rng.below(256) as u8).collect();
            chunk(&mut input, op, &body);
        }
        let (run, peak) = peak_of(|| receiver_input(&input));
        assert!(
            peak < BOUND,
            "input {rounds} (table {table}) made the receiver allocate {peak} bytes"
        );
        worst = worst.max(peak);
        claimed += run.claimed as u32;
        data += (run.data_accepted > 0) as u32;
        released += (run.released > 0) as u32;
        keyed += (mode & 1) as u32;
    }
    eprintln!(
        "{rounds} inputs: {claimed} claimed, {data} with data accepted, {released} released, \
         {keyed} keyed; peak heap {:.1} MB",
        worst as f64 / 1e6
    );
    assert!(claimed > rounds / 4 && data > rounds / 10 && released > 0 && keyed > rounds / 4);
}

#[test]
fn receiver_entry_survives_random_chunks() {
    let mut rng = Rng::from_seed(19);
    for _ in 0..300 {
        let b = bytes(&mut rng, 400);
        receiver_input(&b);
    }
}

/// The receiver entry reaches a registered transport's OPAQUE data: a HELLO of the
/// registered stop-and-wait table, then an OPAQUE of its connection, accepted.
#[test]
fn receiver_entry_reaches_opaque_data() {
    let hello = [2u8, 2, 9, 6]; // FUZZ_TABLES[9], no transport byte override
    let data = [6u8, 10, 0, 0, 0, 0, 0, 0, 0, 0, 150, 1]; // packet 0, 1200 bytes, OPAQUE
    let run = receiver_input(&[&[0u8][..], &hello, &data].concat());
    assert!(run.claimed);
    assert_eq!(run.data_accepted, 1, "{run:?}");
}
