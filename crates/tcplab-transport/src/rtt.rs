//! Retransmission timer computation (RFC 6298).

use tcplab_core::Dur;

/// SRTT/RTTVAR estimator and RTO with exponential backoff, per RFC 6298.
///
/// 80 bytes: a sender reads and updates it on every ACK (and the RTO bounds on every
/// send), and with a thousand flows each of its cache lines is a miss (the time of the
/// last sample, never read, is not kept). SRTT and the
/// latest sample exist from the first sample on, so a flag beside the backoff count says
/// so, not two `Option<Dur>` (16 bytes each): the same values, 16 bytes fewer. The
/// minimum stays an `Option` (read several times per ACK, where a flag test costs more).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Valid once `sampled` (as is `latest`).
    srtt: Dur,
    rttvar: Dur,
    min_rtt: Option<Dur>,
    latest: Dur,
    initial_rto: Dur,
    min_rto: Dur,
    max_rto: Dur,
    granularity: Dur,
    /// Number of consecutive backoffs (doublings) applied since the last valid sample.
    backoff: u32,
    /// A sample has been taken: `srtt` and `latest` hold values.
    sampled: bool,
}

impl RttEstimator {
    /// RFC 6298 defaults: initial RTO 1 s, minimum 1 s, maximum 60 s (RFC allows ≥ 60 s).
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> RttEstimator {
        RttEstimator {
            srtt: Dur::ZERO,
            rttvar: Dur::ZERO,
            min_rtt: None,
            latest: Dur::ZERO,
            initial_rto,
            min_rto,
            max_rto,
            granularity,
            backoff: 0,
            sampled: false,
        }
    }

    /// Feeds a valid (Karn-filtered) RTT measurement.
    pub fn on_sample(&mut self, r: Dur) {
        self.latest = r;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        if !self.sampled {
            // (2.2) SRTT <- R, RTTVAR <- R/2
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'
            let srtt = self.srtt;
            let diff = if srtt > r { srtt - r } else { r - srtt };
            self.rttvar = Dur((3 * self.rttvar.0 + diff.0) / 4);
            self.srtt = Dur((7 * srtt.0 + r.0) / 8);
        }
        self.sampled = true;
        // A new sample after backoff recomputes the RTO from scratch (Karn / RFC 6298 5.7).
        self.backoff = 0;
    }

    /// RFC 6298 section 5.7: after a timeout during the handshake, data starts with this
    /// RTO unless an RTT sample has been taken.
    pub fn reinit_without_sample(&mut self, rto: Dur) {
        if !self.sampled {
            self.initial_rto = self.initial_rto.max(rto);
            self.backoff = 0;
        }
    }

    /// (5.5) Doubles the RTO after a timeout, up to the maximum.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(32);
    }

    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }

    /// The RTO without backoff: SRTT + max(G, 4·RTTVAR), bounded below by the minimum.
    pub fn base_rto(&self) -> Dur {
        if !self.sampled {
            return self.initial_rto;
        }
        let v = (self.rttvar * 4).max(self.granularity);
        (self.srtt + v).max(self.min_rto).min(self.max_rto)
    }

    /// The current RTO including backoff, capped at the maximum.
    pub fn rto(&self) -> Dur {
        let base = self.base_rto().0 as u128;
        let v = base << self.backoff;
        Dur(v.min(self.max_rto.0 as u128) as u64).max(self.base_rto().min(self.max_rto))
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.sampled.then_some(self.srtt)
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }
    pub fn latest(&self) -> Option<Dur> {
        self.sampled.then_some(self.latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            Dur::from_secs(1),
            Dur::from_secs(1),
            Dur::from_secs(60),
            Dur::from_millis(1),
        )
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), Dur::from_secs(1));
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(
            Dur::from_secs(1),
            Dur::ZERO,
            Dur::from_secs(60),
            Dur::from_millis(1),
        );
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rttvar(), Dur::from_millis(50));
        // RTO = 100 + 4*50 = 300 ms
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.on_sample(Dur::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Dur(62_500_000));
        assert_eq!(e.srtt(), Some(Dur(112_500_000)));
        assert_eq!(e.rto(), Dur(362_500_000));
    }

    #[test]
    fn minimum_rto_and_granularity() {
        let mut e = est();
        e.on_sample(Dur::from_millis(10));
        assert_eq!(e.rto(), Dur::from_secs(1), "min RTO of 1 s applies");
        let mut g = RttEstimator::new(
            Dur::from_secs(1),
            Dur::ZERO,
            Dur::from_secs(60),
            Dur::from_millis(5),
        );
        for _ in 0..50 {
            g.on_sample(Dur::from_millis(10));
        }
        // RTTVAR decays towards 0, so the clock granularity term dominates.
        assert_eq!(g.rto(), Dur::from_millis(15));
    }

    #[test]
    fn exponential_backoff_capped_and_reset_by_sample() {
        let mut e = est();
        let mut seen = vec![];
        for _ in 0..8 {
            e.back_off();
            seen.push(e.rto());
        }
        // Compared as integer durations: `as_secs_f64` of 60 s is 60.00000000000001.
        let want: Vec<Dur> = [2, 4, 8, 16, 32, 60, 60, 60]
            .into_iter()
            .map(Dur::from_secs)
            .collect();
        assert_eq!(seen, want);
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_secs(1));
    }
}
