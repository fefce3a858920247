//! The system allocator, counting live heap bytes and their peak: for the tests and tools
//! that measure a run's memory. Nothing installs it but them:
//!
//! ```ignore
//! #[global_allocator]
//! static HEAP: tcplab_core::peak_heap::PeakHeap = tcplab_core::peak_heap::PeakHeap;
//!
//! let base = PeakHeap::reset_peak();
//! run();
//! let grown = PeakHeap::peak() - base;
//! ```
//!
//! Sizes are the requested ones (zeroed pages included, the allocator's own rounding
//! not). A `realloc` counts the old and the new block as live until it returns, as a
//! moving reallocation holds both.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// A [`GlobalAlloc`] that forwards to [`System`] and keeps process-wide counts.
pub struct PeakHeap;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

impl PeakHeap {
    /// Heap bytes allocated and not yet freed.
    pub fn live() -> usize {
        LIVE.load(Relaxed)
    }

    /// The most [`PeakHeap::live`] reached since the last [`PeakHeap::reset_peak`].
    pub fn peak() -> usize {
        PEAK.load(Relaxed)
    }

    /// Starts a new peak at the bytes live now, and returns them.
    pub fn reset_peak() -> usize {
        let base = LIVE.load(Relaxed);
        PEAK.store(base, Relaxed);
        base
    }
}

// SAFETY: every call forwards to `System` with the caller's arguments; the counters are
// atomics, which never allocate.
unsafe impl GlobalAlloc for PeakHeap {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwards the caller's layout.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwards the caller's layout.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` was allocated by `System` with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        grew(n);
        // SAFETY: forwards to `System`; `p` came from it with layout `l`.
        let q = unsafe { System.realloc(p, l, n) };
        LIVE.fetch_sub(l.size(), Relaxed);
        q
    }
}
