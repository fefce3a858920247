//! Thin, safe wrappers over the Linux system calls the drivers need: TUN devices, network
//! namespaces, interface configuration, high-resolution timers, clocks, scheduling.
//! Calls go through rustix; the few it has no safe wrapper for are in [`ffi`], the
//! crate's only `unsafe` code (the list and the reasons are there).
//!
//! Everything here is Linux-only; each wrapper returns an `io::Error` naming what failed.

pub mod clock;
#[allow(unsafe_code)]
pub(crate) mod ffi;
pub mod ifconfig;
pub mod netns;
pub mod sched;
pub mod tcp_info;
pub mod timer;
pub mod tun;

use std::io;

/// `e` with `what` in front of its message (the kind kept).
pub(crate) fn named(e: impl Into<io::Error>, what: &str) -> io::Error {
    let e = e.into();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// True when the process runs as root (network namespaces and TUN devices need it).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}
