//! Anonymous network namespaces.
//!
//! A namespace is created by a helper thread (`unshare(CLONE_NEWNET)` moves only that
//! thread) and kept alive by an open descriptor of it, never by a name under
//! `/var/run/netns`: when the descriptor closes and the last process inside exits the
//! kernel deletes the namespace and its interfaces, so nothing outlives the emulator.

use super::{ffi, named};
use rustix::thread::{move_into_link_name_space, LinkNameSpaceType};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::process::Command;

pub struct NetNs {
    fd: OwnedFd,
}

fn setns(fd: BorrowedFd<'_>) -> io::Result<()> {
    // Affects only the calling thread.
    move_into_link_name_space(fd, Some(LinkNameSpaceType::Network)).map_err(|e| named(e, "setns"))
}

impl NetNs {
    /// Creates a namespace and runs `setup` inside it (on a helper thread that ends with
    /// it). Descriptors `setup` opens (sockets, TUN devices) stay bound to the namespace.
    pub fn create_with<T: Send>(
        setup: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<(NetNs, T)> {
        std::thread::scope(|s| {
            s.spawn(|| {
                // Moves only this thread into the new namespace.
                ffi::unshare_net()
                    .map_err(|e| named(e, "unshare(CLONE_NEWNET)"))
                    .map_err(|e| {
                        io::Error::new(e.kind(), format!("{e} (network namespaces need root)"))
                    })?;
                let fd = rustix::fs::open(
                    "/proc/thread-self/ns/net",
                    rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
                    rustix::fs::Mode::empty(),
                )
                .map_err(|e| named(e, "open /proc/thread-self/ns/net"))?;
                let ns = NetNs { fd };
                let out = setup()?;
                Ok((ns, out))
            })
            .join()
            .map_err(|_| io::Error::other("namespace setup thread panicked"))?
        })
    }

    /// Runs `f` on a new thread inside the namespace and returns its result.
    pub fn run_in<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        let fd = self.fd.as_fd();
        std::thread::scope(|s| {
            s.spawn(move || {
                setns(fd)?;
                Ok(f())
            })
            .join()
            .map_err(|_| io::Error::other("thread inside the namespace panicked"))?
        })
    }

    /// Moves the calling thread into the namespace (for long-lived worker threads).
    pub fn enter(&self) -> io::Result<()> {
        setns(self.fd.as_fd())
    }

    /// Makes `cmd` start inside the namespace.
    pub fn prepare(&self, cmd: &mut Command) {
        ffi::setns_before_exec(cmd, self.fd.as_raw_fd());
    }
}
