//! tcplab on real networks.
//!
//! - [`emu`]: a link emulator in the manner of a Mahimahi shell. A command runs in its own
//!   network namespace whose only route leads through a TUN device; every packet it sends
//!   or receives crosses tcplab's sans-IO [`tcplab_link::Link`] model on the wall clock.
//! - [`ktcp`]: a bulk sender/receiver on the kernel's TCP (cubic, bbr, reno) with
//!   `TCP_INFO` sampled into the simulator's flow tables.
//! - [`sys`]: the Linux system calls underneath (TUN, namespaces, timers), through rustix;
//!   the few it has no safe wrapper for are in `sys::ffi`, the only module allowed
//!   `unsafe` code.

#![deny(unsafe_code)]

pub mod emu;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod ktcp;
pub mod payload;
pub mod probe;
pub mod real_hosts;
#[doc(hidden)]
pub mod receiver_fuzzing;
mod rows;
pub mod sys;
pub mod transfer;
pub mod udp;
pub mod wire;

pub use error::NetError;
