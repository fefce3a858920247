//! Interface configuration through the classic `SIOCSIF*` ioctls, in the calling thread's
//! network namespace. No `ip` binary and no netlink library: a handful of ioctls cover a
//! point-to-point address, the MTU, the up flag and a default route.

use super::ffi::{self, IfAddr};
use super::named;
use rustix::net::{AddressFamily, SocketFlags, SocketType};
use std::ffi::CString;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsFd, OwnedFd};

/// A datagram socket used only as an ioctl handle (bound to the namespace it was made in).
fn ctl_socket() -> io::Result<OwnedFd> {
    rustix::net::socket_with(
        AddressFamily::INET,
        SocketType::DGRAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| named(e, "socket(AF_INET)"))
}

/// Gives `name` the address `local` with point-to-point peer `peer` (a /32 each way),
/// sets its MTU and brings it up.
pub fn configure_p2p(name: &str, local: Ipv4Addr, peer: Ipv4Addr, mtu: u32) -> io::Result<()> {
    let s = ctl_socket()?;
    let s = s.as_fd();
    ffi::set_if_addr(s, name, IfAddr::Local, local)
        .map_err(|e| named(e, &format!("{name}: set address")))?;
    ffi::set_if_addr(s, name, IfAddr::Peer, peer)
        .map_err(|e| named(e, &format!("{name}: set peer")))?;
    ffi::set_if_addr(s, name, IfAddr::Netmask, Ipv4Addr::BROADCAST)
        .map_err(|e| named(e, &format!("{name}: set netmask")))?;
    ffi::set_if_mtu(s, name, mtu).map_err(|e| named(e, &format!("{name}: set MTU")))?;
    set_up(name)
}

/// Sets `IFF_UP` (and `IFF_RUNNING`) on `name`.
pub fn set_up(name: &str) -> io::Result<()> {
    let s = ctl_socket()?;
    let flags =
        ffi::if_flags(s.as_fd(), name).map_err(|e| named(e, &format!("{name}: get flags")))?;
    ffi::set_if_flags(s.as_fd(), name, flags | ffi::IFF_UP_RUNNING)
        .map_err(|e| named(e, &format!("{name}: bring up")))
}

/// Routes every IPv4 destination through `dev` (a point-to-point device needs no gateway).
pub fn add_default_route(dev: &str) -> io::Result<()> {
    let s = ctl_socket()?;
    let dev_c = CString::new(dev).map_err(|_| io::Error::other("NUL in interface name"))?;
    ffi::add_default_route(s.as_fd(), &dev_c)
        .map_err(|e| named(e, &format!("default route via {dev}")))
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

/// The interface index of `name` (`SIOCGIFINDEX`, as `if_nametoindex` does), in the
/// calling thread's network namespace.
pub fn if_index(name: &str) -> io::Result<u32> {
    let s = ctl_socket()?;
    rustix::net::netdevice::name_to_index(&s, name)
        .map_err(|e| named(e, &format!("if_nametoindex({name})")))
}
