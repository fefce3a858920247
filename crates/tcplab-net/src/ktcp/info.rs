//! `TCP_INFO` and the namespace's TCP counters: what the kernel knows about a connection.

use crate::sys::named;
pub use crate::sys::tcp_info::TcpInfo;
use std::io;
use std::os::fd::AsFd;

impl TcpInfo {
    /// `getsockopt(TCP_INFO)` on a TCP socket.
    pub fn read(fd: impl AsFd) -> io::Result<TcpInfo> {
        crate::sys::ffi::tcp_info(fd.as_fd()).map_err(|e| named(e, "getsockopt(TCP_INFO)"))
    }
}

/// TcpExt counters of the calling thread's network namespace (`/proc/thread-self/net/netstat`).
/// In a namespace that holds one connection they are that connection's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NsCounters {
    pub fast_retrans: u64,
    pub timeouts: u64,
    pub delayed_acks: u64,
}

impl NsCounters {
    pub fn read() -> io::Result<NsCounters> {
        let text = std::fs::read_to_string("/proc/thread-self/net/netstat")?;
        let mut lines = text.lines();
        let mut out = NsCounters::default();
        while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
            if !names.starts_with("TcpExt:") {
                continue;
            }
            for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
                let v: u64 = v.parse().unwrap_or(0);
                match n {
                    "TCPFastRetrans" => out.fast_retrans = v,
                    "TCPTimeouts" => out.timeouts = v,
                    "DelayedACKs" => out.delayed_acks = v,
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    pub fn since(&self, before: &NsCounters) -> NsCounters {
        NsCounters {
            fast_retrans: self.fast_retrans.saturating_sub(before.fast_retrans),
            timeouts: self.timeouts.saturating_sub(before.timeouts),
            delayed_acks: self.delayed_acks.saturating_sub(before.delayed_acks),
        }
    }
}

/// Sets `TCP_CONGESTION` (e.g. "cubic", "bbr", "reno"); names the available ones when
/// the kernel refuses.
pub fn set_congestion(fd: impl AsFd, cc: &str) -> io::Result<()> {
    if let Err(e) = rustix::net::sockopt::set_tcp_congestion(fd, cc) {
        let e = io::Error::from(e);
        let avail = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
            .unwrap_or_default();
        return Err(io::Error::new(
            e.kind(),
            format!(
                "TCP_CONGESTION {cc:?}: {e} (this kernel offers: {})",
                avail.trim()
            ),
        ));
    }
    Ok(())
}
