//! Work an endpoint's CPU finishes at known times (`cost.rs`), in CPU order: a source's
//! encoded symbols waiting to leave, a sink's ACKs and deliveries waiting to happen.
//! Both coded transports' ends hold one.

use std::collections::VecDeque;
use tcplab_core::Time;

/// Items in the order the CPU finishes them, each with its time.
#[derive(Clone, Debug)]
pub struct ReadyQueue<T> {
    q: VecDeque<(Time, T)>,
}

impl<T> Default for ReadyQueue<T> {
    fn default() -> Self {
        ReadyQueue { q: VecDeque::new() }
    }
}

impl<T: Copy> ReadyQueue<T> {
    /// `item` is ready at `at` (no earlier than the items before it: one CPU).
    pub fn push(&mut self, at: Time, item: T) {
        debug_assert!(self.q.back().is_none_or(|&(b, _)| b <= at), "CPU order");
        self.q.push_back((at, item));
    }

    /// The oldest item and its time, if the CPU has finished it by `now`.
    pub fn pop_ready(&mut self, now: Time) -> Option<(Time, T)> {
        let &(at, item) = self.q.front()?;
        if at > now {
            return None;
        }
        self.q.pop_front();
        Some((at, item))
    }

    /// When the oldest item is ready (the endpoint's wake-up).
    pub fn next_ready(&self) -> Option<Time> {
        self.q.front().map(|&(at, _)| at)
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// The earlier of two optional wake-ups.
pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_leave_in_order_once_ready() {
        let mut q = ReadyQueue::default();
        q.push(Time(5), 'a');
        q.push(Time(9), 'b');
        assert_eq!(q.next_ready(), Some(Time(5)));
        assert_eq!(q.pop_ready(Time(4)), None);
        assert_eq!(q.pop_ready(Time(9)), Some((Time(5), 'a')));
        assert_eq!(q.pop_ready(Time(9)), Some((Time(9), 'b')));
        assert!(q.is_empty());
        assert_eq!(earliest(Some(Time(3)), None), Some(Time(3)));
        assert_eq!(earliest(Some(Time(3)), Some(Time(2))), Some(Time(2)));
    }
}
