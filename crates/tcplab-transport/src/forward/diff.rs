//! TCP-Forward's loss detection: Diff_p against a Timeout (seed 004, Sec. IV-C, eq. 4).
//!
//! "For each original segment we keep track of the time it stays in the coding window.
//! Let ElapsedTime_p be the time segment p spends in the coding window. Then
//!
//!   Diff_p = coding window size / min_i ElapsedTime_i − size of segment p / ElapsedTime_p
//!
//! When the value of Diff exceeds a predefined threshold Timeout value, TCP-Forward will
//! start to generate encoded packets with all segments in the coding buffer but before
//! the coding window."
//!
//! Both terms are rates (bytes per second): what the coding window would drain at if
//! every segment left as fast as the fastest one ever did (a Vegas-style BaseRTT), and
//! what segment p has achieved so far. Diff_p grows with ElapsedTime_p, so comparing it
//! with a Timeout (a rate) is comparing ElapsedTime_p with a time T:
//!
//!   Timeout = W / minE − s_p / T   ⇔   (Diff_p > Timeout ⇔ ElapsedTime_p > T).
//!
//! The seed gives no value for Timeout. We choose T the way TCP chooses its RTO (RFC
//! 6298), over the elapsed times of acknowledged segments — smoothed mean plus four mean
//! deviations — and never below `k · minE` (k = `timeout_factor`): a segment is overdue
//! once it has stayed clearly longer than segments usually do, not merely longer than the
//! luckiest one (LT decoding times vary far more than path RTTs, and a bare `k · minE`
//! fires for most segments). Before any sample T is `initial_timeout_ms`.
//!
//! ElapsedTime_p runs from the segment's push into the coding buffer, or from its last
//! repair; samples come only from decodes caused by symbols sent since (Karn's rule; the
//! ACK echoes the decoding symbol's seed).

use crate::rtt::RttEstimator;
use tcplab_core::{Dur, Time};

/// The Diff_p test (see the module docs).
#[derive(Clone, Debug)]
pub struct DiffDetector {
    /// k: the least T in units of the shortest elapsed time.
    factor: f64,
    /// Smoothed elapsed time and its deviation (RFC 6298 arithmetic).
    est: RttEstimator,
    min_elapsed: Option<Dur>,
}

impl DiffDetector {
    pub fn new(factor: f64, initial: Dur) -> DiffDetector {
        DiffDetector {
            factor,
            est: RttEstimator::new(initial, Dur(1), Dur::from_secs(60), Dur(1)),
            min_elapsed: None,
        }
    }

    /// A segment was acknowledged after spending `elapsed` in the coding process.
    pub fn on_acked(&mut self, elapsed: Dur) {
        let e = elapsed.max(Dur(1));
        self.min_elapsed = Some(self.min_elapsed.map_or(e, |m| m.min(e)));
        self.est.on_sample(e, 0, 0); // RFC 6298: no sequence numbers
    }

    /// min_i ElapsedTime_i, once a segment has been acknowledged.
    pub fn min_elapsed(&self) -> Option<Dur> {
        self.min_elapsed
    }

    /// T: how long a segment may stay before Diff_p exceeds Timeout.
    pub fn allowed(&self) -> Dur {
        let rto = self.est.base_rto();
        match self.min_elapsed {
            Some(m) => rto.max(Dur((m.as_nanos() as f64 * self.factor).ceil() as u64)),
            None => rto,
        }
    }

    /// Diff_p and Timeout (bytes/s) for a segment of `seg` bytes in a coding window of
    /// `window` bytes whose clock started at `since`; `None` before minE is known.
    pub fn diff(&self, now: Time, since: Time, seg: u32, window: u64) -> Option<(f64, f64)> {
        let m = self.min_elapsed?.as_secs_f64();
        let e = now.saturating_since(since).max(Dur(1)).as_secs_f64();
        let t = self.allowed().as_secs_f64();
        let (w, s) = (window as f64, f64::from(seg));
        Some((w / m - s / e, w / m - s / t))
    }

    /// Whether segment p, in the window since `entered`, is overdue at `now`.
    pub fn overdue(&self, now: Time, entered: Time) -> bool {
        now.saturating_since(entered) >= self.allowed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_exceeds_timeout_exactly_when_the_segment_is_overdue() {
        let mut d = DiffDetector::new(3.0, Dur::from_secs(1));
        assert_eq!(d.allowed(), Dur::from_secs(1));
        assert!(d.diff(Time(5), Time(0), 1000, 16_000).is_none());
        // Equal samples: no deviation left after a while, so T = k · minE.
        for _ in 0..60 {
            d.on_acked(Dur::from_millis(10));
        }
        assert_eq!(d.min_elapsed(), Some(Dur::from_millis(10)));
        assert_eq!(d.allowed(), Dur::from_millis(30));
        let entered = Time(1_000_000_000);
        for ms in [1u64, 10, 29, 31, 60, 500] {
            let now = entered + Dur::from_millis(ms);
            let (diff, timeout) = d.diff(now, entered, 1460, 16 * 1460).unwrap();
            assert_eq!(diff > timeout, d.overdue(now, entered), "{ms} ms");
            assert_eq!(d.overdue(now, entered), ms >= 30);
        }
        // Spread-out samples: T follows the mean and deviation, above k · minE.
        for ms in [20u64, 80, 40, 120, 60] {
            d.on_acked(Dur::from_millis(ms));
        }
        assert!(d.allowed() > Dur::from_millis(60), "{:?}", d.allowed());
    }
}
