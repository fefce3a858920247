//! Per-segment send records, indexed by segment number.
//!
//! Segments start at multiples of the MSS, so byte `seq` lives in segment `seq / mss` and
//! a retransmission always reuses the original boundaries. The ring starts empty, grows to
//! the largest window once and is reused: no allocation per packet in steady state, and a
//! flow holds only what its window needs (thousands of flows with small windows stay small).

use std::collections::VecDeque;
use tcplab_core::Time;

/// What the sender remembers about one segment until it is cumulatively acknowledged.
///
/// 48 bytes (one per segment in flight, thousands of flows): the small fields share the
/// word after `len`, so the two rate-sampling flags are bits of `rate_flags`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentRecord {
    pub len: u32,
    /// Last (re)transmission time.
    pub sent_time: Time,
    /// The segment's first transmission (kept across retransmissions; INET's Vegas times
    /// its fine-grained timeout from it).
    pub orig_sent_time: Time,
    /// Delivery-rate state at the last transmission (draft-cheng-iccrg-delivery-rate-estimation).
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    /// Times sent (saturating); > 1 means retransmitted (Karn: no RTT sample).
    pub tx_count: u8,
    /// Reported received by a SACK block.
    pub sacked: bool,
    /// Considered lost (RFC 6675 IsLost or timeout) and not retransmitted since.
    pub lost: bool,
    /// [`APP_LIMITED`] and [`COUNTED`]; use the accessors.
    pub rate_flags: u8,
}

/// Sent while the connection was application-limited (rate sampling).
const APP_LIMITED: u8 = 1;
/// Already counted as delivered for rate sampling (by SACK before the cumulative ACK).
const COUNTED: u8 = 2;

impl SentRecord {
    #[inline]
    fn set_flag(&mut self, flag: u8, on: bool) {
        if on {
            self.rate_flags |= flag;
        } else {
            self.rate_flags &= !flag;
        }
    }

    /// Sent while the connection was application-limited.
    #[inline]
    pub fn app_limited(&self) -> bool {
        self.rate_flags & APP_LIMITED != 0
    }

    #[inline]
    pub fn set_app_limited(&mut self, on: bool) {
        self.set_flag(APP_LIMITED, on);
    }

    /// Already counted as delivered for rate sampling (by SACK before the cumulative ACK).
    #[inline]
    pub fn counted(&self) -> bool {
        self.rate_flags & COUNTED != 0
    }

    #[inline]
    pub fn set_counted(&mut self, on: bool) {
        self.set_flag(COUNTED, on);
    }
}

/// The records of segments `[base, base + len)`.
#[derive(Debug, Default)]
pub struct Records {
    base: u64,
    q: VecDeque<SentRecord>,
}

impl Records {
    /// First segment index still recorded (the one containing snd_una).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the last recorded segment.
    pub fn end(&self) -> u64 {
        self.base + self.q.len() as u64
    }

    pub fn get(&self, idx: u64) -> Option<&SentRecord> {
        idx.checked_sub(self.base)
            .and_then(|i| self.q.get(i as usize))
    }

    pub fn get_mut(&mut self, idx: u64) -> Option<&mut SentRecord> {
        idx.checked_sub(self.base)
            .and_then(|i| self.q.get_mut(i as usize))
    }

    /// Appends the record of the next new segment, which must be `end()`.
    pub fn push(&mut self, idx: u64, rec: SentRecord) {
        debug_assert_eq!(idx, self.end(), "records must be appended in order");
        self.q.push_back(rec);
    }

    /// Removes records of segments below `idx` (fully acknowledged), passing each to `f`.
    pub fn release_below(&mut self, idx: u64, mut f: impl FnMut(u64, &SentRecord)) {
        while self.base < idx {
            match self.q.pop_front() {
                Some(r) => f(self.base, &r),
                None => {
                    self.base = idx;
                    return;
                }
            }
            self.base += 1;
        }
    }

    /// Records from `from` to the end, with their indices.
    pub fn iter_from(&self, from: u64) -> impl DoubleEndedIterator<Item = (u64, &SentRecord)> {
        let skip = from.saturating_sub(self.base) as usize;
        let base = self.base;
        self.q
            .iter()
            .enumerate()
            .skip(skip)
            .map(move |(i, r)| (base + i as u64, r))
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (u64, &mut SentRecord)> {
        let base = self.base;
        self.q
            .iter_mut()
            .enumerate()
            .map(move |(i, r)| (base + i as u64, r))
    }
}

#[cfg(test)]
mod record_size {
    use super::SentRecord;

    #[test]
    fn a_record_is_48_bytes_and_its_flags_are_independent() {
        // 56 bytes with the flags as separate bools.
        assert_eq!(std::mem::size_of::<SentRecord>(), 48);
        let mut r = SentRecord::default();
        r.set_app_limited(true);
        r.set_counted(true);
        r.set_app_limited(false);
        assert!(!r.app_limited() && r.counted());
        r.set_counted(false);
        r.set_app_limited(true);
        assert!(r.app_limited() && !r.counted());
    }
}
