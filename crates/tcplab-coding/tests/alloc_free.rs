//! The per-symbol paths allocate nothing once buffers are warm: a counting
//! global allocator watches a second, identical run on reused objects.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams};
use tcplab_coding::rlnc::{RlncDecoder, RlncEncoder};

struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not see each other's
    // allocations; const-initialised, so reading it never allocates.
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

#[test]
fn lt_encode_and_decode_reuse_their_buffers() {
    let data: Vec<u8> = (0..64 * 100).map(|i| (i * 13) as u8).collect();
    let params =
        LtParams::tcp_forward(100, 32, DegreeSpec::RobustSoliton { c: 0.1, delta: 0.5 }).unwrap();
    let mut enc = LtEncoder::new(params.clone(), &data).unwrap();
    let mut dec = LtDecoder::new(params, data.len() as u64).unwrap();
    let mut buf = Vec::with_capacity(200);
    let gens = enc.num_generations();
    let run = |dec: &mut LtDecoder, enc: &mut LtEncoder, buf: &mut Vec<u8>| {
        dec.reset();
        let mut seed = 0;
        while !dec.is_complete() {
            enc.encode_into(seed % gens, seed, buf).unwrap();
            dec.receive(buf).unwrap();
            seed += 1;
        }
    };
    run(&mut dec, &mut enc, &mut buf); // warm-up sizes every buffer
    let n = allocations_during(|| run(&mut dec, &mut enc, &mut buf));
    assert_eq!(n, 0, "allocations on the warm LT path");
    assert_eq!(dec.data().unwrap(), &data[..]);
}

#[test]
fn rlnc_encode_and_decode_allocate_nothing() {
    let mut enc = RlncEncoder::new(100, 16).unwrap();
    for i in 0..16u8 {
        enc.push(&[i; 100]).unwrap();
    }
    let mut dec = RlncDecoder::new(100, 16).unwrap();
    let mut buf = Vec::with_capacity(200);
    let n = allocations_during(|| {
        let mut seed = 0;
        while dec.first_undecoded() < 16 || dec.rank() < 16 {
            enc.encode_into(seed, &mut buf).unwrap();
            dec.receive(&buf).unwrap();
            seed += 1;
        }
    });
    assert_eq!(n, 0, "allocations on the RLNC path");
    assert_eq!(dec.packet(7).unwrap(), &[7; 100]);
}
