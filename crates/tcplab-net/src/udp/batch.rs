//! Batched datagram I/O: `recvmmsg` and `sendmmsg` move up to [`BATCH`] datagrams per
//! system call, which is where a user-space transport spends its time at high rates.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::RawFd;

/// Datagrams per system call.
pub const BATCH: usize = 64;

fn to_sockaddr(a: SocketAddr) -> io::Result<libc::sockaddr_in> {
    match a {
        SocketAddr::V4(v4) => Ok(libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: v4.port().to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(*v4.ip()).to_be(),
            },
            sin_zero: [0; 8],
        }),
        SocketAddr::V6(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the UDP driver speaks IPv4",
        )),
    }
}

fn from_sockaddr(s: &libc::sockaddr_in) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(
        Ipv4Addr::from(u32::from_be(s.sin_addr.s_addr)),
        u16::from_be(s.sin_port),
    ))
}

/// Control-message space per datagram (one `SO_TIMESTAMPNS` timespec and slack).
const CMSG_SPACE: usize = 64;

/// Buffers for one `recvmmsg` call.
pub struct RecvBatch {
    bufs: Vec<u8>,
    size: usize,
    addrs: Vec<libc::sockaddr_in>,
    lens: Vec<usize>,
    /// Control messages, 8-byte aligned.
    cmsgs: Vec<u64>,
    /// The kernel's receive time of each datagram (`CLOCK_REALTIME` ns), when stamped.
    stamps: Vec<Option<u64>>,
    n: usize,
}

impl RecvBatch {
    /// `size`: the largest datagram accepted whole (longer ones arrive truncated and fail
    /// to decode).
    pub fn new(size: usize) -> RecvBatch {
        RecvBatch {
            bufs: vec![0; size * BATCH],
            size,
            // SAFETY: an all-zero sockaddr_in is valid.
            addrs: vec![unsafe { std::mem::zeroed() }; BATCH],
            lens: vec![0; BATCH],
            cmsgs: vec![0; BATCH * CMSG_SPACE / 8],
            stamps: vec![None; BATCH],
            n: 0,
        }
    }

    /// Receives what is waiting (up to `BATCH`); `Ok(0)` when nothing is.
    pub fn recv(&mut self, fd: RawFd) -> io::Result<usize> {
        let mut iov: [libc::iovec; BATCH] = std::array::from_fn(|i| libc::iovec {
            iov_base: self.bufs[i * self.size..].as_mut_ptr().cast(),
            iov_len: self.size,
        });
        // SAFETY: zeroed mmsghdrs are valid; the pointers set below outlive the call.
        let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        for (i, m) in msgs.iter_mut().enumerate() {
            m.msg_hdr.msg_iov = &mut iov[i];
            m.msg_hdr.msg_iovlen = 1;
            m.msg_hdr.msg_name = (&mut self.addrs[i] as *mut libc::sockaddr_in).cast();
            m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            m.msg_hdr.msg_control = self.cmsgs[i * CMSG_SPACE / 8..].as_mut_ptr().cast();
            m.msg_hdr.msg_controllen = CMSG_SPACE;
        }
        // SAFETY: `msgs` describes BATCH valid buffers and address slots.
        let r = unsafe {
            libc::recvmmsg(
                fd,
                msgs.as_mut_ptr(),
                BATCH as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            self.n = 0;
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        self.n = r as usize;
        for (i, m) in msgs.iter().take(self.n).enumerate() {
            self.lens[i] = (m.msg_len as usize).min(self.size);
            self.stamps[i] = None;
            // SAFETY: walking the control buffer the kernel filled, with the libc macros.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&m.msg_hdr);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPNS
                    {
                        let ts: libc::timespec =
                            std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                        self.stamps[i] = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                    }
                    c = libc::CMSG_NXTHDR(&m.msg_hdr, c);
                }
            }
        }
        Ok(self.n)
    }

    /// The kernel's receive timestamp of datagram `i` (`CLOCK_REALTIME` ns), if stamped.
    pub fn stamp(&self, i: usize) -> Option<u64> {
        self.stamps[i]
    }

    /// Datagram `i` of the last call: sender and bytes.
    pub fn get(&self, i: usize) -> (SocketAddr, &[u8]) {
        let off = i * self.size;
        (
            from_sockaddr(&self.addrs[i]),
            &self.bufs[off..off + self.lens[i]],
        )
    }
}

/// Datagrams queued for one destination, sent with `sendmmsg`.
pub struct SendBatch {
    bufs: Vec<u8>,
    size: usize,
    lens: Vec<usize>,
    /// Datagrams queued, and how many of them are already sent (after a partial send).
    n: usize,
    sent: usize,
    dest: libc::sockaddr_in,
    dest_addr: SocketAddr,
}

impl SendBatch {
    pub fn new(size: usize, dest: SocketAddr) -> io::Result<SendBatch> {
        Ok(SendBatch {
            bufs: vec![0; size * BATCH],
            size,
            lens: vec![0; BATCH],
            n: 0,
            sent: 0,
            dest: to_sockaddr(dest)?,
            dest_addr: dest,
        })
    }

    /// Where the queued datagrams go (set only while none is queued).
    pub fn set_dest(&mut self, dest: SocketAddr) -> io::Result<()> {
        debug_assert!(self.is_empty());
        self.dest = to_sockaddr(dest)?;
        self.dest_addr = dest;
        Ok(())
    }

    pub fn dest(&self) -> SocketAddr {
        self.dest_addr
    }

    pub fn is_full(&self) -> bool {
        self.n == BATCH
    }

    pub fn is_empty(&self) -> bool {
        self.n == self.sent
    }

    /// Fills the next slot with `f(buf) -> Some(len)`; false if `f` produced nothing.
    pub fn push_with(&mut self, f: impl FnOnce(&mut [u8]) -> Option<usize>) -> bool {
        debug_assert!(!self.is_full());
        let off = self.n * self.size;
        match f(&mut self.bufs[off..off + self.size]) {
            Some(len) => {
                self.lens[self.n] = len;
                self.n += 1;
                true
            }
            None => false,
        }
    }

    /// Sends what is queued. Returns false when the socket buffer is full (the rest stays
    /// queued for the next call); true once everything left.
    pub fn flush(&mut self, fd: RawFd) -> io::Result<bool> {
        while self.sent < self.n {
            let k = self.n - self.sent;
            let mut iov: [libc::iovec; BATCH] = std::array::from_fn(|j| {
                let i = (self.sent + j).min(BATCH - 1);
                libc::iovec {
                    iov_base: self.bufs[i * self.size..].as_mut_ptr().cast(),
                    iov_len: self.lens[i],
                }
            });
            // SAFETY: zeroed mmsghdrs are valid; pointers set below outlive the call.
            let mut msgs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
            for (j, m) in msgs.iter_mut().take(k).enumerate() {
                m.msg_hdr.msg_iov = &mut iov[j];
                m.msg_hdr.msg_iovlen = 1;
                m.msg_hdr.msg_name = (&mut self.dest as *mut libc::sockaddr_in).cast();
                m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            }
            // SAFETY: `msgs[..k]` describe valid buffers.
            let r = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), k as libc::c_uint, 0) };
            if r < 0 {
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock => Ok(false),
                    io::ErrorKind::Interrupted => continue,
                    // ENOBUFS: the device queue overflowed; the datagrams are lost like
                    // any packet a router drops, and the transport recovers them.
                    _ if e.raw_os_error() == Some(libc::ENOBUFS) => {
                        self.sent = self.n;
                        break;
                    }
                    // The peer's port is closed (an ICMP error came back): not fatal
                    // for a datagram transport; its timers decide.
                    _ if e.raw_os_error() == Some(libc::ECONNREFUSED) => {
                        self.sent += 1;
                        continue;
                    }
                    _ => Err(e),
                };
            }
            self.sent += r as usize;
        }
        self.n = 0;
        self.sent = 0;
        Ok(true)
    }
}
