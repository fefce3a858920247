//! RFC 6937 Proportional Rate Reduction: how cwnd evolves during SACK recovery when
//! `recovery_cwnd = "prr"` (Linux and ns-3 default). Instead of RFC 6675's cwnd = ssthresh
//! at once (a silence of about half an RTT, then a burst), the sender sends in
//! proportion to what the receiver reports delivered: ssthresh / RecoverFS of it while
//! pipe > ssthresh, and with slow-start reduction bound (PRR-SSRB) up to ssthresh once
//! pipe has fallen below it. Recovery ends with cwnd = ssthresh.
//!
//! `recovery_cwnd = "prr-ns3"` is ns-3's `TcpPrrRecovery` (ns-3.48,
//! `src/internet/model/tcp-prr-recovery.cc`, called from `TcpSocketBase::DupAck` and
//! `ProcessAck`), which differs from RFC 6937 in four ways ([`Prr::on_ack_ns3`]).

/// PRR's per-episode state (RFC 6937 section 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prr {
    /// FlightSize (snd.nxt − snd.una) when recovery began (ns-3: the pipe then, taken
    /// on the episode's first ACK; 0 until then).
    recover_fs: u64,
    /// Bytes delivered to the receiver during recovery (cumulatively ACKed or SACKed).
    delivered: u64,
    /// Bytes sent (new data and retransmissions) during recovery.
    out: u64,
    /// ns-3's `TcpPrrRecovery` (`recovery_cwnd = "prr-ns3"`).
    ns3: bool,
    /// snd_una after the last ACK that cumulatively acknowledged a retransmitted
    /// segment it had not SACKed (ns-3's `m_isRetransDataAcked`, its safe ACK).
    pub retx_acked_at: u64,
}

/// What ns-3's `TcpSocketBase` tells `TcpPrrRecovery::DoRecovery` about an ACK in
/// recovery besides the bytes it delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Ns3Ack {
    /// The ACK SACKed new data (ns-3's duplicate ACK with SACK, `DupAck`), or entered
    /// recovery: `DoRecovery(.., isDupAck = true)`.
    pub dup: bool,
    /// The ACK moved snd_una without ending recovery (`ProcessAck`'s partial ACK):
    /// `DoRecovery(.., isDupAck = false)`, a second call when it also SACKed new data.
    pub partial: bool,
    /// It cumulatively acknowledged a retransmitted segment that was not SACKed
    /// (`m_isRetransDataAcked`, ns-3's stand-in for RFC 6937's safe ACK).
    pub safe: bool,
}

impl Prr {
    /// ns-3's variant (`recovery_cwnd = "prr-ns3"`) or RFC 6937's.
    pub fn new(ns3: bool) -> Prr {
        Prr {
            ns3,
            ..Prr::default()
        }
    }

    /// Recovery starts with `flight` bytes outstanding.
    pub fn start(&mut self, flight: u64) {
        *self = Prr {
            // ns-3 (`TcpPrrRecovery::EnterRecovery`): `m_recoveryFlightSize =
            // tcb->m_bytesInFlight`, the pipe once the head is marked lost, which the
            // episode's first ACK gives.
            recover_fs: if self.ns3 { 0 } else { flight.max(1) },
            ns3: self.ns3,
            retx_acked_at: self.retx_acked_at,
            ..Prr::default()
        };
    }

    /// ns-3's variant is configured.
    pub fn is_ns3(&self) -> bool {
        self.ns3
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

    /// ns-3's `TcpPrrRecovery` on an ACK in recovery (`cwnd`: the window before it):
    /// `DoRecovery` once for a duplicate ACK and once more for a partial ACK, each with
    /// the ACK's `delivered` bytes and the same `pipe` (`tcb->m_bytesInFlight`, taken
    /// before `ProcessAck`). It differs from RFC 6937 (and [`Prr::on_ack`]) in that
    /// - RecoverFS is the pipe at entry, not FlightSize;
    /// - a duplicate ACK counts one segment more delivered while prr_delivered is below
    ///   RecoverFS (`if (isDupAck && m_prrDelivered < m_recoveryFlightSize)
    ///   deliveredBytes += m_segmentSize`), so with ssthresh = pipe/2 a SACK of one
    ///   segment lets one segment out;
    /// - below ssthresh the bound is PRR-CRB, +1 SMSS (SSRB) only on a safe ACK, and
    ///   its `m_prrDelivered - m_prrOut` is unsigned: once more was sent than
    ///   delivered the limit is that negative difference, whatever the ACK delivered;
    /// - the proportional part multiplies prr_delivered by ssthresh in 32 bits
    ///   (`m_prrDelivered * tcb->m_ssThresh * 1.0`), which wraps past 4 GiB.
    ///
    /// Both keep at least one SMSS for the fast retransmission (`prr_out == 0`).
    pub fn on_ack_ns3(
        &mut self,
        cwnd: u64,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        mss: u64,
        ack: Ns3Ack,
    ) -> u64 {
        if self.recover_fs == 0 {
            self.recover_fs = pipe.max(1);
        }
        let mut cwnd = cwnd;
        if ack.dup {
            cwnd = self.ns3_step(cwnd, delivered, pipe, ssthresh, mss, true, ack.safe);
        }
        if ack.partial {
            cwnd = self.ns3_step(cwnd, delivered, pipe, ssthresh, mss, false, ack.safe);
        }
        cwnd
    }

    /// One `TcpPrrRecovery::DoRecovery` (ns-3's 32-bit arithmetic).
    #[allow(clippy::too_many_arguments)]
    fn ns3_step(
        &mut self,
        cwnd: u64,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
        mss: u64,
        dup: bool,
        safe: bool,
    ) -> u64 {
        let mut delivered = delivered as u32;
        let (mss32, fs) = (mss as u32, self.recover_fs as u32);
        if dup && (self.delivered as u32) < fs {
            delivered += mss32;
        }
        if delivered == 0 {
            return cwnd;
        }
        self.delivered += delivered as u64;
        let (prr_delivered, prr_out) = (self.delivered as u32, self.out as u32);
        let (ssthresh, pipe) = (ssthresh as u32, pipe as u32);
        let mut send: i64 = if pipe > ssthresh {
            let product = prr_delivered.wrapping_mul(ssthresh) as f64;
            (product / fs as f64).ceil() as i64 - prr_out as i64
        } else {
            // std::max(m_prrDelivered - m_prrOut, deliveredBytes) in uint32_t, then int.
            let mut limit = prr_delivered.wrapping_sub(prr_out).max(delivered) as i32 as i64;
            if safe {
                limit += mss as i64;
            }
            limit.min((ssthresh - pipe) as i64)
        };
        send = send.max(if prr_out > 0 { 0 } else { mss as i64 });
        (pipe as i64 + send).max(0) as u64
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

    /// ns-3's `TcpPrrRecovery` (ns-3.48): RecoverFS is the pipe at entry, each duplicate
    /// ACK counts one segment more delivered (so a SACK of one segment lets one out while
    /// pipe > ssthresh, where RFC 6937 lets out half of one), PRR-CRB below ssthresh
    /// with SSRB only on a safe ACK, and a negative limit once more was sent than
    /// delivered.
    #[test]
    fn ns3_variant() {
        let mss = 1000;
        let dup = Ns3Ack {
            dup: true,
            ..Ns3Ack::default()
        };
        let mut p = Prr::new(true);
        p.start(20_000);
        // Entry: 3 SACKed + the head lost of 20 → pipe 16, ssthresh 8; delivered 1000
        // counts 2000: ceil(2000 · 8000 / 16000) = 1000, a segment (RFC: half of one).
        assert_eq!(p.on_ack_ns3(20_000, 1000, 16_000, 8000, mss, dup), 17_000);
        assert_eq!(p.recover_fs, 16_000, "RecoverFS = pipe at entry");
        p.on_sent(1000); // the fast retransmission
                         // A SACK of one segment: delivered 4000 → target 2000, one more segment.
        assert_eq!(p.on_ack_ns3(17_000, 1000, 16_000, 8000, mss, dup), 17_000);
        let mut rfc = Prr::new(false);
        rfc.start(20_000);
        assert_eq!(
            rfc.on_ack(1000, 16_000, 8000, mss),
            16_400,
            "RFC 6937: 400 bytes"
        );
        // An ACK that delivers nothing leaves cwnd as it was.
        let none = Ns3Ack::default();
        assert_eq!(p.on_ack_ns3(12_345, 0, 16_000, 8000, mss, none), 12_345);

        // Below ssthresh: CRB, max(prr_delivered − prr_out, delivered), +1 SMSS when safe.
        let mut q = Prr::new(true);
        q.start(20_000);
        let partial = Ns3Ack {
            partial: true,
            ..Ns3Ack::default()
        };
        q.on_ack_ns3(0, 2000, 10_000, 8000, mss, partial);
        q.on_sent(1000);
        // prr_delivered 3000, prr_out 1000: limit 2000 (CRB).
        assert_eq!(q.on_ack_ns3(0, 1000, 5000, 8000, mss, partial), 7000);
        let safe = Ns3Ack {
            partial: true,
            safe: true,
            ..Ns3Ack::default()
        };
        // prr_delivered 4000: limit 3000 + 1 SMSS (SSRB), below ssthresh − pipe = 5000.
        assert_eq!(q.on_ack_ns3(0, 1000, 3000, 8000, mss, safe), 7000);
        // More sent than delivered: the unsigned difference is negative as an int, so
        // nothing more goes out whatever the ACK delivered.
        q.on_sent(10_000);
        assert_eq!(q.on_ack_ns3(0, 1000, 3000, 8000, mss, partial), 3000);

        // The proportional part multiplies in 32 bits: 80 KB · 60 KB wraps past 4 GiB.
        let mut w = Prr::new(true);
        w.start(200_000);
        let cwnd = w.on_ack_ns3(0, 80_000, 120_000, 60_000, mss, partial);
        let wrapped = (80_000u32.wrapping_mul(60_000) as f64 / 120_000.0).ceil() as u64;
        assert_eq!(cwnd, 120_000 + wrapped);
        assert!(wrapped < 40_000, "RFC 6937 would give 40,000");
    }
}
