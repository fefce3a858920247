//! PIE, Proportional Integral controller Enhanced (RFC 8033): a drop probability,
//! updated every `t_update` from the queueing delay's distance to `target` and its
//! trend, drops (or marks) packets at enqueue.
//!
//! The queueing delay is the sojourn of the packet last dequeued (0 once the queue is
//! empty), Linux sch_pie's default way (timestamps; RFC 8033 section 5.2 allows them in
//! place of the departure-rate estimate). The periodic update is data, not a timer: it
//! runs, for every period that ended, before the link's next event at or after it.

use crate::queued::Verdict;
use crate::Packet;
use tcplab_core::{Dur, Rng, Time};

/// PIE's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF: 15 ms (RFC 8033 section 5.1; Linux sch_pie).
    pub target: Dur,
    /// T_UPDATE: 15 ms (RFC 8033 section 5.1; Linux sch_pie).
    pub t_update: Dur,
    /// Weight of the delay's distance to target, per second: 0.125 (RFC 8033 section 5.1).
    pub alpha: f64,
    /// Weight of the delay's change, per second: 1.25 (RFC 8033 section 5.1).
    pub beta: f64,
    /// MAX_BURST: 150 ms (RFC 8033 section 5.1).
    pub max_burst: Dur,
    /// Mark ECN-capable packets instead of dropping them while the probability is at
    /// most 10 % (RFC 8033 section 5.1): off, as Linux sch_pie.
    pub ecn: bool,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            ecn: false,
        }
    }
}

/// Below this many bytes waiting PIE never drops early: two MTU-sized packets
/// (RFC 8033 section 4.1; Linux sch_pie compares with 2 x psched_mtu, 1514 bytes on
/// Ethernet).
const TWO_MTU: u64 = 2 * 1514;

/// PIE's state (RFC 8033 section 4).
#[derive(Clone, Debug)]
pub(crate) struct Pie {
    drop_prob: f64,
    /// The latest queueing delay measured at a dequeue.
    qdelay: Dur,
    qdelay_old: Dur,
    burst_allowance: Dur,
    /// De-randomisation's accumulated probability (RFC 8033 section 5.1).
    accu_prob: f64,
    next_update: Time,
}

/// RFC 8033 section 4.2's scaling of the adjustment by the current probability (the
/// controller's "auto-tuning" of alpha and beta): small probabilities move slowly.
pub(crate) fn scaled(p: f64, drop_prob: f64) -> f64 {
    let div = if drop_prob < 0.000_001 {
        2048.0
    } else if drop_prob < 0.000_01 {
        512.0
    } else if drop_prob < 0.000_1 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    p / div
}

impl Pie {
    pub fn new(p: &PieParams, now: Time) -> Pie {
        Pie {
            drop_prob: 0.0,
            qdelay: Dur::ZERO,
            qdelay_old: Dur::ZERO,
            burst_allowance: p.max_burst,
            accu_prob: 0.0,
            next_update: now + p.t_update,
        }
    }

    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// One periodic update (RFC 8033 section 4.2, `calculate_drop_prob`).
    pub(crate) fn update(&mut self, p: &PieParams) {
        let cur = self.qdelay.as_secs_f64();
        let old = self.qdelay_old.as_secs_f64();
        let raw = p.alpha * (cur - p.target.as_secs_f64()) + p.beta * (cur - old);
        let mut delta = scaled(raw, self.drop_prob);
        // Cap the adjustment once the probability is high.
        if self.drop_prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.drop_prob += delta;
        // Decay when congestion has gone.
        if self.qdelay == Dur::ZERO && self.qdelay_old == Dur::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = self.burst_allowance.saturating_sub(p.t_update);
        let half = Dur(p.target.0 / 2);
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    /// Runs the updates of every period ended by `now`.
    pub fn advance(&mut self, p: &PieParams, now: Time) {
        while self.next_update <= now {
            // Idle and settled: every further update leaves the state as it is.
            if self.drop_prob == 0.0
                && self.qdelay == Dur::ZERO
                && self.qdelay_old == Dur::ZERO
                && self.burst_allowance == p.max_burst
            {
                let periods = (now.0 - self.next_update.0) / p.t_update.0.max(1) + 1;
                self.next_update += Dur(periods * p.t_update.0);
                return;
            }
            self.update(p);
            self.next_update += p.t_update;
        }
    }

    /// The fate of `pkt` arriving at `now` with `backlog` bytes waiting (RFC 8033
    /// section 4.1 and 5.1's `drop_early` with de-randomisation).
    pub fn enqueue<P: Packet>(
        &mut self,
        p: &PieParams,
        now: Time,
        backlog: u64,
        pkt: &P,
        rng: &mut Rng,
    ) -> Verdict {
        self.advance(p, now);
        if self.burst_allowance > Dur::ZERO {
            return Verdict::Enqueue;
        }
        let half = Dur(p.target.0 / 2);
        if (self.qdelay_old < half && self.drop_prob < 0.2) || backlog <= TWO_MTU {
            return Verdict::Enqueue;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        self.accu_prob += self.drop_prob;
        if self.accu_prob < 0.85 {
            return Verdict::Enqueue;
        }
        if self.accu_prob < 8.5 && rng.next_f64() >= self.drop_prob {
            return Verdict::Enqueue;
        }
        self.accu_prob = 0.0;
        if p.ecn && self.drop_prob <= 0.1 && pkt.ecn_capable() {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// A packet enqueued at `enq` left at `now` (`None`: the queue was empty); `empty`:
    /// nothing waits behind it.
    pub fn dequeued(&mut self, p: &PieParams, now: Time, enq: Option<Time>, empty: bool) {
        self.advance(p, now);
        self.qdelay = match enq {
            Some(e) if !empty => now.saturating_since(e),
            _ => Dur::ZERO,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8033 section 4.2: the adjustment is divided by 2048 below a probability of
    /// 0.0001 %, ..., by 2 below 10 %, and not at all above.
    #[test]
    fn the_adjustment_is_scaled_by_the_current_probability() {
        let cases = [
            (0.0, 2048.0),
            (0.000_000_5, 2048.0),
            (0.000_005, 512.0),
            (0.000_05, 128.0),
            (0.000_5, 32.0),
            (0.005, 8.0),
            (0.05, 2.0),
            (0.5, 1.0),
        ];
        for (prob, div) in cases {
            assert_eq!(scaled(1.0, prob), 1.0 / div, "at {prob}");
        }
    }

    /// One update from a standing 35 ms delay (was 25 ms) at probability 5 %: the
    /// controller adds (0.125 x 0.020 + 1.25 x 0.010) / 2 = 0.0075.
    #[test]
    fn one_update_is_alpha_times_error_plus_beta_times_trend() {
        let p = PieParams::default();
        let mut s = Pie::new(&p, Time::ZERO);
        s.drop_prob = 0.05;
        s.qdelay_old = Dur::from_millis(25);
        s.qdelay = Dur::from_millis(35);
        s.update(&p);
        let want = 0.05 + (0.125 * 0.020 + 1.25 * 0.010) / 2.0;
        assert!((s.drop_prob - want).abs() < 1e-12, "{}", s.drop_prob);
        assert_eq!(s.qdelay_old, Dur::from_millis(35));
        // At 50 % the step is not scaled, but capped at 2 %.
        s.drop_prob = 0.5;
        s.qdelay = Dur::from_millis(200);
        s.update(&p);
        assert!((s.drop_prob - 0.52).abs() < 1e-12);
    }

    /// From zero, a standing delay above target raises the probability slowly at first
    /// (the scaled steps), then faster; an empty queue decays it back to 0 and restores
    /// the burst allowance.
    #[test]
    fn probability_rises_under_standing_delay_and_decays_when_idle() {
        let p = PieParams::default();
        let mut s = Pie::new(&p, Time::ZERO);
        s.qdelay = Dur::from_millis(45);
        s.advance(&p, Time(15_000_000));
        let first = s.drop_prob;
        // 0.125 x 0.030 + 1.25 x 0.045, divided by 2048.
        assert!((first - (0.125 * 0.030 + 1.25 * 0.045) / 2048.0).abs() < 1e-15);
        s.advance(&p, Time(3_000_000_000));
        assert!(s.drop_prob > 0.5, "{}", s.drop_prob);
        assert_eq!(s.burst_allowance, Dur::ZERO);
        s.qdelay = Dur::ZERO;
        s.advance(&p, Time(60_000_000_000));
        assert_eq!(s.drop_prob, 0.0);
        assert_eq!(s.burst_allowance, p.max_burst);
    }
}
