//! Thin, safe wrappers over the Linux system calls the drivers need: TUN devices, network
//! namespaces, interface configuration, high-resolution timers, clocks, scheduling.
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
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
