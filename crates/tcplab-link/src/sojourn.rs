//! Sojourn times of the packets a queue discipline sent: a fixed-size log-linear
//! histogram (no allocation per packet), read back as percentiles.
//!
//! Values are nanoseconds. Below 2^[`SUB_BITS`] ns each value has its own bucket; above,
//! each power of two is split into 2^[`SUB_BITS`] equal buckets, so a percentile is read
//! back within 1/2^([`SUB_BITS`]+1) (3 %) of the value (the middle of its bucket).

use tcplab_core::Dur;

/// Buckets per power of two: 16.
const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Powers of two above the linear range (values up to 2^64 ns).
const OCTAVES: usize = 64 - SUB_BITS as usize;

/// Counts of sojourn times (see the module docs).
#[derive(Clone, Debug)]
pub struct SojournHistogram {
    counts: Box<[u64; (OCTAVES + 1) * SUB]>,
    total: u64,
    max: Dur,
}

impl Default for SojournHistogram {
    fn default() -> Self {
        SojournHistogram {
            counts: Box::new([0; (OCTAVES + 1) * SUB]),
            total: 0,
            max: Dur::ZERO,
        }
    }
}

fn bucket(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let top = 63 - ns.leading_zeros(); // >= SUB_BITS
    let octave = (top - SUB_BITS + 1) as usize;
    let sub = ((ns >> (top - SUB_BITS)) as usize) & (SUB - 1);
    octave * SUB + sub
}

/// The middle of bucket `b`.
fn middle(b: usize) -> u64 {
    let (octave, sub) = (b / SUB, (b % SUB) as u64);
    if octave == 0 {
        return sub;
    }
    let shift = octave as u32 - 1;
    let lo = (SUB as u64 + sub) << shift;
    lo + ((1u64 << shift) >> 1)
}

impl SojournHistogram {
    pub fn record(&mut self, d: Dur) {
        self.counts[bucket(d.0)] += 1;
        self.total += 1;
        self.max = self.max.max(d);
    }

    /// Packets recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn max(&self) -> Dur {
        self.max
    }

    /// The `q`-quantile (0..=1) of the recorded times (`None` if nothing was recorded):
    /// the smallest bucket holding at least `ceil(q * count)` values, read as its middle.
    pub fn quantile(&self, q: f64) -> Option<Dur> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        if rank >= self.total {
            return Some(self.max);
        }
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Dur(middle(b).min(self.max.0)));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_three_percent() {
        let mut h = SojournHistogram::default();
        // 1..=1000 ms: the median is 500 ms, the 99th percentile 990 ms.
        for ms in 1..=1000u64 {
            h.record(Dur::from_millis(ms));
        }
        for (q, want) in [(0.5, 500.0), (0.99, 990.0), (0.01, 10.0), (1.0, 1000.0)] {
            let got = h.quantile(q).unwrap().as_millis_f64();
            assert!((got - want).abs() <= want * 0.035, "q {q}: {got} vs {want}");
        }
        assert_eq!(h.count(), 1000);
        assert_eq!(h.max(), Dur::from_millis(1000));
        assert_eq!(SojournHistogram::default().quantile(0.5), None);
    }

    #[test]
    fn small_values_are_exact() {
        for ns in 0..64u64 {
            let mut h = SojournHistogram::default();
            h.record(Dur(ns));
            let got = h.quantile(0.5).unwrap().0;
            assert!(got.abs_diff(ns) <= ns / 32 + 1, "{ns} read back as {got}");
        }
        let mut h = SojournHistogram::default();
        h.record(Dur(u64::MAX));
        assert_eq!(h.quantile(1.0), Some(Dur(u64::MAX)));
    }
}
