//! One-way delay percentiles in fixed memory: a log-linear histogram.
//!
//! Each power of two of nanoseconds is split into 64 equal buckets, so a value is known to
//! within 1/64 (1.6 %) of itself; exact minimum, maximum and mean are kept beside it.
//! Memory is allocated once, at the first sample, and never grows.

use tcplab_core::Dur;

const SUB_BITS: u32 = 6;
const SUB: usize = 1 << SUB_BITS;
/// Values up to 2^48 ns (about 3.3 days) have their own bucket; longer ones share the last.
const GROUPS: usize = 48 - SUB_BITS as usize + 1;

/// See the module docs.
#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    counts: Vec<u32>,
    n: u64,
    sum_ns: u128,
    min: Option<Dur>,
    max: Option<Dur>,
}

fn bucket(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros(); // >= SUB_BITS
    let group = (msb - SUB_BITS + 1) as usize;
    let sub = ((ns >> (msb - SUB_BITS)) as usize) & (SUB - 1);
    (group * SUB + sub).min(GROUPS * SUB - 1)
}

/// The smallest value of bucket `b` and its width.
fn bucket_range(b: usize) -> (u64, u64) {
    if b < SUB {
        return (b as u64, 1);
    }
    let group = (b / SUB) as u32;
    let sub = (b % SUB) as u64;
    let shift = group - 1;
    (((SUB as u64) | sub) << shift, 1u64 << shift)
}

impl DelayHistogram {
    pub fn record(&mut self, d: Dur) {
        if self.counts.is_empty() {
            self.counts = vec![0; GROUPS * SUB];
        }
        let ns = d.as_nanos();
        let b = bucket(ns);
        self.counts[b] = self.counts[b].saturating_add(1);
        self.n += 1;
        self.sum_ns += ns as u128;
        self.min = Some(self.min.map_or(d, |m| m.min(d)));
        self.max = Some(self.max.map_or(d, |m| m.max(d)));
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn min(&self) -> Option<Dur> {
        self.min
    }
    pub fn max(&self) -> Option<Dur> {
        self.max
    }
    pub fn mean(&self) -> Option<Dur> {
        (self.n > 0).then(|| Dur((self.sum_ns / self.n as u128) as u64))
    }

    /// The `q`-quantile (0 ≤ q ≤ 1), as the middle of its bucket clamped to [min, max].
    pub fn quantile(&self, q: f64) -> Option<Dur> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let (lo, w) = bucket_range(b);
                let mid = Dur(lo + w / 2);
                return Some(mid.clamp(self.min?, self.max?));
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_within_their_range() {
        for ns in (0..5000u64).chain([1 << 20, (1 << 20) + 12345, 987_654_321, 1 << 47]) {
            let (lo, w) = bucket_range(bucket(ns));
            assert!(lo <= ns && ns < lo + w, "ns={ns} lo={lo} w={w}");
            assert!(
                w as f64 <= (ns.max(64) as f64) / 32.0,
                "bucket too wide for {ns}"
            );
        }
    }

    #[test]
    fn quantiles_of_a_uniform_sample_are_within_two_percent() {
        let mut h = DelayHistogram::default();
        // 1..=10000 microseconds.
        for i in 1..=10_000u64 {
            h.record(Dur::from_micros(i));
        }
        for (q, exact_us) in [(0.5, 5000.0), (0.9, 9000.0), (0.99, 9900.0)] {
            let got = h.quantile(q).unwrap().as_secs_f64() * 1e6;
            assert!(
                (got - exact_us).abs() / exact_us < 0.02,
                "q={q}: {got} us vs {exact_us}"
            );
        }
        assert_eq!(h.min(), Some(Dur::from_micros(1)));
        assert_eq!(h.max(), Some(Dur::from_micros(10_000)));
        assert_eq!(h.mean(), Some(Dur::from_nanos(5_000_500)));
        assert_eq!(h.quantile(1.0), Some(Dur::from_micros(10_000)));
    }

    #[test]
    fn empty_has_no_quantiles() {
        assert_eq!(DelayHistogram::default().quantile(0.5), None);
    }
}
