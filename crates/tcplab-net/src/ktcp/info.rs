//! `TCP_INFO` and the namespace's TCP counters: what the kernel knows about a connection.

use crate::sys::cvt;
use std::io;
use std::os::fd::RawFd;

/// `struct tcp_info` of `linux/tcp.h` up to `tcpi_total_rto_time` (Linux 6.7). An older
/// kernel copies fewer bytes and the rest stays zero.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub flags: u8,
    /// µs
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, µs.
    pub rtt: u32,
    pub rttvar: u32,
    /// Segments.
    pub snd_ssthresh: u32,
    /// Segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    /// Bytes per second.
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    /// µs
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    /// Bytes per second.
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
    pub rcv_wnd: u32,
    pub rehash: u32,
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    pub total_rto_time: u32,
}

impl TcpInfo {
    pub fn read(fd: RawFd) -> io::Result<TcpInfo> {
        let mut ti = TcpInfo::default();
        let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
        // SAFETY: the kernel writes at most `len` bytes into `ti`.
        cvt(
            unsafe {
                libc::getsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_INFO,
                    (&mut ti as *mut TcpInfo).cast(),
                    &mut len,
                )
            },
            "getsockopt(TCP_INFO)",
        )?;
        Ok(ti)
    }

    /// Congestion window in bytes.
    pub fn cwnd_bytes(&self) -> u64 {
        self.snd_cwnd as u64 * self.snd_mss as u64
    }

    /// Packets in flight (Linux's `tcp_packets_in_flight`) times the MSS.
    pub fn in_flight_bytes(&self) -> u64 {
        let pkts = (self.unacked + self.retrans).saturating_sub(self.sacked + self.lost);
        pkts as u64 * self.snd_mss as u64
    }

    /// Linux's congestion-avoidance state machine (`TCP_CA_*`).
    pub fn ca_state_name(&self) -> &'static str {
        match self.ca_state {
            0 => "open",
            1 => "disorder",
            2 => "cwr",
            3 => "recovery",
            4 => "loss",
            _ => "unknown",
        }
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
pub fn set_congestion(fd: RawFd, cc: &str) -> io::Result<()> {
    // SAFETY: the kernel reads cc.len() bytes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr().cast(),
            cc.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        let e = io::Error::last_os_error();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_linux_uapi() {
        // Offsets from linux/tcp.h: tcpi_rtt at 68, pacing_rate at 104, delivery_rate at
        // 160, bytes_retrans at 208, total_rto at 240; 248 bytes in all.
        let t = TcpInfo::default();
        let base = &t as *const TcpInfo as usize;
        assert_eq!(&t.rtt as *const u32 as usize - base, 68);
        assert_eq!(&t.pacing_rate as *const u64 as usize - base, 104);
        assert_eq!(&t.delivery_rate as *const u64 as usize - base, 160);
        assert_eq!(&t.bytes_retrans as *const u64 as usize - base, 208);
        assert_eq!(&t.total_rto as *const u16 as usize - base, 240);
        assert_eq!(std::mem::size_of::<TcpInfo>(), 248);
    }
}
