//! A nanosecond-resolution one-shot timer as a pollable file descriptor.
//!
//! `epoll_wait` (and so mio) takes its timeout in milliseconds, far too coarse for a
//! 100 Mbit/s link (one 1500-byte packet every 120 µs). A `timerfd` armed at an absolute
//! `CLOCK_MONOTONIC` time is an hrtimer; with the thread's timer slack cut to 1 ns it
//! fires within microseconds of its deadline on an idle machine.

use rustix::time::{
    timerfd_create, timerfd_settime, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags,
    Timespec,
};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

pub struct TimerFd {
    fd: OwnedFd,
    armed_at: Option<u64>,
}

fn named(what: &str) -> impl FnOnce(rustix::io::Errno) -> io::Error + '_ {
    move |e| {
        let e = io::Error::from(e);
        io::Error::new(e.kind(), format!("{what}: {e}"))
    }
}

impl TimerFd {
    pub fn new() -> io::Result<TimerFd> {
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )
        .map_err(named("timerfd_create"))?;
        Ok(TimerFd { fd, armed_at: None })
    }

    /// Arms the timer for the absolute `CLOCK_MONOTONIC` time `mono_ns` (`None` disarms).
    /// Re-arming for the same deadline costs no system call.
    pub fn set(&mut self, mono_ns: Option<u64>) -> io::Result<()> {
        if self.armed_at == mono_ns {
            return Ok(());
        }
        // A zero it_value disarms, so a deadline of exactly 0 becomes 1 ns.
        let v = mono_ns.map_or(0, |t| t.max(1));
        let spec = Itimerspec {
            it_interval: Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: Timespec {
                tv_sec: (v / 1_000_000_000) as _,
                tv_nsec: (v % 1_000_000_000) as _,
            },
        };
        timerfd_settime(&self.fd, TimerfdTimerFlags::ABSTIME, &spec)
            .map_err(named("timerfd_settime"))?;
        self.armed_at = mono_ns;
        Ok(())
    }

    /// Consumes an expiry so the descriptor stops being readable.
    pub fn clear(&mut self) {
        let mut buf = [0u8; 8];
        // EAGAIN (not expired) is fine.
        if rustix::io::read(&self.fd, &mut buf) == Ok(8) {
            self.armed_at = None;
        }
    }
}

impl AsRawFd for TimerFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
