//! When each segment entered the sender's coding layer, as the sink learns it from the
//! symbols' headers, for the end-to-end latency (seed 004, Fig. 8: "encoding delay,
//! transfer delay ... and decoding delay").
//!
//! Every symbol carries the newest segment that has entered the sender's coding layer
//! and when (`Symbol::newest`, `Symbol::entered`), as TACK's data carries its send time.
//! Segments enter in order, often several at one instant (a window opening), so a sink
//! that hears "segment n entered at t" gives t to every segment up to n it has no time
//! for yet. That is each segment's own time whenever some symbol sent after its batch
//! entered arrives before a later batch's; otherwise it takes the later batch's time
//! (its latency is then understated by the gap). A measurement probe, not protocol
//! state: nothing is decided from it. The sink forgets segments it has delivered in
//! order, so it holds about one window of times.

use std::collections::VecDeque;
use tcplab_core::Time;

/// Announcements further than this past the oldest segment held are ignored: no sender
/// has that many segments in its coding layer (TCP/NC's and TCP-Forward's buffers are
/// at most 32,768), and a forged header cannot make the log grow past it (512 KiB).
const REACH: u64 = 1 << 16;

/// The sink's entry times (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct EntryLog {
    base: u32,
    at: VecDeque<Time>,
}

impl EntryLog {
    pub fn new() -> EntryLog {
        EntryLog::default()
    }

    /// A symbol says segment `newest` entered at `at`: every segment up to it without
    /// a time yet gets this one.
    pub fn learn(&mut self, newest: u32, at: Time) {
        let end = u64::from(newest) + 1;
        if end - u64::from(self.base).min(end) > REACH {
            return;
        }
        while u64::from(self.base) + (self.at.len() as u64) < end {
            self.at.push_back(at);
        }
    }

    /// When segment `index` entered, if it is known and still held.
    pub fn of(&self, index: u32) -> Option<Time> {
        index
            .checked_sub(self.base)
            .and_then(|o| self.at.get(o as usize).copied())
    }

    /// Forgets segments below `b`.
    pub fn forget_below(&mut self, b: u32) {
        while self.base < b && !self.at.is_empty() {
            self.at.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_takes_the_time_announced_for_its_newest_segment() {
        let mut log = EntryLog::new();
        log.learn(2, Time(10));
        log.learn(1, Time(99));
        log.learn(4, Time(30));
        assert_eq!(log.of(0), Some(Time(10)));
        assert_eq!(log.of(2), Some(Time(10)), "first time kept");
        assert_eq!(log.of(3), Some(Time(30)));
        assert_eq!(log.of(5), None, "not announced yet");
        log.forget_below(3);
        assert_eq!(log.of(2), None);
        assert_eq!(log.of(4), Some(Time(30)));
        // A jump past what is held starts from the new base.
        log.forget_below(10);
        log.learn(11, Time(50));
        assert_eq!(log.of(10), Some(Time(50)));
        assert_eq!(log.of(9), None);
        log.learn(10 + (1 << 20), Time(60));
        assert_eq!(
            log.of(12),
            None,
            "a forged announcement far ahead is ignored"
        );
    }
}
