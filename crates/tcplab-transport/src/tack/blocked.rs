//! Data blocked in the receive buffer at each TACK (the paper's Figure 5a): the bytes
//! received out of order, waiting for a hole below them, counted when a TACK is sent.
//!
//! Kept in fixed memory as counts over quarter-decade bins, so that runs can be pooled
//! exactly at the bin edges: bin 0 holds TACKs sent with nothing blocked, bin k ≥ 1 those
//! with 10^((k−1)/4) ≤ bytes < 10^(k/4) (the last bin also holds anything larger). The
//! exact mean and maximum are kept beside.

/// Bins: 0 bytes, then quarter decades from 1 byte up to 10^10 bytes.
pub const BLOCKED_BINS: usize = 41;

/// See the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedLog {
    counts: [u32; BLOCKED_BINS],
    n: u64,
    sum: u128,
    max: u64,
}

impl Default for BlockedLog {
    fn default() -> Self {
        BlockedLog {
            counts: [0; BLOCKED_BINS],
            n: 0,
            sum: 0,
            max: 0,
        }
    }
}

/// The bin of `bytes` (see the module docs).
pub fn blocked_bin(bytes: u64) -> usize {
    if bytes == 0 {
        return 0;
    }
    // Per TACK (tens to thousands a second), not per packet: a logarithm is cheap here.
    let k = 1 + (4.0 * (bytes as f64).log10()).floor() as usize;
    k.min(BLOCKED_BINS - 1)
}

impl BlockedLog {
    /// One TACK sent with `bytes` waiting out of order.
    pub fn record(&mut self, bytes: u64) {
        let b = blocked_bin(bytes);
        self.counts[b] = self.counts[b].saturating_add(1);
        self.n += 1;
        self.sum += bytes as u128;
        self.max = self.max.max(bytes);
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    pub fn counts(&self) -> &[u32; BLOCKED_BINS] {
        &self.counts
    }
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }
    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The counts as text, bin 0 first, separated by spaces (a results column).
    pub fn to_text(&self) -> String {
        let parts: Vec<String> = self.counts.iter().map(|c| c.to_string()).collect();
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_quarter_decades() {
        assert_eq!(blocked_bin(0), 0);
        assert_eq!(blocked_bin(1), 1);
        assert_eq!(blocked_bin(1000), 13); // 10^3: the first bin of the fourth decade
        assert_eq!(blocked_bin(999), 12);
        assert_eq!(blocked_bin(1778), 13); // below 10^3.25 = 1778.3
        assert_eq!(blocked_bin(1779), 14);
        assert_eq!(blocked_bin(u64::MAX), BLOCKED_BINS - 1);
    }

    #[test]
    fn mean_max_and_counts_of_what_was_recorded() {
        let mut b = BlockedLog::default();
        assert_eq!(b.mean(), None);
        for v in [0, 0, 1448, 14_480] {
            b.record(v);
        }
        assert_eq!(b.count(), 4);
        assert_eq!(b.mean(), Some(3982.0));
        assert_eq!(b.max(), Some(14_480));
        assert_eq!(b.counts()[0], 2);
        assert_eq!(b.counts()[blocked_bin(1448)], 1);
        assert_eq!(b.to_text().split(' ').count(), BLOCKED_BINS);
        assert!(b.to_text().starts_with("2 0 "));
    }
}
