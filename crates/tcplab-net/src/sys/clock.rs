//! Wall clocks as tcplab `Time`: nanoseconds since a driver's start.

use rustix::time::{clock_gettime, ClockId};
use tcplab_core::{Dur, Time};

fn clock_ns(id: ClockId) -> u64 {
    let ts = clock_gettime(id);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `CLOCK_MONOTONIC` in nanoseconds (shared by every process and namespace on the host).
pub fn monotonic_ns() -> u64 {
    clock_ns(ClockId::Monotonic)
}

/// `CLOCK_REALTIME` in nanoseconds (the clock kernel receive timestamps use).
pub fn realtime_ns() -> u64 {
    clock_ns(ClockId::Realtime)
}

/// CPU time the calling thread has used, seconds.
pub fn thread_cpu_s() -> f64 {
    clock_ns(ClockId::ThreadCPUTime) as f64 / 1e9
}

/// A driver's clock: `Time::ZERO` is when it was created.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin_ns: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            origin_ns: monotonic_ns(),
        }
    }

    pub fn now(&self) -> Time {
        Time(monotonic_ns().saturating_sub(self.origin_ns))
    }

    /// The `CLOCK_MONOTONIC` reading of `t` (for absolute timers).
    pub fn to_monotonic_ns(&self, t: Time) -> u64 {
        self.origin_ns.saturating_add(t.0)
    }

    pub fn origin_monotonic_ns(&self) -> u64 {
        self.origin_ns
    }

    pub fn elapsed(&self) -> Dur {
        Dur(self.now().0)
    }
}
