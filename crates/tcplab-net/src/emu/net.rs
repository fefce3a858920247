//! The emulated network: a namespace whose default route is a TUN device, and a second
//! TUN device on the host; the emulator moves packets between the two (Mahimahi's design).
//!
//! ```text
//!   namespace                 emulator                     host
//!   command ─ tcplab0 ──read──▶ fwd Link ──write──▶ tle<N> ─ servers (host_addr)
//!   (ns_addr) ◀──write── rev Link ◀──read──
//! ```
//! Addresses come from 100.64.0.0/10 (shared address space, RFC 6598): interface index
//! `N` of the host device picks the /30 `100.64.0.0 + 4N`, so concurrent emulators never
//! collide. The host side is `.1`, the namespace side `.2`.

use crate::error::NetError;
use crate::sys::netns::NetNs;
use crate::sys::tun::Tun;
use crate::sys::{ifconfig, is_root};
use std::net::Ipv4Addr;

/// Interface name inside the namespace (the namespace is private, so a fixed name).
pub const NS_IF: &str = "tcplab0";

pub struct EmuNet {
    pub ns: NetNs,
    pub host_addr: Ipv4Addr,
    pub ns_addr: Ipv4Addr,
    pub host_tun: Tun,
    pub ns_tun: Tun,
}

/// Fails with a clear message when the emulator cannot run here.
pub fn check_privileges(what: &'static str) -> Result<(), NetError> {
    if !is_root() {
        return Err(NetError::NotRoot { what });
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err(NetError::NoTun);
    }
    Ok(())
}

fn pair_for(ifindex: u32) -> (Ipv4Addr, Ipv4Addr) {
    let base = u32::from(Ipv4Addr::new(100, 64, 0, 0)) | ((ifindex & 0x000f_ffff) << 2);
    (Ipv4Addr::from(base + 1), Ipv4Addr::from(base + 2))
}

impl EmuNet {
    pub fn create(mtu: u32, tcp_ecn: Option<u8>) -> Result<EmuNet, NetError> {
        check_privileges("the link emulator")?;
        let io = |what: &str| {
            let what = what.to_string();
            move |e| NetError::io(what, e)
        };
        let host_tun = Tun::create("tle%d").map_err(io("creating the host TUN device"))?;
        let name = host_tun.name().to_string();
        let idx = ifconfig::if_index(&name).map_err(io("looking up the host TUN device"))?;
        let (host_addr, ns_addr) = pair_for(idx);
        ifconfig::disable_ipv6(&name).map_err(io("host TUN device"))?;
        ifconfig::configure_p2p(&name, host_addr, ns_addr, mtu)
            .map_err(io("configuring the host TUN device"))?;
        let (ns, ns_tun) = NetNs::create_with(|| {
            ifconfig::set_up("lo")?;
            let t = Tun::create(NS_IF)?;
            ifconfig::disable_ipv6(NS_IF)?;
            ifconfig::configure_p2p(NS_IF, ns_addr, host_addr, mtu)?;
            ifconfig::add_default_route(NS_IF)?;
            if let Some(v) = tcp_ecn {
                ifconfig::set_tcp_ecn(v)?;
            }
            Ok(t)
        })
        .map_err(io("setting up the emulator's network namespace"))?;
        Ok(EmuNet {
            ns,
            host_addr,
            ns_addr,
            host_tun,
            ns_tun,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_pairs_are_distinct_per_interface() {
        assert_eq!(
            pair_for(5),
            (Ipv4Addr::new(100, 64, 0, 21), Ipv4Addr::new(100, 64, 0, 22))
        );
        assert_ne!(pair_for(6).0, pair_for(5).0);
        let (h, n) = pair_for(0xf_ffff);
        assert!(
            h.octets()[0] == 100 && (64..128).contains(&h.octets()[1]),
            "{h}"
        );
        assert_eq!(u32::from(n), u32::from(h) + 1);
    }
}
