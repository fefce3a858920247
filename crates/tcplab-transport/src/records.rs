//! Per-segment send records, indexed by segment number.
//!
//! Segments start at multiples of the MSS, so byte `seq` lives in segment `seq / mss` and
//! a retransmission always reuses the original boundaries. The ring starts empty, grows to
//! the largest window once and is reused: no allocation per packet in steady state, and a
//! flow holds only what its window needs (thousands of flows with small windows stay small).

use std::collections::VecDeque;
use tcplab_core::Time;

/// What the sender remembers about one segment until it is cumulatively acknowledged.
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
    pub app_limited: bool,
    /// Times sent; > 1 means retransmitted (Karn: no RTT sample).
    pub tx_count: u16,
    /// Reported received by a SACK block.
    pub sacked: bool,
    /// Considered lost (RFC 6675 IsLost or timeout) and not retransmitted since.
    pub lost: bool,
    /// Already counted as delivered for rate sampling (by SACK before the cumulative ACK).
    pub counted: bool,
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
