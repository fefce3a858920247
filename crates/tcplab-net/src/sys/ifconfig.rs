//! Interface configuration through the classic `SIOCSIF*` ioctls, in the calling thread's
//! network namespace. No `ip` binary and no netlink library: a handful of ioctls cover a
//! point-to-point address, the MTU, the up flag and a default route.

use super::cvt;
use std::ffi::CString;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A datagram socket used only as an ioctl handle (bound to the namespace it was made in).
fn ctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain syscall; the descriptor is owned below.
    let fd = cvt(
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) },
        "socket(AF_INET)",
    )?;
    // SAFETY: fresh descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn ifreq(name: &str) -> libc::ifreq {
    // SAFETY: an all-zero ifreq is valid.
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

fn sockaddr_in(a: Ipv4Addr) -> libc::sockaddr {
    let sin = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr {
            s_addr: u32::from(a).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: sockaddr_in and sockaddr have the same size; the kernel reads it as
    // sockaddr_in because sa_family is AF_INET.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(sin) }
}

fn ioctl(sock: &OwnedFd, req: libc::Ioctl, r: &mut libc::ifreq, what: &str) -> io::Result<()> {
    // SAFETY: every request used here reads or writes one ifreq.
    cvt(
        unsafe { libc::ioctl(sock.as_raw_fd(), req, r as *mut libc::ifreq) },
        what,
    )?;
    Ok(())
}

/// Gives `name` the address `local` with point-to-point peer `peer` (a /32 each way),
/// sets its MTU and brings it up.
pub fn configure_p2p(name: &str, local: Ipv4Addr, peer: Ipv4Addr, mtu: u32) -> io::Result<()> {
    let s = ctl_socket()?;
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_addr = sockaddr_in(local);
    ioctl(
        &s,
        libc::SIOCSIFADDR,
        &mut r,
        &format!("{name}: set address"),
    )?;
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_dstaddr = sockaddr_in(peer);
    ioctl(
        &s,
        libc::SIOCSIFDSTADDR,
        &mut r,
        &format!("{name}: set peer"),
    )?;
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_netmask = sockaddr_in(Ipv4Addr::BROADCAST);
    ioctl(
        &s,
        libc::SIOCSIFNETMASK,
        &mut r,
        &format!("{name}: set netmask"),
    )?;
    let mut r = ifreq(name);
    r.ifr_ifru.ifru_mtu = mtu as libc::c_int;
    ioctl(&s, libc::SIOCSIFMTU, &mut r, &format!("{name}: set MTU"))?;
    set_up(name)
}

/// Sets `IFF_UP` (and `IFF_RUNNING`) on `name`.
pub fn set_up(name: &str) -> io::Result<()> {
    let s = ctl_socket()?;
    let mut r = ifreq(name);
    ioctl(
        &s,
        libc::SIOCGIFFLAGS,
        &mut r,
        &format!("{name}: get flags"),
    )?;
    // SAFETY: SIOCGIFFLAGS filled the flags member.
    let flags = unsafe { r.ifr_ifru.ifru_flags };
    r.ifr_ifru.ifru_flags = flags | (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    ioctl(&s, libc::SIOCSIFFLAGS, &mut r, &format!("{name}: bring up"))
}

/// Routes every IPv4 destination through `dev` (a point-to-point device needs no gateway).
pub fn add_default_route(dev: &str) -> io::Result<()> {
    let s = ctl_socket()?;
    let dev_c = CString::new(dev).map_err(|_| io::Error::other("NUL in interface name"))?;
    // SAFETY: an all-zero rtentry is valid.
    let mut rt: libc::rtentry = unsafe { std::mem::zeroed() };
    rt.rt_dst = sockaddr_in(Ipv4Addr::UNSPECIFIED);
    rt.rt_genmask = sockaddr_in(Ipv4Addr::UNSPECIFIED);
    rt.rt_flags = libc::RTF_UP;
    rt.rt_dev = dev_c.as_ptr() as *mut libc::c_char;
    // SAFETY: SIOCADDRT reads the rtentry; `dev_c` outlives the call.
    cvt(
        unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCADDRT, &mut rt) },
        &format!("default route via {dev}"),
    )?;
    Ok(())
}

/// Turns IPv6 off on `name` so the kernel sends no router or neighbour solicitations
/// through the emulated link (they would take link capacity). A kernel without IPv6 is
/// fine.
pub fn disable_ipv6(name: &str) -> io::Result<()> {
    let p = format!("/proc/sys/net/ipv6/conf/{name}/disable_ipv6");
    match std::fs::write(&p, "1") {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io::Error::new(e.kind(), format!("{p}: {e}"))),
    }
}

/// Sets `net.ipv4.tcp_ecn` of the calling thread's network namespace (a per-namespace
/// sysctl: the host's is untouched).
pub fn set_tcp_ecn(value: u8) -> io::Result<()> {
    let p = "/proc/sys/net/ipv4/tcp_ecn";
    std::fs::write(p, value.to_string()).map_err(|e| io::Error::new(e.kind(), format!("{p}: {e}")))
}

pub fn if_index(name: &str) -> io::Result<u32> {
    let c = CString::new(name).map_err(|_| io::Error::other("NUL in interface name"))?;
    // SAFETY: `c` is NUL-terminated.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("if_nametoindex({name}): {e}"),
        ));
    }
    Ok(i)
}
