//! The run heap: a large run's memory in transparent huge pages.
//!
//! Why: a run of many flows touches each flow's state (about 13 KB a flow at 1000 B2
//! flows) once a round trip, in an order no prefetcher predicts, so with 4 KiB pages its
//! cache misses are also TLB misses. glibc puts its heap in huge pages when a process
//! starts with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (1000 B2 flows 5 % faster), but a
//! Python extension cannot set that, and a whole-process allocator would change the
//! memory of everything else in the process. So a run's own allocations come from a
//! region of their own, advised into huge pages (`MADV_HUGEPAGE`), while a
//! [`RunHeap::scope`] is active on the running thread; all else goes to the system
//! allocator. The simulator opens a scope for runs of 32 to 20,000 flows (see
//! `RUN_HEAP_FLOWS` in `run.rs` for the measurements behind the bounds).
//!
//! [`RunHeap`] must be the program's `#[global_allocator]` (the Python extension and the
//! `run_scenario` example install it); elsewhere a scope changes nothing. The region is
//! address space reserved once (`MAP_NORESERVE`: nothing is committed until touched).
//! Blocks come in size classes (16-byte steps to 48 bytes, cache lines to 4 KiB, then
//! pages, four classes per doubling), are cut from the region in allocation order (a
//! flow's parts lie together) and reused through a free list per class; a freed block of
//! 4 MiB or more returns its pages at once (a table that doubles leaves no touched old
//! copies behind). When the last run ends, the pages that hold no live block are returned
//! (its results keep only theirs); when no block is live, all of them, and the region
//! starts again from its front. Results kept alive across many runs make each run start
//! further up the region; at its end, runs fall back to the system allocator. A request
//! it cannot serve (an alignment above 4 KiB, a full region, a kernel without the
//! mapping) goes to the system allocator, so nothing fails here. Outside a scope every
//! allocation is the system's, `calloc`'s lazily zeroed pages included.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// The global allocator that serves a run's allocations from the huge-page region while
/// a [`scope`](RunHeap::scope) is active on the thread, and all others from [`System`].
pub struct RunHeap;

/// Address space reserved for the region: far more than a 100,000-flow run's 0.7 GB,
/// and only what is touched costs memory.
const RESERVE: usize = 64 << 30;
/// The largest block the region serves.
const MAX_BLOCK: usize = 1 << 30;
/// From this size a freed block returns its pages (all but the first, which holds its
/// free-list word) at once: a table that doubles step by step would otherwise leave each
/// old copy behind, touched (100,000 B2 flows touched 884 MB for a 652 MB heap peak).
const LARGE: usize = 4 << 20;
/// A huge page: the region starts on one, and what it returns extends to the end of the
/// last one touched (a huge-page fault made all of it resident).
const HUGE_PAGE: usize = 2 << 20;
const PAGE: usize = 4096;
/// Classes: 16, 32 and 48 bytes; 64-byte multiples to 4 KiB; pages.
const SMALL: usize = 3;
const LINES: usize = PAGE / 64;
const PAGE_CLASSES: usize = 80;
const CLASSES: usize = SMALL + LINES + PAGE_CLASSES;

/// A block's size class: (index, bytes, alignment), or `None` for the system allocator.
/// Deterministic in the layout, so a block's class is found again when it is freed.
fn class_of(size: usize, align: usize) -> Option<(usize, usize, usize)> {
    let size = size.max(1);
    if align > PAGE || size > MAX_BLOCK {
        return None;
    }
    if align <= 16 && size <= 48 {
        let k = size.div_ceil(16);
        return Some((k - 1, k * 16, 16));
    }
    if align <= 64 && size <= PAGE {
        let k = size.div_ceil(64);
        return Some((SMALL + k - 1, k * 64, 64));
    }
    let pages = size.div_ceil(PAGE);
    let (idx, pages) = if pages <= 8 {
        (pages - 1, pages)
    } else {
        // Four classes per doubling: `m << shift` pages with `m` in 4..8.
        let shift = usize::BITS - 1 - pages.leading_zeros() - 2;
        let m = pages.div_ceil(1 << shift);
        let (shift, m) = if m == 8 { (shift + 1, 4) } else { (shift, m) };
        (8 + (shift as usize - 1) * 4 + (m - 4), m << shift)
    };
    Some((SMALL + LINES + idx, pages * PAGE, PAGE))
}

/// The allocator's state: a region `[base, end)` cut from `bump` upwards.
struct Heap {
    base: usize,
    end: usize,
    bump: usize,
    /// The highest `bump` since the pages were last returned.
    high: usize,
    /// Bytes in blocks handed out and not freed.
    live: usize,
    /// Free blocks by class, linked through their first word (0 ends a list).
    free: [usize; CLASSES],
    /// Blocks that overlap each page of the region, by page (a table of its own), so
    /// the pages without a live block are known without walking the free lists.
    blocks: *mut u16,
}

impl Heap {
    const fn new() -> Heap {
        Heap {
            base: 0,
            end: 0,
            bump: 0,
            high: 0,
            live: 0,
            free: [0; CLASSES],
            blocks: std::ptr::null_mut(),
        }
    }

    /// A heap over `[base, base + len)` (tests; the run heap reserves its own).
    #[cfg(test)]
    fn over(base: usize, len: usize, blocks: &mut [u16]) -> Heap {
        assert!(blocks.len() >= len / PAGE);
        Heap {
            base,
            end: base + len,
            bump: base,
            high: base,
            blocks: blocks.as_mut_ptr(),
            ..Heap::new()
        }
    }

    /// Adds `by` (1 or -1) to the block count of every page `[p, p + bytes)` overlaps.
    fn count(&mut self, p: usize, bytes: usize, by: i16) {
        let (first, last) = ((p - self.base) / PAGE, (p + bytes - 1 - self.base) / PAGE);
        for page in first..=last {
            // SAFETY: the table has an entry for every page of the region.
            unsafe {
                let c = self.blocks.add(page);
                *c = (*c).wrapping_add_signed(by);
            }
        }
    }

    /// A block of class `c`, or `None` when the region is full.
    ///
    /// # Safety
    /// The region must be memory this heap owns (a free block's first word is read).
    unsafe fn take(&mut self, (idx, bytes, align): (usize, usize, usize)) -> Option<usize> {
        let head = self.free[idx];
        let p = if head != 0 {
            // SAFETY: a freed block of this class holds the next free block's address.
            self.free[idx] = unsafe { *(head as *const usize) };
            head
        } else {
            let p = self.bump.next_multiple_of(align);
            if p + bytes > self.end {
                return None;
            }
            self.bump = p + bytes;
            self.high = self.high.max(self.bump);
            p
        };
        self.live += bytes;
        self.count(p, bytes, 1);
        Some(p)
    }

    /// Frees `p`, a block of class `c`.
    ///
    /// # Safety
    /// `p` must be a live block of this heap of class `c`.
    unsafe fn give(&mut self, p: usize, (idx, bytes, _): (usize, usize, usize)) {
        // SAFETY: the block is the caller's to give back, at least 16 bytes, aligned.
        unsafe { *(p as *mut usize) = self.free[idx] };
        self.free[idx] = p;
        // A double free or a wrong layout: unwinding out of an allocator is undefined.
        self.live = self
            .live
            .checked_sub(bytes)
            .unwrap_or_else(|| std::process::abort());
        self.count(p, bytes, -1);
        if bytes >= LARGE {
            release_pages(p + PAGE, bytes - PAGE);
        }
        if self.live == 0 {
            // Start again from the front: the next run reuses the lines just used.
            self.free = [0; CLASSES];
            self.bump = self.base;
        }
    }

    /// Reserves the region on first use; false if the system refused it (then
    /// [`REFUSED`] keeps callers from asking again).
    fn reserve(&mut self) -> bool {
        if self.base == 0 {
            let table = RESERVE / PAGE * std::mem::size_of::<u16>();
            match (
                map_region(RESERVE + HUGE_PAGE, true),
                map_region(table, false),
            ) {
                (Some(start), Some(blocks)) => {
                    let base = start.next_multiple_of(HUGE_PAGE);
                    (self.base, self.end, self.bump, self.high) =
                        (base, base + RESERVE, base, base);
                    self.blocks = blocks as *mut u16;
                    REGION.store(base, Ordering::Release);
                }
                (region, table_map) => {
                    unmap(region, RESERVE + HUGE_PAGE);
                    unmap(table_map, table);
                    REFUSED.store(true, Ordering::Relaxed);
                }
            }
        }
        self.base != 0
    }

    /// Returns the touched pages to the system when nothing is live and no run is on.
    fn release_if_idle(&mut self) {
        if self.live == 0 && SCOPES.load(Ordering::Relaxed) == 0 && self.high > self.base {
            release_pages(self.base, self.touched_end() - self.base);
            self.high = self.base;
        }
    }

    /// The end of the huge page that holds the highest byte used.
    fn touched_end(&self) -> usize {
        self.high.next_multiple_of(HUGE_PAGE).min(self.end)
    }

    /// When the last run ends with blocks still live (its results): returns the pages
    /// that no live block overlaps, so results kept do not keep the run's memory. The free
    /// blocks are given up (their pages now read as zeros, free-list words included)
    /// until the region empties and starts again from its front.
    fn trim(&mut self) {
        if SCOPES.load(Ordering::Relaxed) != 0 || self.live == 0 {
            return;
        }
        self.free = [0; CLASSES];
        let pages = (self.touched_end() - self.base) / PAGE;
        let mut page = 0;
        while page < pages {
            // SAFETY: `page` is below the region's touched end, in the table.
            let idle = |p: usize| unsafe { *self.blocks.add(p) } == 0;
            if !idle(page) {
                page += 1;
                continue;
            }
            let start = page;
            while page < pages && idle(page) {
                page += 1;
            }
            release_pages(self.base + start * PAGE, (page - start) * PAGE);
        }
    }
}

/// An anonymous mapping of `len` bytes, nothing committed; advised into huge pages if
/// `huge`.
#[cfg(target_os = "linux")]
fn map_region(len: usize, huge: bool) -> Option<usize> {
    // SAFETY: a fresh anonymous private mapping; no existing memory is touched.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // A kernel without transparent huge pages refuses the advice: the region still
    // works, in small pages.
    if huge {
        advise_huge(p as usize, len);
    }
    Some(p as usize)
}

/// Asks for huge pages in `[p, p + len)` (refused without transparent huge pages: the
/// memory works as it is).
#[cfg(target_os = "linux")]
fn advise_huge(p: usize, len: usize) {
    // SAFETY: advice only, on memory this allocator handed out or mapped.
    unsafe { libc::madvise(p as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_p: usize, _len: usize) {}

#[cfg(not(target_os = "linux"))]
fn map_region(_len: usize, _huge: bool) -> Option<usize> {
    None
}

/// Unmaps a mapping `map_region` made, if it made it.
#[cfg(target_os = "linux")]
fn unmap(p: Option<usize>, len: usize) {
    if let Some(p) = p {
        // SAFETY: a mapping of `len` bytes that nothing uses yet.
        unsafe { libc::munmap(p as *mut libc::c_void, len) };
    }
}

#[cfg(not(target_os = "linux"))]
fn unmap(_p: Option<usize>, _len: usize) {}

/// A process forked while another thread holds the lock would find it held forever:
/// the lock is taken before a fork and let go on both sides after it. Registered once,
/// before anything takes the lock (every path to it starts with a scope or `stats`),
/// and never with the lock held.
#[cfg(target_os = "linux")]
fn hold_across_fork() {
    static DONE: AtomicBool = AtomicBool::new(false);
    extern "C" fn take() {
        HEAP.lock();
    }
    extern "C" fn give() {
        HEAP.unlock();
    }
    if !DONE.swap(true, Ordering::AcqRel) {
        // SAFETY: registers plain functions that take and let go of the lock.
        unsafe { libc::pthread_atfork(Some(take), Some(give), Some(give)) };
    }
}

#[cfg(not(target_os = "linux"))]
fn hold_across_fork() {}

#[cfg(target_os = "linux")]
fn release_pages(base: usize, len: usize) {
    // SAFETY: the range lies in the region and holds no live block; its pages read
    // back as zeros afterwards, which nothing relies on (freed blocks are never read
    // but for the free-list word, and the free lists were cleared).
    unsafe { libc::madvise(base as *mut libc::c_void, len, libc::MADV_DONTNEED) };
}

#[cfg(not(target_os = "linux"))]
fn release_pages(_base: usize, _len: usize) {}

/// The heap behind a spin lock (it is taken only to allocate or free, never on a
/// packet's path, and rarely by two threads at once).
struct Locked {
    busy: AtomicBool,
    heap: UnsafeCell<Heap>,
}

// SAFETY: `heap` is reached only through `with`, which holds `busy`.
unsafe impl Sync for Locked {}

impl Locked {
    fn lock(&self) {
        let mut spins = 0u32;
        while self
            .busy
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // A holder that lost its core (more running threads than cores) is let run.
            spins += 1;
            if spins % 64 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn unlock(&self) {
        self.busy.store(false, Ordering::Release);
    }

    fn with<R>(&self, f: impl FnOnce(&mut Heap) -> R) -> R {
        self.lock();
        // SAFETY: `busy` is held, so this is the only reference.
        let r = f(unsafe { &mut *self.heap.get() });
        self.unlock();
        r
    }
}

static HEAP: Locked = Locked {
    busy: AtomicBool::new(false),
    heap: UnsafeCell::new(Heap::new()),
};
/// The region's base once reserved (never changes after): frees of the system's blocks
/// tell them apart without the lock.
static REGION: AtomicUsize = AtomicUsize::new(0);

/// The system refused the region: scoped allocations go to the system without the lock.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// Whether `p` lies in the region.
fn in_region(p: *const u8) -> bool {
    let base = REGION.load(Ordering::Acquire);
    base != 0 && (p as usize).wrapping_sub(base) < RESERVE
}

/// Whether scopes use the region at all: 0 not yet asked, 1 on, 2 off (the environment
/// variable [`ENV`], read at the first scope, or [`RunHeap::set_enabled`]).
static ENABLED: AtomicU8 = AtomicU8::new(0);

/// The environment variable that turns the region off (`off`) or on (`on`, the default).
pub(crate) const ENV: &str = "TCPLAB_RUN_HEAP";

/// [`ENV`]'s value if it is not `on` or `off` (the simulator refuses to run then, rather
/// than guess what `0` or `no` meant).
pub(crate) fn bad_env() -> Option<String> {
    let v = std::env::var_os(ENV)?;
    (v != "on" && v != "off").then(|| v.to_string_lossy().into_owned())
}

fn enabled() -> bool {
    match ENABLED.load(Ordering::Relaxed) {
        0 => {
            let off = std::env::var_os(ENV).is_some_and(|v| v == "off");
            let _ = ENABLED.compare_exchange(
                0,
                if off { 2 } else { 1 },
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            ENABLED.load(Ordering::Relaxed) == 1
        }
        v => v == 1,
    }
}

thread_local! {
    /// A scope is active on this thread.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

/// Scopes active on all threads (changed under the heap's lock, read without it too):
/// while none is, an allocation asks no thread-local (in a shared library, a call)
/// before going to the system, and pages may be returned.
static SCOPES: AtomicUsize = AtomicUsize::new(0);

fn active() -> bool {
    SCOPES.load(Ordering::Relaxed) != 0 && ACTIVE.try_with(Cell::get).unwrap_or(false)
}

/// Ends a [`RunHeap::scope`] when dropped, on the thread that began it (not `Send`:
/// the scope is that thread's).
pub struct RunHeapScope {
    counted: bool,
    prev: bool,
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for RunHeapScope {
    fn drop(&mut self) {
        let _ = ACTIVE.try_with(|a| a.set(self.prev));
        if self.counted {
            HEAP.with(|h| {
                SCOPES.fetch_sub(1, Ordering::Relaxed);
                h.release_if_idle();
                h.trim();
            });
        }
    }
}

/// What the region holds (tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunHeapStats {
    /// The region's first address (0: never reserved, or refused).
    pub base: usize,
    /// Bytes in live blocks.
    pub live: usize,
    /// The span of the region used since it last emptied (its resident memory is at
    /// most this: pages without a live block are returned when the last run ends).
    pub touched: usize,
}

impl RunHeap {
    /// Serves this thread's allocations from the region until the guard drops, if `on`
    /// (the caller's judgement that the run is large enough to gain: see
    /// [`crate::simulate`]) and [`enabled`](Self::set_enabled).
    pub fn scope(on: bool) -> RunHeapScope {
        let on = on && enabled();
        let prev = active();
        hold_across_fork();
        if on {
            HEAP.with(|_| SCOPES.fetch_add(1, Ordering::Relaxed));
            let _ = ACTIVE.try_with(|a| a.set(true));
        }
        RunHeapScope {
            counted: on,
            prev,
            _thread: std::marker::PhantomData,
        }
    }

    /// Turns the region on or off for scopes begun later, for the process (on unless
    /// the environment has `TCPLAB_RUN_HEAP=off`): off, every allocation goes to the
    /// system allocator, where tools such as valgrind's see them.
    pub fn set_enabled(on: bool) {
        ENABLED.store(if on { 1 } else { 2 }, Ordering::Relaxed);
    }

    pub fn stats() -> RunHeapStats {
        hold_across_fork();
        HEAP.with(|h| RunHeapStats {
            base: h.base,
            live: h.live,
            touched: h.high - h.base,
        })
    }

    /// Whether `p` lies in the region.
    pub fn holds(p: *const u8) -> bool {
        in_region(p)
    }
}

/// A block from the region for `l`, or null to ask the system.
fn region_alloc(l: Layout) -> *mut u8 {
    let Some(c) = class_of(l.size(), l.align()) else {
        return std::ptr::null_mut();
    };
    if REFUSED.load(Ordering::Relaxed) {
        return std::ptr::null_mut();
    }
    // SAFETY: the region is this heap's own memory.
    HEAP.with(|h| {
        if h.reserve() {
            unsafe { h.take(c) }
        } else {
            None
        }
    })
    .map_or(std::ptr::null_mut(), |p| p as *mut u8)
}

// SAFETY: every block is either the system's (asked with the caller's layout) or a
// region block of at least the layout's size and alignment (`class_of`), handed out
// once until freed; blocks are told apart by address.
unsafe impl GlobalAlloc for RunHeap {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if active() {
            let p = region_alloc(l);
            if !p.is_null() {
                return p;
            }
        }
        // SAFETY: forwards the caller's layout.
        unsafe { System.alloc(l) }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if active() {
            let p = region_alloc(l);
            if !p.is_null() {
                // SAFETY: a block of at least `l.size()` bytes (reused ones are not zero).
                unsafe { p.write_bytes(0, l.size()) };
                return p;
            }
        }
        // SAFETY: forwards the caller's layout (`calloc`: fresh pages stay untouched).
        unsafe { System.alloc_zeroed(l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if !in_region(p) {
            // SAFETY: not a region block, so the system's, with this layout.
            return unsafe { System.dealloc(p, l) };
        }
        // A region block always has a class; without one the layout is not the block's,
        // and unwinding out of an allocator is undefined.
        let Some(c) = class_of(l.size(), l.align()) else {
            std::process::abort()
        };
        HEAP.with(|h| {
            // SAFETY: `p` is a live region block, of the class its layout gives.
            unsafe { h.give(p as usize, c) };
            h.release_if_idle();
        });
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let ours = in_region(p);
        if ours && class_of(l.size(), l.align()) == class_of(new_size, l.align()) {
            return p; // the block already has room
        }
        if !ours && !active() {
            // SAFETY: the system's block, resized by the system.
            return unsafe { System.realloc(p, l, new_size) };
        }
        // SAFETY: the new layout is valid (the caller's alignment, a size the caller
        // vouches for); the old block is live for `l.size()` bytes, then freed once.
        unsafe {
            let n = Layout::from_size_align_unchecked(new_size, l.align());
            let q = self.alloc(n);
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                self.dealloc(p, l);
            }
            q
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class holds the request, at its alignment, and a larger request never gets a
    /// smaller class; classes are found again from the same layout.
    #[test]
    fn classes_fit_their_requests() {
        let mut last = (0, 0);
        for size in (1..70_000).chain([1 << 20, (1 << 20) + 1, 3 << 24, MAX_BLOCK]) {
            for align in [1, 8, 16, 32, 64, 128, 4096] {
                let (idx, bytes, a) = class_of(size, align).unwrap();
                assert!(idx < CLASSES, "{size} {align}");
                assert!(
                    bytes >= size && a >= align && bytes % a == 0,
                    "{size} {align}"
                );
                if align == 8 {
                    assert!((idx, bytes) >= last, "{size}");
                    last = (idx, bytes);
                }
            }
        }
        assert_eq!(class_of(1088, 64).unwrap().1, 1088); // a TCP sender: no waste
        assert_eq!(class_of(MAX_BLOCK + 1, 8), None);
        assert_eq!(class_of(64, 8192), None);
        // Page classes waste at most a quarter past 8 pages.
        for pages in 9..5000 {
            let (_, bytes, _) = class_of(pages * PAGE, 8).unwrap();
            assert!(bytes * 4 <= pages * PAGE * 5, "{pages}");
        }
    }

    /// Random allocations and frees over a buffer: blocks never overlap, keep their
    /// alignment, and an emptied heap starts again at the front.
    #[test]
    fn blocks_are_disjoint_and_reused() {
        let mut buf = vec![0u64; 1 << 20]; // 8 MiB
        let base = (buf.as_mut_ptr() as usize).next_multiple_of(PAGE);
        let mut table = vec![0u16; 2048];
        let mut h = Heap::over(base, (8 << 20) - PAGE, &mut table);
        let mut live: Vec<(usize, (usize, usize, usize))> = Vec::new();
        let mut rng = tcplab_core::Rng::named(7, "run_heap");
        for step in 0..20_000 {
            if live.is_empty() || rng.next_u64() % 3 != 0 {
                let size = 1 + (rng.next_u64() % 9000) as usize;
                let align = 1 << (rng.next_u64() % 8);
                let c = class_of(size, align).unwrap();
                // SAFETY: the heap is over `buf`, which lives to the end of the test.
                let Some(p) = (unsafe { h.take(c) }) else {
                    continue;
                };
                assert_eq!(p % align, 0, "step {step}");
                for &(q, qc) in &live {
                    assert!(p + c.1 <= q || q + qc.1 <= p, "step {step}: overlap");
                }
                live.push((p, c));
            } else {
                let (p, c) = live.swap_remove((rng.next_u64() as usize) % live.len());
                // SAFETY: a live block of class `c`.
                unsafe { h.give(p, c) };
            }
            assert_eq!(h.live, live.iter().map(|(_, c)| c.1).sum::<usize>());
        }
        for (p, c) in live.drain(..) {
            // SAFETY: as above.
            unsafe { h.give(p, c) };
        }
        assert_eq!((h.live, h.bump), (0, base));
        assert!(h.high > base);
        assert!(table.iter().all(|&c| c == 0), "no page counts a block");
    }

    /// Trimming returns the pages no live block overlaps and keeps the others intact.
    #[test]
    #[cfg(target_os = "linux")]
    fn trim_returns_the_pages_without_live_blocks() {
        let mut buf = vec![0u64; 1 << 19]; // 4 MiB
        let base = (buf.as_mut_ptr() as usize).next_multiple_of(PAGE);
        let mut table = vec![0u16; 1024];
        let mut h = Heap::over(base, (4 << 20) - PAGE, &mut table);
        let c = class_of(1000, 8).unwrap(); // 1024 bytes, four to a page
                                            // SAFETY: the heap is over `buf`, which outlives it; blocks are written in bounds.
        let blocks: Vec<usize> = (0..400).map(|_| unsafe { h.take(c) }.unwrap()).collect();
        for &p in &blocks {
            unsafe { std::ptr::write_bytes(p as *mut u8, 0xAB, c.1) };
        }
        // Keep every 40th block (one page in ten), free the rest.
        for (i, &p) in blocks.iter().enumerate() {
            if i % 40 != 0 {
                unsafe { h.give(p, c) };
            }
        }
        h.trim();
        for (i, &p) in blocks.iter().enumerate() {
            let first = unsafe { *(p as *const u8) };
            let last = unsafe { *((p + c.1 - 1) as *const u8) };
            if i % 40 == 0 {
                assert_eq!((first, last), (0xAB, 0xAB), "a live block is kept");
            } else if i % 40 >= 4 {
                assert_eq!((first, last), (0, 0), "block {i}'s page was returned");
            }
        }
        assert_eq!(h.free, [0; CLASSES], "the free blocks are given up");
        // The live blocks are still freed correctly.
        for &p in blocks.iter().step_by(40) {
            unsafe { h.give(p, c) };
        }
        assert_eq!((h.live, h.bump), (0, base));
    }
}
