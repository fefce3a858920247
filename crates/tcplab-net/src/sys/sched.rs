//! Scheduling of the driver threads: tight timers and, when allowed, real-time priority.

/// Cuts the calling thread's timer slack to 1 ns (the default 50 µs would add up to 50 µs
/// to every wake-up).
pub fn tighten_timer_slack() {
    // Best effort: a thread keeps the default slack where the call is refused.
    let _ = rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1));
}

/// Asks for `SCHED_FIFO` at `priority` for the calling thread. Returns false when not
/// permitted (then the thread keeps its normal policy). A FIFO thread runs as soon as its
/// timer fires instead of waiting for other processes' time slices; the kernel's RT
/// throttling still leaves other tasks 5 % of each CPU should a FIFO thread spin.
pub fn try_realtime(priority: i32) -> bool {
    // (rustix has no sched_setscheduler.)
    super::ffi::set_fifo(priority).is_ok()
}
