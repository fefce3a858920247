//! The crate's only `unsafe` code: the few Linux calls that rustix (the crate's system-call
//! library) has no safe wrapper for, each behind a safe function. The crate root denies
//! `unsafe_code`; this module alone allows it. What is here, and why not rustix 1.1:
//!
//! - `recvmmsg` with each datagram's `SO_TIMESTAMPNS` and `IP_TOS` control messages:
//!   rustix has `sendmmsg` but no `recvmmsg`, and its `recvmsg` decodes only
//!   `SCM_RIGHTS` and `SCM_CREDENTIALS` (other control messages are skipped), so a
//!   kernel receive timestamp or TOS byte cannot be read through it. The UDP driver hands every
//!   datagram to its session at that timestamp, with its ECN field (docs/real-network.md).
//! - `setsockopt(SO_TIMESTAMPNS)` and `getsockopt(TCP_INFO)`: rustix has neither option.
//! - `sched_setscheduler(SCHED_FIFO)`: not in rustix.
//! - The TUN (`TUNSETIFF`) and interface (`SIOCSIF*`, `SIOCADDRT`) ioctls: rustix's
//!   generic `ioctl` is itself `unsafe` (it cannot check an argument's type against the
//!   request number), and it has no typed wrapper for these requests.
//! - `unshare(CLONE_NEWNET)` and `Command::pre_exec`: rustix and std mark them `unsafe`.

use super::tcp_info::TcpInfo;
use rustix::thread::{move_into_link_name_space, LinkNameSpaceType, UnshareFlags};
use std::ffi::CStr;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// A `-1` return as the thread's `errno`.
fn check(ret: libc::c_int) -> io::Result<()> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn sockaddr_in(a: SocketAddrV4) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    }
}

// ---- Datagrams with kernel receive timestamps ----

/// Most datagrams one [`StampedRecv::recv`] call takes.
pub const MAX_BATCH: usize = 64;

/// Control-message space per datagram: one `SO_TIMESTAMPNS` timespec (32 bytes with its
/// header) and one `IP_TOS` byte (24 with its header and padding), and slack.
const CMSG_SPACE: usize = 64;

/// One received datagram: its sender, length and kernel receive time.
#[derive(Clone, Copy, Debug)]
pub struct Datagram {
    pub from: SocketAddr,
    /// Bytes in its buffer slot (at most the slot's size: a longer datagram is cut).
    pub len: usize,
    /// `CLOCK_REALTIME` ns, when the kernel stamped it.
    pub stamp_ns: Option<u64>,
    /// Its IPv4 header's TOS byte (`IP_RECVTOS` on; 0 without it): DSCP and the ECN
    /// field in the two low bits.
    pub tos: u8,
}

/// `recvmmsg` into caller-owned buffer slots, with each datagram's `SO_TIMESTAMPNS`
/// stamp and `IP_TOS` byte. The address and control-message storage is allocated once, here.
pub struct StampedRecv {
    names: Vec<libc::sockaddr_in>,
    /// Control messages, 8-byte aligned.
    cmsgs: Vec<u64>,
    got: Vec<Datagram>,
}

impl StampedRecv {
    /// Room for `slots` datagrams a call (at most [`MAX_BATCH`]).
    pub fn new(slots: usize) -> StampedRecv {
        assert!(slots <= MAX_BATCH, "at most {MAX_BATCH} datagrams a call");
        let unspecified = sockaddr_in(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0));
        StampedRecv {
            names: vec![unspecified; slots],
            cmsgs: vec![0; slots * CMSG_SPACE / 8],
            got: vec![
                Datagram {
                    from: SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)),
                    len: 0,
                    stamp_ns: None,
                    tos: 0,
                };
                slots
            ],
        }
    }

    /// Receives up to one datagram per `size`-byte slot of `bufs` (and per slot given to
    /// [`StampedRecv::new`]) on an IPv4 socket; `wait` false adds `MSG_DONTWAIT`.
    /// Returns how many arrived; [`StampedRecv::get`] describes each.
    pub fn recv(
        &mut self,
        fd: BorrowedFd<'_>,
        bufs: &mut [u8],
        size: usize,
        wait: bool,
    ) -> io::Result<usize> {
        let slots = self.got.len().min(bufs.len() / size.max(1));
        let base = bufs.as_mut_ptr();
        let mut iov: [libc::iovec; MAX_BATCH] = std::array::from_fn(|i| libc::iovec {
            // Slot i (only the first `slots` are handed to the kernel).
            iov_base: base.wrapping_add(i * size).cast(),
            iov_len: size,
        });
        // SAFETY: an all-zero mmsghdr is a valid value (null pointers, zero lengths).
        let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { std::mem::zeroed() };
        for (i, m) in msgs.iter_mut().take(slots).enumerate() {
            m.msg_hdr.msg_iov = &mut iov[i];
            m.msg_hdr.msg_iovlen = 1;
            m.msg_hdr.msg_name = (&mut self.names[i] as *mut libc::sockaddr_in).cast();
            m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            m.msg_hdr.msg_control = self.cmsgs[i * CMSG_SPACE / 8..].as_mut_ptr().cast();
            m.msg_hdr.msg_controllen = CMSG_SPACE;
        }
        let flags = if wait { 0 } else { libc::MSG_DONTWAIT };
        // SAFETY: msgs[..slots] point at `slots` disjoint `size`-byte slots inside `bufs`
        // (slots * size <= bufs.len()), at one sockaddr_in and CMSG_SPACE bytes of control
        // space each, all borrowed mutably for the duration of the call.
        let r = unsafe {
            libc::recvmmsg(
                fd.as_raw_fd(),
                msgs.as_mut_ptr(),
                slots as libc::c_uint,
                flags,
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = r as usize;
        for (i, m) in msgs.iter().take(n).enumerate() {
            let mut stamp_ns = None;
            let mut tos = 0;
            // SAFETY: walks the control buffer the kernel filled for message i, with the
            // libc macros, which stay inside msg_controllen; the timespec is read
            // unaligned from its message's data, the TOS byte (the kernel writes one
            // byte for `IP_RECVTOS`, `ip_cmsg_recv_tos`) from its first data byte.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&m.msg_hdr);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPNS
                    {
                        let ts: libc::timespec =
                            std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                        stamp_ns = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                    } else if (*c).cmsg_level == libc::IPPROTO_IP
                        && (*c).cmsg_type == libc::IP_TOS
                        && (*c).cmsg_len as usize >= libc::CMSG_LEN(1) as usize
                    {
                        tos = *libc::CMSG_DATA(c);
                    }
                    c = libc::CMSG_NXTHDR(&m.msg_hdr, c);
                }
            }
            let a = &self.names[i];
            self.got[i] = Datagram {
                from: SocketAddr::V4(SocketAddrV4::new(
                    Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr)),
                    u16::from_be(a.sin_port),
                )),
                len: (m.msg_len as usize).min(size),
                stamp_ns,
                tos,
            };
        }
        Ok(n)
    }

    /// Datagram `i` of the last call.
    pub fn get(&self, i: usize) -> &Datagram {
        &self.got[i]
    }
}

/// Sets an int-valued socket option.
fn set_int_option(
    fd: BorrowedFd<'_>,
    level: libc::c_int,
    name: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: the kernel reads one c_int from `v`, which outlives the call.
    check(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
}

/// Asks the kernel to stamp each datagram's arrival (`SO_TIMESTAMPNS`).
pub fn enable_rx_timestamps(fd: BorrowedFd<'_>) -> io::Result<()> {
    set_int_option(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)
}

// ---- TCP_INFO ----

/// `getsockopt(TCP_INFO)`: what the kernel knows about a TCP connection. An older kernel
/// fills fewer bytes; the rest stays zero.
pub fn tcp_info(fd: BorrowedFd<'_>) -> io::Result<TcpInfo> {
    let mut ti = TcpInfo::default();
    let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: `TcpInfo` is repr(C), made only of integers (any bytes are a valid value),
    // and the kernel writes at most `len` bytes into it.
    check(unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut ti as *mut TcpInfo).cast(),
            &mut len,
        )
    })?;
    Ok(ti)
}

// ---- Scheduling ----

/// `sched_setscheduler(0, SCHED_FIFO, priority)` for the calling thread.
pub fn set_fifo(priority: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `p` is valid for the call; pid 0 is the calling thread.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) })
}

// ---- TUN and interface ioctls ----

fn ifreq(name: &str) -> libc::ifreq {
    // SAFETY: an all-zero ifreq is a valid value (an empty name, a zero union).
    let mut r: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in r
        .ifr_name
        .iter_mut()
        .zip(name.bytes().take(libc::IFNAMSIZ - 1))
    {
        *d = s as libc::c_char;
    }
    r
}

/// One `ioctl` whose argument is an `ifreq`.
fn ifreq_ioctl(fd: BorrowedFd<'_>, req: libc::Ioctl, r: &mut libc::ifreq) -> io::Result<()> {
    // SAFETY: every request passed here (TUNSETIFF and SIOC[GS]IF*) reads and writes one
    // ifreq, which `r` borrows mutably for the call.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), req, r as *mut libc::ifreq) })
}

/// `TUNSETIFF` with `IFF_TUN | IFF_NO_PI` on an open `/dev/net/tun`: makes it a TUN
/// device named after `pattern` (which may hold `%d`); returns the name the kernel gave.
pub fn tun_set_iff(fd: BorrowedFd<'_>, pattern: &str) -> io::Result<String> {
    let mut r = ifreq(pattern);
    r.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    ifreq_ioctl(fd, libc::TUNSETIFF, &mut r)?;
    // The kernel NUL-terminates the name it chose.
    let name: Vec<u8> = r
        .ifr_name
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    Ok(String::from_utf8_lossy(&name).into_owned())
}

fn sockaddr(a: Ipv4Addr) -> libc::sockaddr {
    let sin = sockaddr_in(SocketAddrV4::new(a, 0));
    // SAFETY: sockaddr_in and sockaddr have the same size and any bytes are valid for
    // either; the kernel reads it as sockaddr_in because sa_family is AF_INET.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(sin) }
}

/// Which address of an interface [`set_if_addr`] sets.
#[derive(Clone, Copy, Debug)]
pub enum IfAddr {
    /// `SIOCSIFADDR`
    Local,
    /// `SIOCSIFDSTADDR`: the point-to-point peer.
    Peer,
    /// `SIOCSIFNETMASK`
    Netmask,
}

/// Sets one IPv4 address of interface `name`; `ctl` is any AF_INET socket of the
/// namespace the interface lives in.
pub fn set_if_addr(ctl: BorrowedFd<'_>, name: &str, which: IfAddr, a: Ipv4Addr) -> io::Result<()> {
    let mut r = ifreq(name);
    let req = match which {
        IfAddr::Local => {
            r.ifr_ifru.ifru_addr = sockaddr(a);
            libc::SIOCSIFADDR
        }
        IfAddr::Peer => {
            r.ifr_ifru.ifru_dstaddr = sockaddr(a);
            libc::SIOCSIFDSTADDR
        }
        IfAddr::Netmask => {
            r.ifr_ifru.ifru_netmask = sockaddr(a);
            libc::SIOCSIFNETMASK
        }
    };
    ifreq_ioctl(ctl, req, &mut r)
}

/// `SIOCSIFMTU`.
pub fn set_if_mtu(ctl: BorrowedFd<'_>, name: &str, mtu: u32) -> io::Result<()> {
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_mtu = mtu as libc::c_int;
    ifreq_ioctl(ctl, libc::SIOCSIFMTU, &mut r)
}

/// `SIOCGIFFLAGS`.
pub fn if_flags(ctl: BorrowedFd<'_>, name: &str) -> io::Result<libc::c_short> {
    let mut r = ifreq(name);
    ifreq_ioctl(ctl, libc::SIOCGIFFLAGS, &mut r)?;
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    Ok(unsafe { r.ifr_ifru.ifru_flags })
}

/// `SIOCSIFFLAGS`.
pub fn set_if_flags(ctl: BorrowedFd<'_>, name: &str, flags: libc::c_short) -> io::Result<()> {
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_flags = flags;
    ifreq_ioctl(ctl, libc::SIOCSIFFLAGS, &mut r)
}

/// `IFF_UP | IFF_RUNNING`.
pub const IFF_UP_RUNNING: libc::c_short = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;

/// `SIOCADDRT`: routes every IPv4 destination through `dev`, no gateway.
pub fn add_default_route(ctl: BorrowedFd<'_>, dev: &CStr) -> io::Result<()> {
    // SAFETY: an all-zero rtentry is a valid value.
    let mut rt: libc::rtentry = unsafe { std::mem::zeroed() };
    rt.rt_dst = sockaddr(Ipv4Addr::UNSPECIFIED);
    rt.rt_genmask = sockaddr(Ipv4Addr::UNSPECIFIED);
    rt.rt_flags = libc::RTF_UP;
    rt.rt_dev = dev.as_ptr() as *mut libc::c_char;
    // SAFETY: SIOCADDRT reads the rtentry and the NUL-terminated name `dev`, both alive
    // for the call.
    check(unsafe { libc::ioctl(ctl.as_raw_fd(), libc::SIOCADDRT, &mut rt) })
}

// ---- Namespaces ----

/// Moves the calling thread (only it) into a new network namespace.
pub fn unshare_net() -> io::Result<()> {
    // SAFETY: rustix marks unshare unsafe for CLONE_FILES (unsharing the file table under
    // live borrowed descriptors); only CLONE_NEWNET is asked here.
    Ok(unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNET) }?)
}

/// Makes `cmd`'s child enter the network namespace `ns` (a descriptor the child
/// inherits open) before it executes.
pub fn setns_before_exec(cmd: &mut Command, ns: RawFd) {
    // SAFETY: the hook runs between fork and exec and only makes the setns system call
    // (async-signal-safe), on a descriptor the child inherited open, so borrowing it by
    // number is sound there.
    unsafe {
        cmd.pre_exec(move || {
            let fd = BorrowedFd::borrow_raw(ns);
            Ok(move_into_link_name_space(
                fd,
                Some(LinkNameSpaceType::Network),
            )?)
        });
    }
}
