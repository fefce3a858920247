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
/// 32 bytes (one per segment in flight, thousands of flows; at 1000 flows these records
/// were a sixth of the transport's cache misses at 48 bytes). Only the last transmission
/// time is absolute; the first transmission and the two delivery-rate times are stored as
/// nanoseconds *before* it in 32 bits, and `delivered` in 48 bits. A record whose values
/// do not fit (times more than 4.29 s apart: RTO backoff, idle flows; 256 TB delivered)
/// is marked [`FAR`] and keeps them exactly in a slot of the sender's [`FarTable`] (its
/// index in `orig_back`): every read returns exactly the value stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SentRecord {
    /// Last (re)transmission time.
    sent_time: Time,
    pub len: u32,
    /// `sent_time - orig_sent_time` (the far slot when [`FAR`]).
    orig_back: u32,
    /// `sent_time - delivered_time`.
    delivered_back: u32,
    /// `sent_time - first_sent_time`.
    first_back: u32,
    /// Low 32 and high 16 bits of the delivered count at the last transmission.
    delivered_lo: u32,
    delivered_hi: u16,
    /// Times sent (saturating); > 1 means retransmitted (Karn: no RTT sample).
    pub tx_count: u8,
    /// [`SACKED`], [`LOST`], [`APP_LIMITED`], [`COUNTED`], [`FAR`]; use the accessors.
    flags: u8,
}

/// Reported received by a SACK block.
const SACKED: u8 = 1;
/// Considered lost (RFC 6675 IsLost or timeout) and not retransmitted since.
const LOST: u8 = 2;
/// Sent while the connection was application-limited (rate sampling).
const APP_LIMITED: u8 = 4;
/// Already counted as delivered for rate sampling (by SACK before the cumulative ACK).
const COUNTED: u8 = 8;
/// The record's times and delivered count live in a [`FarTable`] slot.
const FAR: u8 = 16;
/// Marked lost once, retransmitted or not.
const WAS_LOST: u8 = 32;

/// What a (re)transmission stores besides its own time: the first transmission's time and
/// the delivery-rate state (draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendTimes {
    pub orig_sent_time: Time,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub delivered: u64,
}

impl SendTimes {
    /// A transmission at `now` without rate state (a sender whose rate sampler is off):
    /// every time `now`, nothing delivered.
    #[inline]
    pub fn at(now: Time) -> SendTimes {
        SendTimes {
            orig_sent_time: now,
            delivered_time: now,
            first_sent_time: now,
            delivered: 0,
        }
    }
}

/// Exact values of the records whose offsets do not fit 32 bits. Kept by the sender beside
/// its [`Records`], in a cold line (inside the ring's header it would shift the sender's
/// per-ACK lines). Rare: a slot is taken when such a record is stored and freed when it is
/// released or stored compactly again; freed slots are reused, so the table grows only to
/// the most such records at once (no allocation per packet in steady state).
#[derive(Clone, Debug, Default)]
pub struct FarTable {
    slots: Vec<Option<SendTimes>>,
}

impl FarTable {
    fn put(&mut self, slot: Option<u32>, t: SendTimes) -> u32 {
        let i = match slot {
            Some(i) => i as usize,
            None => match self.slots.iter().position(Option::is_none) {
                Some(i) => i,
                None => {
                    self.slots.push(None);
                    self.slots.len() - 1
                }
            },
        };
        self.slots[i] = Some(t);
        i as u32
    }

    #[cold]
    #[inline(never)]
    fn get(&self, slot: u32) -> SendTimes {
        self.slots[slot as usize].expect("far slot in use")
    }

    /// Out of line like `get`: inlined into the release loop, its slots' pointer and
    /// length were loaded on every cumulative ACK (hoisted out of the loop), a line of
    /// the sender no other per-ACK work reads.
    #[cold]
    #[inline(never)]
    fn free(&mut self, slot: u32) {
        self.slots[slot as usize] = None;
    }

    /// Slots in use (tests).
    pub fn in_use(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }
}

impl SentRecord {
    #[inline]
    fn set_flag(&mut self, flag: u8, on: bool) {
        if on {
            self.flags |= flag;
        } else {
            self.flags &= !flag;
        }
    }

    /// A record of `len` bytes sent once at `sent_time`, its other times equal to it and
    /// nothing delivered before (new segments before [`SentRecord::store`]; tests).
    #[inline]
    pub fn new(len: u32, sent_time: Time) -> Self {
        SentRecord {
            sent_time,
            len,
            tx_count: 1,
            ..SentRecord::default()
        }
    }

    /// Last (re)transmission time.
    #[inline]
    pub fn sent_time(&self) -> Time {
        self.sent_time
    }

    /// Stores a transmission at `sent_time` with `t`, compactly when every offset fits, else
    /// in a far slot (reusing the record's own when it has one). Offsets are taken modulo
    /// 2^64 (and added back the same way), so a fitting offset always reads back exactly;
    /// one test of the combined high bits decides, with no branch per field.
    #[inline]
    pub fn store(&mut self, far: &mut FarTable, sent_time: Time, t: SendTimes) {
        let s = sent_time.0;
        let o = s.wrapping_sub(t.orig_sent_time.0);
        let d = s.wrapping_sub(t.delivered_time.0);
        let f = s.wrapping_sub(t.first_sent_time.0);
        let slot = (self.flags & FAR != 0).then_some(self.orig_back);
        self.sent_time = sent_time;
        if ((o | d | f) >> 32 | t.delivered >> 48) != 0 || slot.is_some() {
            return self.store_far(far, slot, t);
        }
        self.orig_back = o as u32;
        self.delivered_back = d as u32;
        self.first_back = f as u32;
        self.delivered_lo = t.delivered as u32;
        self.delivered_hi = (t.delivered >> 32) as u16;
    }

    /// The rare path of [`SentRecord::store`]: a record that does not fit, or that held a
    /// far slot (stored compactly again if it now fits, freeing the slot).
    #[cold]
    #[inline(never)]
    fn store_far(&mut self, far: &mut FarTable, slot: Option<u32>, t: SendTimes) {
        let s = self.sent_time.0;
        let (o, d, f) = (
            s.wrapping_sub(t.orig_sent_time.0),
            s.wrapping_sub(t.delivered_time.0),
            s.wrapping_sub(t.first_sent_time.0),
        );
        if ((o | d | f) >> 32 | t.delivered >> 48) == 0 {
            if let Some(i) = slot {
                far.free(i);
            }
            self.flags &= !FAR;
            self.orig_back = o as u32;
            self.delivered_back = d as u32;
            self.first_back = f as u32;
            self.delivered_lo = t.delivered as u32;
            self.delivered_hi = (t.delivered >> 32) as u16;
        } else {
            self.orig_back = far.put(slot, t);
            self.flags |= FAR;
        }
    }

    /// The first transmission's time alone (cheaper than [`SentRecord::times`]).
    #[inline]
    pub fn orig_sent_time(&self, far: &FarTable) -> Time {
        if self.flags & FAR != 0 {
            return far.get(self.orig_back).orig_sent_time;
        }
        Time(self.sent_time.0.wrapping_sub(self.orig_back as u64))
    }

    /// A new segment's record: `len` bytes sent once at `sent_time` (its first
    /// transmission) with the rate state `t` (its `orig_sent_time` ignored).
    #[inline]
    pub fn first(
        len: u32,
        sent_time: Time,
        t: SendTimes,
        app_limited: bool,
        far: &mut FarTable,
    ) -> Self {
        let s = sent_time.0;
        let d = s.wrapping_sub(t.delivered_time.0);
        let f = s.wrapping_sub(t.first_sent_time.0);
        let flags = if app_limited { APP_LIMITED } else { 0 };
        if ((d | f) >> 32 | t.delivered >> 48) != 0 {
            return Self::first_far(len, sent_time, t, flags, far);
        }
        SentRecord {
            sent_time,
            len,
            orig_back: 0,
            delivered_back: d as u32,
            first_back: f as u32,
            delivered_lo: t.delivered as u32,
            delivered_hi: (t.delivered >> 32) as u16,
            tx_count: 1,
            flags,
        }
    }

    /// The rare path of [`SentRecord::first`] (kept apart so the common record is built
    /// in place, not through the stack).
    #[cold]
    #[inline(never)]
    fn first_far(len: u32, sent_time: Time, t: SendTimes, flags: u8, far: &mut FarTable) -> Self {
        let mut r = SentRecord {
            sent_time,
            len,
            tx_count: 1,
            flags,
            ..SentRecord::default()
        };
        let t = SendTimes {
            orig_sent_time: sent_time,
            ..t
        };
        r.store_far(far, None, t);
        r
    }

    /// The first transmission time, the delivery-rate times and the delivered count, exact.
    #[inline(always)]
    pub fn times(&self, far: &FarTable) -> SendTimes {
        if self.flags & FAR != 0 {
            return far.get(self.orig_back);
        }
        let s = self.sent_time.0;
        SendTimes {
            orig_sent_time: Time(s.wrapping_sub(self.orig_back as u64)),
            delivered_time: Time(s.wrapping_sub(self.delivered_back as u64)),
            first_sent_time: Time(s.wrapping_sub(self.first_back as u64)),
            delivered: self.delivered_lo as u64 | (self.delivered_hi as u64) << 32,
        }
    }

    /// Reported received by a SACK block.
    #[inline]
    pub fn sacked(&self) -> bool {
        self.flags & SACKED != 0
    }

    #[inline]
    pub fn set_sacked(&mut self, on: bool) {
        self.set_flag(SACKED, on);
    }

    /// Considered lost (RFC 6675 IsLost or timeout) and not retransmitted since.
    #[inline]
    pub fn lost(&self) -> bool {
        self.flags & LOST != 0
    }

    #[inline]
    pub fn set_lost(&mut self, on: bool) {
        self.set_flag(LOST, on);
        if on {
            self.set_flag(WAS_LOST, true);
        }
    }

    /// Marked lost at some time (ns-3's `m_lost`, which a retransmission keeps).
    pub fn was_lost(&self) -> bool {
        self.flags & WAS_LOST != 0
    }

    /// Sent while the connection was application-limited.
    #[inline]
    pub fn app_limited(&self) -> bool {
        self.flags & APP_LIMITED != 0
    }

    #[inline]
    pub fn set_app_limited(&mut self, on: bool) {
        self.set_flag(APP_LIMITED, on);
    }

    /// Already counted as delivered for rate sampling (by SACK before the cumulative ACK).
    #[inline]
    pub fn counted(&self) -> bool {
        self.flags & COUNTED != 0
    }

    #[inline]
    pub fn set_counted(&mut self, on: bool) {
        self.set_flag(COUNTED, on);
    }
}

/// The records of segments `[base, base + len)`.
#[derive(Clone, Debug, Default)]
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
    /// `f` also gets the far table, to read the record's times; the released records'
    /// far slots are freed.
    #[inline]
    pub fn release_below(
        &mut self,
        idx: u64,
        far: &mut FarTable,
        mut f: impl FnMut(u64, &SentRecord, &FarTable),
    ) {
        while self.base < idx {
            match self.q.pop_front() {
                Some(r) => {
                    f(self.base, &r, far);
                    if r.flags & FAR != 0 {
                        far.free(r.orig_back);
                    }
                }
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
    use super::*;

    #[test]
    fn a_record_is_32_bytes_and_its_flags_are_independent() {
        // 48 bytes with five absolute 64-bit values.
        assert_eq!(std::mem::size_of::<SentRecord>(), 32);
        let mut r = SentRecord::default();
        r.set_app_limited(true);
        r.set_counted(true);
        r.set_sacked(true);
        r.set_app_limited(false);
        assert!(!r.app_limited() && r.counted() && r.sacked() && !r.lost());
        r.set_counted(false);
        r.set_lost(true);
        r.set_app_limited(true);
        assert!(r.app_limited() && !r.counted() && r.sacked() && r.lost());
    }

    /// Times far apart (and beyond 32-bit offsets in both directions) and huge delivered
    /// counts read back exactly, through store, resend and release.
    #[test]
    fn far_apart_times_read_back_exactly() {
        let mut recs = Records::default();
        let mut far = FarTable::default();
        let cases = [
            (
                Time(5),
                SendTimes {
                    orig_sent_time: Time(5),
                    delivered_time: Time(3),
                    first_sent_time: Time(1),
                    delivered: 7,
                },
            ),
            (
                Time(10_000_000_000),
                SendTimes {
                    orig_sent_time: Time(1),
                    delivered_time: Time(9_999_999_999),
                    first_sent_time: Time(5_000_000_000),
                    delivered: 1 << 40,
                },
            ),
            (
                Time(u32::MAX as u64),
                SendTimes {
                    orig_sent_time: Time(0),
                    delivered_time: Time(1),
                    first_sent_time: Time(0),
                    delivered: (1 << 48) - 1,
                },
            ),
            (
                Time(20),
                SendTimes {
                    orig_sent_time: Time(20),
                    delivered_time: Time(20),
                    first_sent_time: Time(20),
                    delivered: 1 << 48,
                },
            ),
            // A later time than the send (not produced by the sender; still exact).
            (
                Time(20),
                SendTimes {
                    orig_sent_time: Time(21),
                    delivered_time: Time(20),
                    first_sent_time: Time(20),
                    delivered: 0,
                },
            ),
            (
                Time(u64::MAX),
                SendTimes {
                    orig_sent_time: Time(0),
                    delivered_time: Time(u64::MAX),
                    first_sent_time: Time(u64::MAX - u32::MAX as u64),
                    delivered: u64::MAX,
                },
            ),
        ];
        for (i, (sent, t)) in cases.iter().enumerate() {
            let mut r = SentRecord::new(1000, Time::ZERO);
            r.store(&mut far, *sent, *t);
            r.set_lost(i % 2 == 0);
            recs.push(i as u64, r);
        }
        assert_eq!(far.in_use(), 4);
        for (i, (sent, t)) in cases.iter().enumerate() {
            let r = recs.get(i as u64).unwrap();
            assert_eq!((r.sent_time(), r.times(&far)), (*sent, *t));
            assert_eq!((r.len, r.tx_count, r.lost()), (1000, 1, i % 2 == 0));
        }
        // Resending compactly frees the slot; resending far again reuses one.
        let r = recs.get_mut(1).unwrap();
        let near = SendTimes {
            orig_sent_time: Time(1),
            delivered_time: Time(2),
            first_sent_time: Time(3),
            delivered: 4,
        };
        r.store(&mut far, Time(4), near);
        assert_eq!(r.times(&far), near);
        assert_eq!(far.in_use(), 3);
        let r = recs.get_mut(0).unwrap();
        r.store(&mut far, cases[1].0, cases[1].1);
        assert_eq!((r.sent_time(), r.times(&far)), cases[1]);
        assert_eq!(far.in_use(), 4);
        let mut seen = Vec::new();
        recs.release_below(6, &mut far, |i, r, far| {
            seen.push((i, r.sent_time(), r.times(far)))
        });
        assert_eq!(seen[0], (0, cases[1].0, cases[1].1));
        assert_eq!(seen[1], (1, Time(4), near));
        for i in 2..6 {
            assert_eq!(seen[i], (i as u64, cases[i].0, cases[i].1));
        }
        assert_eq!(far.in_use(), 0);
    }
}
