//! Anonymous network namespaces.
//!
//! A namespace is created by a helper thread (`unshare(CLONE_NEWNET)` moves only that
//! thread) and kept alive by an open descriptor of it, never by a name under
//! `/var/run/netns`: when the descriptor closes and the last process inside exits the
//! kernel deletes the namespace and its interfaces, so nothing outlives the emulator.

use super::cvt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

pub struct NetNs {
    fd: OwnedFd,
}

fn setns(fd: RawFd) -> io::Result<()> {
    // SAFETY: `fd` refers to a network namespace; affects only the calling thread.
    cvt(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }, "setns")?;
    Ok(())
}

impl NetNs {
    /// Creates a namespace and runs `setup` inside it (on a helper thread that ends with
    /// it). Descriptors `setup` opens (sockets, TUN devices) stay bound to the namespace.
    pub fn create_with<T: Send>(
        setup: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<(NetNs, T)> {
        std::thread::scope(|s| {
            s.spawn(|| {
                // SAFETY: moves only this thread into a new network namespace.
                cvt(
                    unsafe { libc::unshare(libc::CLONE_NEWNET) },
                    "unshare(CLONE_NEWNET)",
                )
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("{e} (network namespaces need root)"))
                })?;
                let path = c"/proc/thread-self/ns/net";
                // SAFETY: NUL-terminated path; the descriptor is owned below.
                let fd = cvt(
                    unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) },
                    "open /proc/thread-self/ns/net",
                )?;
                // SAFETY: fresh descriptor.
                let ns = NetNs {
                    fd: unsafe { OwnedFd::from_raw_fd(fd) },
                };
                let out = setup()?;
                Ok((ns, out))
            })
            .join()
            .map_err(|_| io::Error::other("namespace setup thread panicked"))?
        })
    }

    /// Runs `f` on a new thread inside the namespace and returns its result.
    pub fn run_in<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        let fd = self.fd.as_raw_fd();
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
        setns(self.fd.as_raw_fd())
    }

    /// Makes `cmd` start inside the namespace.
    pub fn prepare(&self, cmd: &mut Command) {
        let fd = self.fd.as_raw_fd();
        // SAFETY: setns is async-signal-safe; the closure only makes that one call.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}
