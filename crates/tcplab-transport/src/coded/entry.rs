//! When each segment entered the sender's coding layer, for the sink's end-to-end latency
//! (seed 004, Fig. 8: "encoding delay, transfer delay ... and decoding delay").
//!
//! A measurement probe, not protocol state: the sink reads it only to report latency and
//! never decides anything from it (a real receiver could not). Both ends hold one; the
//! source appends segments in order as they enter, the sink forgets those it has delivered
//! in order, so it holds about one window of times.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tcplab_core::Time;

#[derive(Debug, Default)]
struct Log {
    base: u32,
    at: VecDeque<Time>,
}

/// The shared entry times of one flow (cheap to clone: both ends hold one).
#[derive(Clone, Debug, Default)]
pub struct EntryLog(Arc<Mutex<Log>>);

impl EntryLog {
    pub fn new() -> EntryLog {
        EntryLog::default()
    }

    /// Segment `index` entered the coding layer at `now` (segments enter in order; a
    /// segment already logged keeps its first time).
    pub fn entered(&self, index: u32, now: Time) {
        let mut log = self.0.lock().expect("entry log poisoned");
        let next = log.base + log.at.len() as u32;
        if index == next {
            log.at.push_back(now);
        }
    }

    /// When segment `index` entered, if it is still held.
    pub fn of(&self, index: u32) -> Option<Time> {
        let log = self.0.lock().expect("entry log poisoned");
        index
            .checked_sub(log.base)
            .and_then(|o| log.at.get(o as usize).copied())
    }

    /// Forgets segments below `b`.
    pub fn forget_below(&self, b: u32) {
        let mut log = self.0.lock().expect("entry log poisoned");
        while log.base < b && !log.at.is_empty() {
            log.at.pop_front();
            log.base += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_entries_in_order_and_forgets_delivered() {
        let log = EntryLog::new();
        let sink = log.clone();
        log.entered(0, Time(10));
        log.entered(1, Time(20));
        log.entered(1, Time(99));
        log.entered(5, Time(30));
        assert_eq!(sink.of(1), Some(Time(20)), "first time kept");
        assert_eq!(sink.of(5), None, "out-of-order entry ignored");
        sink.forget_below(1);
        assert_eq!(sink.of(0), None);
        assert_eq!(sink.of(1), Some(Time(20)));
    }
}
