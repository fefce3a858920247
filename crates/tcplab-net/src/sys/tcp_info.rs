//! `struct tcp_info` of `linux/tcp.h`: what the kernel knows about a TCP connection, as
//! `getsockopt(TCP_INFO)` fills it (`sys::ffi::tcp_info`), and what its fields mean.

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

#[cfg(test)]
mod tests {
    use super::TcpInfo;

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
