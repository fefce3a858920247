//! TCP-Forward's adaptive redundancy (seed 004, Sec. IV-C): "TCP-Forward also maintains
//! two counters. One is the total number of TCP segments that have ever pushed into the
//! coding window, denoted as N_segments. The other one is how many times the Diff value
//! exceeds the Timeout value, denoted as N_timeout. Then the redundancy ratio in
//! TCP-Forward is defined as their ratio: R = N_segments / (N_segments − N_timeout)."
//!
//! N_timeout counts the times a Diff_p exceeded the Timeout: one per timeout handled
//! (however many segments its repair covers; counting every overdue segment instead
//! drove R to its cap whenever most segments of a period were late, and the flood of
//! symbols that followed kept them late). R starts at `redundancy` (the formula gives 1 before the first timeout) and is capped
//! at `max_redundancy` (the formula diverges when N_timeout reaches N_segments).
//!
//! With `memory` = 0 the counters are the seed's totals "ever". Totals never forget: one
//! bad period (the start, before the decoder's pace is known, when nearly every segment
//! times out) pins R near its cap for the rest of a long transfer. With `memory` = M the
//! counters decay by a factor (1 − 1/M) per segment pushed, so R reflects roughly the
//! last M segments.

/// The two counters and the R they give.
#[derive(Clone, Debug)]
pub struct Redundancy {
    segments: f64,
    timeouts: f64,
    /// Per-segment decay factor of both counters (1: never forget).
    keep: f64,
    floor: f64,
    max: f64,
    adaptive: bool,
    /// Lifetime totals, for the results.
    pub total_segments: u64,
    pub total_timeouts: u64,
}

impl Redundancy {
    pub fn new(initial: f64, max: f64, adaptive: bool, memory: u32) -> Redundancy {
        Redundancy {
            segments: 0.0,
            timeouts: 0.0,
            keep: if memory == 0 {
                1.0
            } else {
                1.0 - 1.0 / f64::from(memory)
            },
            floor: initial,
            max,
            adaptive,
            total_segments: 0,
            total_timeouts: 0,
        }
    }

    /// A segment entered the coding buffer.
    pub fn on_segment(&mut self) {
        self.segments = self.segments * self.keep + 1.0;
        self.timeouts *= self.keep;
        self.total_segments += 1;
    }

    /// A segment's Diff_p exceeded the Timeout.
    pub fn on_timeout(&mut self) {
        self.timeouts += 1.0;
        self.total_timeouts += 1;
    }

    /// R now.
    pub fn r(&self) -> f64 {
        if !self.adaptive || self.timeouts == 0.0 {
            return self.floor;
        }
        if self.timeouts >= self.segments {
            return self.max;
        }
        (self.segments / (self.segments - self.timeouts)).clamp(self.floor, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_is_the_ratio_of_the_counters() {
        let mut r = Redundancy::new(1.0, 10.0, true, 0);
        assert_eq!(r.r(), 1.0);
        for _ in 0..100 {
            r.on_segment();
        }
        for _ in 0..20 {
            r.on_timeout();
        }
        assert_eq!(r.r(), 1.25);
        for _ in 0..75 {
            r.on_timeout();
        }
        assert_eq!(r.r(), 10.0, "capped");
        let mut fixed = Redundancy::new(1.5, 10.0, false, 0);
        fixed.on_segment();
        fixed.on_timeout();
        assert_eq!(fixed.r(), 1.5);
    }

    #[test]
    fn with_memory_old_timeouts_fade() {
        let mut r = Redundancy::new(1.0, 100.0, true, 100);
        for _ in 0..10 {
            r.on_segment();
            r.on_timeout();
        }
        assert!(r.r() >= 50.0, "every segment timed out: {}", r.r());
        for _ in 0..1000 {
            r.on_segment();
        }
        assert!(r.r() < 1.01, "forgotten after 10 memories: {}", r.r());
        let mut forever = Redundancy::new(1.0, 100.0, true, 0);
        for _ in 0..10 {
            forever.on_segment();
            forever.on_timeout();
        }
        for _ in 0..1000 {
            forever.on_segment();
        }
        assert!((forever.r() - 1010.0 / 1000.0).abs() < 1e-12);
    }
}
