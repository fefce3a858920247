//! RFC 6937 Proportional Rate Reduction: how cwnd evolves during SACK recovery when
//! `recovery_cwnd = "prr"` (Linux and ns-3 default). Instead of RFC 6675's cwnd = ssthresh
//! at once (a silence of about half an RTT, then a burst), the sender sends in
//! proportion to what the receiver reports delivered: ssthresh / RecoverFS of it while
//! pipe > ssthresh, and with slow-start reduction bound (PRR-SSRB) up to ssthresh once
//! pipe has fallen below it. Recovery ends with cwnd = ssthresh.

/// PRR's per-episode state (RFC 6937 section 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prr {
    /// FlightSize (snd.nxt − snd.una) when recovery began.
    recover_fs: u64,
    /// Bytes delivered to the receiver during recovery (cumulatively ACKed or SACKed).
    delivered: u64,
    /// Bytes sent (new data and retransmissions) during recovery.
    out: u64,
}

impl Prr {
    /// Recovery starts with `flight` bytes outstanding.
    pub fn start(&mut self, flight: u64) {
        *self = Prr {
            recover_fs: flight.max(1),
            ..Prr::default()
        };
    }

    /// `bytes` left during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// An ACK in recovery reported `delivered` bytes: the window that lets `sndcnt` more
    /// bytes leave (RFC 6937 section 3, with SSRB), i.e. cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let target =
                (self.delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs as u128);
            (target.min(u64::MAX as u128) as u64).saturating_sub(self.out)
        } else {
            // Slow-start reduction bound: at most one MSS more than was delivered.
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 appendix-style example: 20 segments outstanding, one lost, ssthresh 10.
    /// While pipe > ssthresh the sender sends one segment per two delivered (its first
    /// share goes to the retransmission); once pipe ≤ ssthresh, SSRB lets it grow pipe back
    /// towards ssthresh by at most one segment more than was delivered.
    #[test]
    fn proportional_then_slow_start_bound() {
        let mss = 1000;
        let mut p = Prr::default();
        p.start(20_000);
        // First duplicate ACK (recovery entry): 1 segment delivered, pipe 16 (3 SACKed,
        // the head lost): ceil(1000 · 10000 / 20000) = 500 bytes, less than a segment.
        assert_eq!(p.on_ack(1000, 16_000, 10_000, mss), 16_500);
        // The fast retransmission goes out (outside the window).
        p.on_sent(1000);
        // Next ACK: delivered 2000 → target 1000, all spent on the retransmission.
        assert_eq!(p.on_ack(1000, 16_000, 10_000, mss), 16_000);
        // Third: target 1500 → 500 more bytes of credit, still below a segment; fourth: 2000.
        assert_eq!(p.on_ack(1000, 15_000, 10_000, mss), 15_500);
        assert_eq!(p.on_ack(1000, 14_000, 10_000, mss), 15_000);
        p.on_sent(1000);
        // Proportional: after delivering all 20 segments the sender has sent 10 = ssthresh.
        let mut q = Prr::default();
        q.start(20_000);
        q.on_ack(20_000, 10_001, 10_000, mss);
        assert_eq!(q.on_ack(0, 10_001, 10_000, mss) - 10_001, 10_000);
        // SSRB: pipe far below ssthresh (many losses): at most delivered + 1 MSS more.
        let mut r = Prr::default();
        r.start(20_000);
        assert_eq!(r.on_ack(2000, 2000, 10_000, mss), 2000 + 3000);
        r.on_sent(3000);
        assert_eq!(r.on_ack(1000, 4000, 10_000, mss), 4000 + 2000);
        // ... and never beyond ssthresh.
        assert_eq!(r.on_ack(1000, 9500, 10_000, mss), 10_000);
    }
}
