//! A nanosecond-resolution one-shot timer as a pollable file descriptor.
//!
//! `epoll_wait` (and so mio) takes its timeout in milliseconds, far too coarse for a
//! 100 Mbit/s link (one 1500-byte packet every 120 µs). A `timerfd` armed at an absolute
//! `CLOCK_MONOTONIC` time is an hrtimer; with the thread's timer slack cut to 1 ns it
//! fires within microseconds of its deadline on an idle machine.

use super::cvt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub struct TimerFd {
    fd: OwnedFd,
    armed_at: Option<u64>,
}

impl TimerFd {
    pub fn new() -> io::Result<TimerFd> {
        // SAFETY: plain syscall; the returned descriptor is owned below.
        let fd = cvt(
            unsafe {
                libc::timerfd_create(
                    libc::CLOCK_MONOTONIC,
                    libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
                )
            },
            "timerfd_create",
        )?;
        Ok(TimerFd {
            // SAFETY: `fd` is a fresh descriptor nobody else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            armed_at: None,
        })
    }

    /// Arms the timer for the absolute `CLOCK_MONOTONIC` time `mono_ns` (`None` disarms).
    /// Re-arming for the same deadline costs no system call.
    pub fn set(&mut self, mono_ns: Option<u64>) -> io::Result<()> {
        if self.armed_at == mono_ns {
            return Ok(());
        }
        // A zero it_value disarms, so a deadline of exactly 0 becomes 1 ns.
        let v = mono_ns.map_or(0, |t| t.max(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: (v / 1_000_000_000) as libc::time_t,
                tv_nsec: (v % 1_000_000_000) as libc::c_long,
            },
        };
        // SAFETY: `spec` is valid for the call; the old value is not requested.
        cvt(
            unsafe {
                libc::timerfd_settime(
                    self.fd.as_raw_fd(),
                    libc::TFD_TIMER_ABSTIME,
                    &spec,
                    std::ptr::null_mut(),
                )
            },
            "timerfd_settime",
        )?;
        self.armed_at = mono_ns;
        Ok(())
    }

    /// Consumes an expiry so the descriptor stops being readable.
    pub fn clear(&mut self) {
        let mut buf = [0u8; 8];
        // SAFETY: reads at most 8 bytes into `buf`; EAGAIN (not expired) is fine.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
        if n == 8 {
            self.armed_at = None;
        }
    }
}

impl AsRawFd for TimerFd {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
