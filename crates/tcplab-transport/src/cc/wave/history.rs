//! The bursts sent and not yet fully acknowledged, oldest first.
//!
//! A round ends when the ACKed bytes reach the head burst's size (Linux v0.1/v0.2 keep
//! the same list). The ring is pre-sized so the per-ACK path does not allocate; it only
//! grows if more bursts are outstanding than it was sized for (RTT ≫ TxTime).

use std::collections::VecDeque;

/// One burst: how many segments and bytes left when the timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Burst {
    pub segments: u32,
    pub bytes: u64,
}

#[derive(Clone, Debug)]
pub struct History {
    q: VecDeque<Burst>,
}

impl History {
    pub fn new() -> History {
        History {
            q: VecDeque::with_capacity(512),
        }
    }

    pub fn push(&mut self, b: Burst) {
        self.q.push_back(b);
    }

    pub fn head(&self) -> Option<Burst> {
        self.q.front().copied()
    }

    pub fn pop(&mut self) {
        self.q.pop_front();
    }

    pub fn clear(&mut self) {
        self.q.clear();
    }
}
