//! TUN devices: a network interface whose packets a process reads and writes as whole
//! IP datagrams on a file descriptor.

use super::{ffi, named};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

/// An open, non-persistent TUN device: it disappears when the descriptor closes, so a
/// crashed emulator leaves nothing behind.
pub struct Tun {
    fd: OwnedFd,
    name: String,
}

/// `IFNAMSIZ`: an interface name and its NUL.
const IFNAMSIZ: usize = 16;

impl Tun {
    /// Creates a TUN device (`IFF_TUN | IFF_NO_PI`: raw IP packets, no extra header) in
    /// the calling thread's network namespace. `pattern` may hold `%d` for the kernel to
    /// pick a free number.
    pub fn create(pattern: &str) -> io::Result<Tun> {
        if pattern.len() >= IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name {pattern:?} is longer than 15 bytes"),
            ));
        }
        let fd = rustix::fs::open(
            "/dev/net/tun",
            OFlags::RDWR | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| {
            let e = named(e, "open /dev/net/tun");
            io::Error::new(
                e.kind(),
                format!("{e} (the emulator needs the tun module and root or CAP_NET_ADMIN)"),
            )
        })?;
        let name = ffi::tun_set_iff(fd.as_fd(), pattern).map_err(|e| named(e, "TUNSETIFF"))?;
        set_nonblocking(fd.as_fd())?;
        Ok(Tun { fd, name })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match rustix::io::read(&self.fd, buf) {
            Ok(n) => Ok(Some(n)),
            Err(Errno::AGAIN | Errno::INTR) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Injects one packet into the kernel as if it arrived on this interface.
    pub fn send(&self, pkt: &[u8]) -> io::Result<()> {
        rustix::io::write(&self.fd, pkt)?;
        Ok(())
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// Sets `O_NONBLOCK` on `fd`.
fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let fl = rustix::fs::fcntl_getfl(fd).map_err(|e| named(e, "fcntl(F_GETFL)"))?;
    rustix::fs::fcntl_setfl(fd, fl | OFlags::NONBLOCK).map_err(|e| named(e, "fcntl(F_SETFL)"))
}
