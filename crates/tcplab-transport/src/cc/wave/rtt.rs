//! Per-round RTT statistics with the v0.2 update rules.
//!
//! - `first` is the first valid RTT sample of the round;
//! - `min` and `max` are updated from `first` only (v0.2; v0.1 used every sample);
//! - at the end of a round `avg ← a·avg + (1 − a)·first` with `a = (first − min)/first`
//!   (the first round sets `avg = min`); a large first RTT (far above min) therefore
//!   weighs little, which is the paper's "smoothing towards the floor".
//! - ΔRTT = avg − min: the queueing this flow and others add.

use tcplab_core::Dur;

#[derive(Clone, Copy, Debug, Default)]
pub struct RttStats {
    pub first: Option<Dur>,
    pub min: Option<Dur>,
    pub avg: Option<Dur>,
    pub max: Option<Dur>,
    /// RTT of the previous ACK with a sample: tells aligned ACKs (≥) from a new train.
    pub previous: Option<Dur>,
}

impl RttStats {
    /// A valid sample inside a round (v0.2 `wavetcp_rtt_measurements`).
    pub fn sample(&mut self, r: Dur) {
        self.previous = Some(r);
        if self.first.is_none() {
            self.first = Some(r);
            self.min = Some(self.min.map_or(r, |m| m.min(r)));
            self.max = Some(self.max.map_or(r, |m| m.max(r)));
        }
    }

    /// The EWMA at the end of a round; `None` when nothing is known yet.
    pub fn end_round_avg(&mut self) {
        let Some(min) = self.min else { return };
        let next = match (self.avg, self.first) {
            (None, _) => min,
            (Some(avg), Some(first)) if first.0 > 0 => {
                // a = (first − min)/first, clamped to [0, 1] (first < min only after a reset).
                let a = first.0.saturating_sub(min.0) as f64 / first.0 as f64;
                Dur((a * avg.0 as f64 + (1.0 - a) * first.0 as f64).round() as u64)
            }
            (Some(avg), _) => avg,
        };
        self.avg = Some(next);
    }

    /// ΔRTT = avg − min (zero until both exist).
    pub fn delta(&self) -> Dur {
        match (self.avg, self.min) {
            (Some(a), Some(m)) => a.saturating_sub(m),
            _ => Dur::ZERO,
        }
    }

    /// Adjustment mode: forget the floor, assume the worst seen RTT as the average.
    pub fn reset_for_adjustment(&mut self) {
        self.min = None;
        self.avg = self.max.or(self.avg);
    }
}
