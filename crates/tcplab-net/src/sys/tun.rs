//! TUN devices: a network interface whose packets a process reads and writes as whole
//! IP datagrams on a file descriptor.

use super::cvt;
use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// An open, non-persistent TUN device: it disappears when the descriptor closes, so a
/// crashed emulator leaves nothing behind.
pub struct Tun {
    fd: OwnedFd,
    name: String,
}

impl Tun {
    /// Creates a TUN device (`IFF_TUN | IFF_NO_PI`: raw IP packets, no extra header) in
    /// the calling thread's network namespace. `pattern` may hold `%d` for the kernel to
    /// pick a free number.
    pub fn create(pattern: &str) -> io::Result<Tun> {
        if pattern.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name {pattern:?} is longer than 15 bytes"),
            ));
        }
        let path = c"/dev/net/tun";
        // SAFETY: `path` is NUL-terminated; the descriptor is owned below.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        let fd = cvt(fd, "open /dev/net/tun").map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{e} (the emulator needs the tun module and root or CAP_NET_ADMIN)"),
            )
        })?;
        // SAFETY: `fd` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: an all-zero ifreq is a valid value.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        for (d, s) in ifr.ifr_name.iter_mut().zip(pattern.bytes()) {
            *d = s as libc::c_char;
        }
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes the ifreq we pass.
        cvt(
            unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut ifr) },
            "TUNSETIFF",
        )?;
        // SAFETY: the kernel NUL-terminates ifr_name.
        let name = unsafe { CStr::from_ptr(ifr.ifr_name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        set_nonblocking(fd.as_raw_fd())?;
        Ok(Tun { fd, name })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: reads at most buf.len() bytes into `buf`.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock => Ok(None),
                io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Injects one packet into the kernel as if it arrived on this interface.
    pub fn send(&self, pkt: &[u8]) -> io::Result<()> {
        // SAFETY: writes pkt.len() bytes from `pkt`.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl AsRawFd for Tun {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: F_GETFL/F_SETFL on a descriptor we own.
    unsafe {
        let fl = cvt(libc::fcntl(fd, libc::F_GETFL), "fcntl(F_GETFL)")?;
        cvt(
            libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK),
            "fcntl(F_SETFL)",
        )?;
    }
    Ok(())
}
