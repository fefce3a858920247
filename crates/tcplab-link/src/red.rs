//! RED, Random Early Detection (Floyd and Jacobson, 1993): an exponentially weighted
//! average of the queue length decides, at each arrival, whether to drop (or mark) it
//! early, with a probability rising linearly from 0 at `min_th` to `max_p` at `max_th`,
//! spread out by the count of packets since the last drop. Gentle RED (Floyd, 2000)
//! rises on from `max_p` to 1 between `max_th` and `2 max_th` instead of jumping to 1.

use crate::queued::Verdict;
use crate::Packet;
use tcplab_core::{Rng, Time};

/// RED's parameters (queue lengths in packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// 5 packets (Floyd and Jacobson 1993, section 11's simulations; ns-3 RedQueueDisc).
    pub min_th: f64,
    /// 15 packets (same sources).
    pub max_th: f64,
    /// Drop probability at `max_th`: 1/50 (same sources).
    pub max_p: f64,
    /// Averaging weight w_q: 0.002 (same sources).
    pub weight: f64,
    /// The gentle variant: on, as ns-3's default and Floyd's 2000 recommendation.
    pub gentle: bool,
    /// Mark ECN-capable packets instead of dropping them early: off (Linux sch_red
    /// and ns-3).
    pub ecn: bool,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            weight: 0.002,
            gentle: true,
            ecn: false,
        }
    }
}

/// The typical packet whose transmission time measures idle periods: 500 bytes (ns-3
/// RedQueueDisc's MeanPktSize).
const MEAN_PKT_BYTES: u64 = 500;

/// RED's state.
#[derive(Clone, Debug)]
pub(crate) struct Red {
    avg: f64,
    /// Packets since the last early drop (-1: the average is below `min_th`).
    count: i64,
    /// When the queue last went empty (`None`: not empty).
    idle_since: Option<Time>,
    /// Transmission time of a typical packet, in ns.
    typical_ns: f64,
}

impl Red {
    pub fn new(_p: &RedParams, rate_bps: u64) -> Red {
        Red {
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
            typical_ns: (MEAN_PKT_BYTES * 8) as f64 * 1e9 / rate_bps.max(1) as f64,
        }
    }

    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn went_idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// The average after an arrival that finds `q` packets waiting (Floyd and Jacobson
    /// 1993, section 4: after an idle period, as if `m` typical packets had been sent
    /// from an empty queue).
    pub(crate) fn average(&mut self, p: &RedParams, now: Time, q: u64) {
        match self.idle_since.take() {
            Some(since) if q == 0 => {
                let m = now.saturating_since(since).0 as f64 / self.typical_ns;
                self.avg *= (1.0 - p.weight).powf(m);
            }
            _ => self.avg = (1.0 - p.weight) * self.avg + p.weight * q as f64,
        }
    }

    /// The early-drop probability for the current average, before the count's spreading.
    pub(crate) fn base_prob(&self, p: &RedParams) -> f64 {
        let a = self.avg;
        if a < p.min_th {
            0.0
        } else if a < p.max_th {
            p.max_p * (a - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && a < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (a - p.max_th) / p.max_th
        } else {
            1.0
        }
    }

    /// The fate of `pkt` arriving at `now` with `q` packets waiting.
    pub fn enqueue<P: Packet>(
        &mut self,
        p: &RedParams,
        now: Time,
        q: u64,
        pkt: &P,
        rng: &mut Rng,
    ) -> Verdict {
        self.average(p, now, q);
        let pb = self.base_prob(p);
        let early = if pb <= 0.0 {
            self.count = -1;
            false
        } else if pb >= 1.0 {
            true
        } else {
            self.count += 1;
            // Spread drops out: p_a = p_b / (1 - count p_b) (section 7).
            let denom = 1.0 - self.count as f64 * pb;
            let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
            rng.chance(pa)
        };
        if !early {
            return Verdict::Enqueue;
        }
        self.count = 0;
        if p.ecn && pkt.ecn_capable() {
            Verdict::Mark
        } else {
            // A drop at an empty queue leaves it idle: Linux's qdisc run after the
            // enqueue finds nothing to dequeue and restarts the idle period
            // (sch_red.c: red_start_of_idle_period), so the next arrival decays the
            // average over the whole gap, not by one sample.
            if q == 0 {
                self.idle_since = Some(now);
            }
            Verdict::Drop
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Pkt;
    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            1000
        }
    }

    /// The average moves by w_q towards each sample: after n arrivals at a constant
    /// queue of 20 from 0 it is 20 (1 - (1 - w_q)^n).
    #[test]
    fn the_average_is_an_ewma_of_the_queue() {
        let p = RedParams::default();
        let mut r = Red::new(&p, 10_000_000);
        r.idle_since = None;
        for _ in 0..500 {
            r.average(&p, Time::ZERO, 20);
        }
        let want = 20.0 * (1.0 - (1.0f64 - 0.002).powi(500));
        assert!((r.avg - want).abs() < 1e-9, "{} vs {want}", r.avg);
        // An idle period of 100 typical transmission times (500 B at 10 Mbit/s = 0.4 ms
        // each) decays it by (1 - w_q)^100.
        let before = r.avg;
        r.went_idle(Time::ZERO);
        r.average(&p, Time(40_000_000), 0);
        assert!((r.avg - before * (1.0f64 - 0.002).powi(100)).abs() < 1e-9);
    }

    /// An early drop at an empty queue keeps the idle period running: after 10 s of
    /// silence the average is back near zero and a packet is let through, where counting
    /// the gap as one sample kept the average above max_th and dropped every
    /// retransmission of a stalled TCP flow for good.
    #[test]
    fn a_drop_at_an_empty_queue_keeps_the_queue_idle() {
        let p = RedParams::default();
        let mut r = Red::new(&p, 100_000_000);
        let mut rng = Rng::from_seed(1);
        r.avg = 40.0;
        r.idle_since = None;
        r.went_idle(Time::ZERO);
        let v = r.enqueue(&p, Time(1_000), 0, &Pkt, &mut rng);
        assert!(matches!(v, Verdict::Drop), "the average is above 2 max_th");
        let v = r.enqueue(&p, Time(10_000_000_000), 0, &Pkt, &mut rng);
        assert!(matches!(v, Verdict::Enqueue), "avg {}", r.avg);
        assert!(r.avg < 1e-3, "{}", r.avg);
    }

    /// Linear from 0 at min_th to max_p at max_th; gentle: on to 1 at 2 max_th; not
    /// gentle: 1 from max_th.
    #[test]
    fn the_probability_has_a_gentle_region() {
        let p = RedParams::default();
        let mut r = Red::new(&p, 10_000_000);
        let at = |r: &mut Red, a: f64, gentle: bool| {
            r.avg = a;
            r.base_prob(&RedParams { gentle, ..p })
        };
        assert_eq!(at(&mut r, 4.0, true), 0.0);
        assert!((at(&mut r, 10.0, true) - 0.01).abs() < 1e-12);
        assert!((at(&mut r, 22.5, true) - (0.02 + 0.98 * 0.5)).abs() < 1e-12);
        assert_eq!(at(&mut r, 30.0, true), 1.0);
        assert_eq!(at(&mut r, 22.5, false), 1.0);
        assert!((at(&mut r, 14.0, false) - 0.018).abs() < 1e-12);
    }

    /// With the average held at the middle (p_b = 1 %), drops are spread: the count
    /// between drops is never above 1/p_b (p_a reaches 1 there) and averages about
    /// 1/(2 p_b) (uniform between 1 and 1/p_b), unlike a geometric 1/p_b.
    #[test]
    fn drops_are_spread_by_the_count() {
        let p = RedParams::default();
        let mut r = Red::new(&p, 10_000_000);
        let mut rng = Rng::from_seed(5);
        let (mut since, mut gaps) = (0u64, Vec::new());
        for _ in 0..200_000 {
            r.avg = 10.0;
            r.idle_since = None;
            // q = 10 keeps the average at 10.
            since += 1;
            if r.enqueue(&p, Time::ZERO, 10, &Pkt, &mut rng) == Verdict::Drop {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| g <= 101), "{:?}", gaps.iter().max());
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 50.5).abs() < 3.0, "mean gap {mean}");
    }
}
