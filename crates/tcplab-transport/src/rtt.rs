//! Retransmission timer computation: RFC 6298, or Linux's variant of it.

use tcplab_core::Dur;

/// How the RTO is computed from the RTT samples (`rto_rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoRule {
    /// RFC 6298 section 2: RTO = max(SRTT + max(G, 4·RTTVAR), min_rto).
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c,
    /// include/net/tcp.h): the minimum applies to the variance term, not to the RTO.
    /// `mdev` (about 4·RTTVAR) follows the samples, a decreasing sample's excess error
    /// with gain 1/8 of 1/4; `mdev_max` is the largest `mdev` of the current round
    /// (restarted at `min_rto` when snd_una passes the snd_nxt of the round's start);
    /// the variance term `rttvar` = max(mdev_max, min_rto), rising at once and falling
    /// by a quarter of its excess per round; RTO = SRTT + rttvar, capped at `max_rto`.
    /// The first sample R gives mdev = 2R, rttvar = max(2R, min_rto): RTO = 3R with a
    /// floor. Microsecond arithmetic, as the kernel's; its rounding up to a jiffy is not
    /// modelled (nor is the clock granularity G used).
    Linux,
}

impl RtoRule {
    pub fn parse(s: &str) -> Option<RtoRule> {
        match s {
            "rfc6298" => Some(RtoRule::Rfc6298),
            "linux" => Some(RtoRule::Linux),
            _ => None,
        }
    }
}

/// Saturates a microsecond count to the kernel's `u32` (and at zero).
fn sat_u32(v: i64) -> u32 {
    v.clamp(0, u32::MAX as i64) as u32
}

/// SRTT/RTTVAR estimator and RTO with exponential backoff, per RFC 6298 (or Linux's
/// rule, [`RtoRule::Linux`]).
///
/// 80 bytes: a sender reads and updates it on every ACK (and the RTO bounds on every
/// send), and with a thousand flows each of its cache lines is a miss (the time of the
/// last sample, never read, is not kept). SRTT and the
/// latest sample exist from the first sample on, so a flag beside the backoff count says
/// so, not two `Option<Dur>` (16 bytes each): the same values, 16 bytes fewer. The
/// minimum is `Dur::MAX` until the first sample (not an `Option`, 8 bytes more), and
/// the Linux rule's state is kept as the kernel keeps it (`u32` microseconds and a
/// 32-bit sequence number), so both rules fit in the 80 bytes.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Valid once `sampled` (as is `latest`).
    srtt: Dur,
    /// RFC 6298's RTTVAR; under [`RtoRule::Linux`] the kernel's `rttvar_us` (the whole
    /// variance term, about 4·RTTVAR, at least `min_rto`).
    rttvar: Dur,
    /// `Dur::MAX` before the first sample.
    min_rtt: Dur,
    latest: Dur,
    initial_rto: Dur,
    min_rto: Dur,
    max_rto: Dur,
    granularity: Dur,
    /// [`RtoRule::Linux`]: the kernel's `mdev_us`, `mdev_max_us` and `rtt_seq`.
    mdev_us: u32,
    mdev_max_us: u32,
    rtt_seq: u32,
    /// Number of consecutive backoffs (doublings) applied since the last valid sample
    /// (at most 32).
    backoff: u8,
    /// A sample has been taken: `srtt` and `latest` hold values.
    sampled: bool,
    rule: RtoRule,
}

impl RttEstimator {
    /// RFC 6298 defaults: initial RTO 1 s, minimum 1 s, maximum 60 s (RFC allows ≥ 60 s).
    pub fn new(initial_rto: Dur, min_rto: Dur, max_rto: Dur, granularity: Dur) -> RttEstimator {
        RttEstimator {
            srtt: Dur::ZERO,
            rttvar: Dur::ZERO,
            min_rtt: Dur::MAX,
            latest: Dur::ZERO,
            initial_rto,
            min_rto,
            max_rto,
            granularity,
            mdev_us: 0,
            mdev_max_us: 0,
            rtt_seq: 0,
            backoff: 0,
            sampled: false,
            rule: RtoRule::Rfc6298,
        }
    }

    /// The same estimator with the RTO computed by `rule`.
    pub fn with_rule(mut self, rule: RtoRule) -> RttEstimator {
        self.rule = rule;
        self
    }

    pub fn rule(&self) -> RtoRule {
        self.rule
    }

    /// Feeds a valid (Karn-filtered) RTT measurement taken on an ACK that moved the
    /// cumulative point to `snd_una`, with `snd_nxt` the highest sequence sent so far.
    /// Only [`RtoRule::Linux`] reads the two (to end its per-round maximum); a sender
    /// without sequence numbers passes zeros and must keep RFC 6298.
    pub fn on_sample(&mut self, r: Dur, snd_una: u64, snd_nxt: u64) {
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        match self.rule {
            RtoRule::Rfc6298 => self.rfc6298_update(r),
            RtoRule::Linux => self.linux_update(r, snd_una as u32, snd_nxt as u32),
        }
        self.sampled = true;
        // A new sample after backoff recomputes the RTO from scratch (Karn / RFC 6298 5.7).
        self.backoff = 0;
    }

    /// Linux's `tcp_ack_update_rtt`: the estimator takes `seq_rtt` (the oldest segment the
    /// ACK newly delivered), the minimum `ca_rtt` (the newest: `tcp_update_rtt_min`).
    pub fn on_linux_sample(&mut self, seq_rtt: Dur, ca_rtt: Dur, snd_una: u64, snd_nxt: u64) {
        self.on_sample(seq_rtt, snd_una, snd_nxt);
        self.latest = ca_rtt;
        self.min_rtt = self.min_rtt.min(ca_rtt);
    }

    fn rfc6298_update(&mut self, r: Dur) {
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
    }

    /// `tcp_rtt_estimator` (net/ipv4/tcp_input.c), in microseconds as there; sequence
    /// numbers compared modulo 2^32 as its `after()`.
    fn linux_update(&mut self, r: Dur, snd_una: u32, snd_nxt: u32) {
        let rto_min_us = u32::try_from(self.min_rto.0 / 1000).unwrap_or(u32::MAX);
        let m = (r.0 / 1000) as i64; // mrtt_us
        if !self.sampled {
            // "make sure rto = 3*rtt"
            self.mdev_us = sat_u32(2 * m);
            self.set_rttvar_us(self.mdev_us.max(rto_min_us));
            self.mdev_max_us = self.rttvar_us();
            self.rtt_seq = snd_nxt;
            self.srtt = r;
            return;
        }
        let mut err = m - (self.srtt.0 / 1000) as i64;
        if err < 0 {
            // A decreasing RTT: the excess error counts 1/8 (Eifel-like, see the kernel).
            err = -err - (self.mdev_us >> 2) as i64;
            if err > 0 {
                err >>= 3;
            }
        } else {
            err -= (self.mdev_us >> 2) as i64;
        }
        self.mdev_us = sat_u32(self.mdev_us as i64 + err); // mdev = 3/4 mdev + 1/4 new
        if self.mdev_us > self.mdev_max_us {
            self.mdev_max_us = self.mdev_us;
            if self.mdev_max_us > self.rttvar_us() {
                self.set_rttvar_us(self.mdev_max_us);
            }
        }
        if (snd_una.wrapping_sub(self.rtt_seq) as i32) > 0 {
            // A round has ended: rttvar decays towards its maximum, which restarts.
            let v = self.rttvar_us();
            if self.mdev_max_us < v {
                self.set_rttvar_us(v - ((v - self.mdev_max_us) >> 2));
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max_us = rto_min_us;
        }
        self.srtt = Dur((7 * self.srtt.0 + r.0) / 8);
    }

    fn rttvar_us(&self) -> u32 {
        (self.rttvar.0 / 1000) as u32
    }

    fn set_rttvar_us(&mut self, us: u32) {
        self.rttvar = Dur::from_micros(us as u64);
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
        self.backoff as u32
    }

    /// The RTO without backoff: SRTT + max(G, 4·RTTVAR), bounded below by the minimum
    /// (RFC 6298); under [`RtoRule::Linux`] SRTT + rttvar (`__tcp_set_rto`), whose
    /// rttvar is at least the minimum. Both capped at the maximum.
    pub fn base_rto(&self) -> Dur {
        if !self.sampled {
            return self.initial_rto;
        }
        match self.rule {
            RtoRule::Rfc6298 => {
                let v = (self.rttvar * 4).max(self.granularity);
                (self.srtt + v).max(self.min_rto).min(self.max_rto)
            }
            RtoRule::Linux => (self.srtt + self.rttvar).min(self.max_rto),
        }
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
        (self.min_rtt != Dur::MAX).then_some(self.min_rtt)
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
        e.on_sample(Dur::from_millis(100), 0, 0);
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rttvar(), Dur::from_millis(50));
        // RTO = 100 + 4*50 = 300 ms
        assert_eq!(e.rto(), Dur::from_millis(300));
        e.on_sample(Dur::from_millis(200), 0, 0);
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Dur(62_500_000));
        assert_eq!(e.srtt(), Some(Dur(112_500_000)));
        assert_eq!(e.rto(), Dur(362_500_000));
    }

    #[test]
    fn minimum_rto_and_granularity() {
        let mut e = est();
        e.on_sample(Dur::from_millis(10), 0, 0);
        assert_eq!(e.rto(), Dur::from_secs(1), "min RTO of 1 s applies");
        let mut g = RttEstimator::new(
            Dur::from_secs(1),
            Dur::ZERO,
            Dur::from_secs(60),
            Dur::from_millis(5),
        );
        for _ in 0..50 {
            g.on_sample(Dur::from_millis(10), 0, 0);
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
        e.on_sample(Dur::from_millis(100), 0, 0);
        assert_eq!(e.rto(), Dur::from_secs(1));
    }

    fn linux(min_rto: Dur) -> RttEstimator {
        RttEstimator::new(
            Dur::from_secs(1),
            min_rto,
            Dur::from_secs(120),
            Dur::from_millis(1),
        )
        .with_rule(RtoRule::Linux)
    }

    /// `rounds` rounds of `per_round` samples of `r`, the window 10 000 bytes: snd_una
    /// moves 1000 bytes a sample and snd_nxt stays a window ahead.
    fn feed(e: &mut RttEstimator, r: Dur, rounds: u64, per_round: u64, una: &mut u64) {
        for _ in 0..rounds * per_round {
            *una += 1000;
            e.on_sample(r, *una, *una + 10_000);
        }
    }

    #[test]
    fn linux_first_sample_gives_three_rtts_with_a_floor() {
        let mut e = linux(Dur::from_millis(200));
        e.on_sample(Dur::from_millis(100), 0, 10_000);
        // mdev = 2R = 200 ms, rttvar = max(200 ms, 200 ms): RTO = 3R.
        assert_eq!(e.rto(), Dur::from_millis(300));
        let mut e = linux(Dur::from_millis(200));
        e.on_sample(Dur::from_millis(50), 0, 10_000);
        // mdev = 100 ms, under the floor: RTO = 50 + 200 ms.
        assert_eq!(e.rto(), Dur::from_millis(250));
        // RFC 6298 gives the same 3R from its first sample (R + 4·R/2), floored at min_rto.
        let mut f = RttEstimator::new(
            Dur::from_secs(1),
            Dur::from_millis(200),
            Dur::from_secs(60),
            Dur::from_millis(1),
        );
        f.on_sample(Dur::from_millis(50), 0, 0);
        assert_eq!(f.rto(), Dur::from_millis(200));
    }

    /// The case of the TACK paper's 200 ms path: under RFC 6298 the variance decays to
    /// nothing and the RTO sits at the 200 ms floor, barely above the RTT; Linux keeps
    /// the floor on the variance term, SRTT + 200 ms.
    #[test]
    fn steady_rtt_keeps_min_rto_above_srtt_under_linux_only() {
        let r = Dur::from_millis(200);
        let mut una = 0;
        let mut e = linux(Dur::from_millis(200));
        feed(&mut e, r, 50, 10, &mut una);
        assert_eq!(e.srtt(), Some(r));
        assert!(e.rto() >= r + Dur::from_millis(200), "{:?}", e.rto());
        // rttvar stops 3 µs above the floor, where a quarter of the excess rounds to 0
        // (as in the kernel).
        assert!(e.rto() <= Dur::from_micros(400_010), "{:?}", e.rto());
        let mut f = RttEstimator::new(
            Dur::from_secs(1),
            Dur::from_millis(200),
            Dur::from_secs(60),
            Dur::from_millis(1),
        );
        for _ in 0..500 {
            f.on_sample(r, 0, 0);
        }
        // SRTT + max(G, 4·RTTVAR) = 200 ms + 1 ms (G): within 1 % of SRTT.
        assert_eq!(f.rto(), Dur::from_millis(201));
    }

    /// A jump in the RTT raises rttvar at once (mdev_max above it); afterwards it falls
    /// by a quarter of its excess over the round's maximum each round, not per sample.
    #[test]
    fn linux_rttvar_rises_at_once_and_decays_per_round() {
        let mut una = 0;
        let mut e = linux(Dur::from_millis(10));
        feed(&mut e, Dur::from_millis(100), 40, 10, &mut una);
        let steady = e.rttvar();
        assert!(
            steady <= Dur::from_micros(10_010),
            "the floor once mdev has decayed: {steady:?}"
        );
        una += 1000;
        e.on_sample(Dur::from_millis(300), una, una + 10_000);
        // err = 200 ms, mdev = mdev + 200 ms - mdev/4 (mdev ~ 0): about 200 ms.
        let high = e.rttvar();
        assert!(high > Dur::from_millis(190), "{high:?}");
        // The rest of this round: samples at the old RTT leave rttvar where it is.
        for _ in 0..3 {
            una += 1000;
            e.on_sample(Dur::from_millis(100), una, una + 10_000);
            assert!(e.rttvar() >= high - Dur::from_millis(1), "{:?}", e.rttvar());
        }
        // Then it decays, a quarter of the excess a round.
        feed(&mut e, Dur::from_millis(100), 30, 10, &mut una);
        assert!(e.rttvar() < Dur::from_millis(15), "{:?}", e.rttvar());
    }

    /// A sample below SRTT whose error exceeds mdev/4 moves mdev by 1/8 of the excess.
    #[test]
    fn linux_decreasing_sample_has_finer_gain() {
        let mut e = linux(Dur::ZERO);
        e.on_sample(Dur::from_millis(100), 0, 10_000); // mdev = 200 ms
        e.on_sample(Dur::from_millis(20), 0, 10_000);
        // err = 80 ms - 200/4 = 30 ms, >> 3: 3.75 ms; mdev = 203.75 ms.
        assert_eq!(e.rttvar(), Dur::from_micros(203_750));
        let mut g = linux(Dur::ZERO);
        g.on_sample(Dur::from_millis(100), 0, 10_000);
        g.on_sample(Dur::from_millis(180), 0, 10_000);
        // An increase: err = 80 - 50 = 30 ms in full, mdev = 230 ms.
        assert_eq!(g.rttvar(), Dur::from_millis(230));
    }

    #[test]
    fn rule_names_parse() {
        assert_eq!(RtoRule::parse("linux"), Some(RtoRule::Linux));
        assert_eq!(RtoRule::parse("rfc6298"), Some(RtoRule::Rfc6298));
        assert_eq!(RtoRule::parse("bsd"), None);
    }

    #[test]
    fn estimator_stays_80_bytes() {
        assert_eq!(std::mem::size_of::<RttEstimator>(), 80);
    }
}
