//! Thin, safe wrappers over the Linux system calls the drivers need: TUN devices, network
//! namespaces, interface configuration, high-resolution timers, clocks, scheduling.
//! Calls go through rustix where it has them (clocks, timerfd, namespaces, timer slack,
//! credentials); `unsafe` stays for what it lacks or marks unsafe itself: the TUN and
//! interface ioctls, `sched_setscheduler`, `unshare` and a `pre_exec` hook.
//!
//! Everything here is Linux-only; each wrapper returns an `io::Error` naming what failed.

pub mod clock;
pub mod ifconfig;
pub mod netns;
pub mod sched;
pub mod timer;
pub mod tun;

use std::io;

/// Turns a `-1` return into the thread's `errno`, with `what` in the message.
pub(crate) fn cvt<T: PartialEq + From<i8>>(ret: T, what: &str) -> io::Result<T> {
    if ret == T::from(-1) {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

/// True when the process runs as root (network namespaces and TUN devices need it).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}
