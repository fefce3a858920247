//! ACK-train detection: which ACKs belong to which burst, and the train's dispersion.
//!
//! Follows Linux v0.2 (`wavetcp_cong_control` / `wavetcp_end_round`):
//! - the first ACK after a round starts the train (`first_ack`, one aligned ACK);
//! - an ACK whose RTT is ≥ the previous sample is *aligned*: it extends the train;
//! - an ACK with a smaller RTT means the earlier ACKs were stragglers of the previous
//!   burst: the round restarts at this ACK (its bytes count, the stragglers' do not);
//! - the round ends when the ACKed bytes reach the head burst's size; a cumulative ACK
//!   may end several rounds, and an end-of-round ACK with a smaller RTT starts the next.
//!
//! Bytes stand in for Linux's segment counts so a short final segment still ends a round.

use super::history::{Burst, History};
use super::rtt::RttStats;
use tcplab_core::{Dur, Time};

/// What a finished round measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    pub burst: Burst,
    pub first_ack: Option<Time>,
    pub last_ack: Time,
    /// Aligned ACKs received in the round (the first one included).
    pub aligned: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Train {
    acked: u64,
    /// Bytes ACKed before this round's first ACK (restored when the round restarts).
    backup_acked: u64,
    first_ack: Option<Time>,
    last_ack: Time,
    aligned: u32,
}

fn aligned(r: Option<Dur>, prev: Option<Dur>) -> bool {
    // Linux compares a signed sample (−1 when absent) with the previous one.
    matches!((r, prev), (Some(r), Some(p)) if r >= p) || matches!((r, prev), (Some(_), None))
}

impl Train {
    /// Processes one ACK that delivered `bytes` (cumulatively or by SACK) with RTT `r`.
    /// Calls `end` for every round it completes, before the round state is reset.
    pub fn on_ack(
        &mut self,
        now: Time,
        bytes: u64,
        r: Option<Dur>,
        hist: &mut History,
        rtt: &mut RttStats,
        mut end: impl FnMut(&Round, &mut RttStats),
    ) {
        let Some(head) = hist.head() else { return };
        self.acked += bytes;
        if self.acked < head.bytes {
            if self.first_ack.is_none() {
                self.begin(now);
                self.aligned = 1;
                self.backup_acked = self.acked - bytes;
            } else if aligned(r, rtt.previous) {
                self.last_ack = now;
                self.aligned += 1;
            } else if r.is_some() {
                // The real beginning of the train.
                self.aligned = 1;
                self.acked = self.backup_acked + bytes;
                self.begin(now);
            }
            if let Some(r) = r {
                rtt.sample(r);
            }
            return;
        }
        // End of round.
        if self.first_ack.is_some() && aligned(r, rtt.previous) {
            self.aligned += 1;
            self.last_ack = now;
        }
        if rtt.first.is_none() {
            rtt.first = rtt.avg;
        }
        let round = Round {
            burst: head,
            first_ack: self.first_ack,
            last_ack: self.last_ack,
            aligned: self.aligned,
        };
        end(&round, rtt);
        while let Some(h) = hist.head() {
            if self.acked < h.bytes {
                break;
            }
            self.acked -= h.bytes;
            hist.pop();
        }
        self.first_ack = None;
        self.aligned = 0;
        rtt.first = None;
        match r {
            Some(r) if rtt.previous.is_some_and(|p| r < p) => {
                // This ACK already belongs to the next train.
                self.begin(now);
                rtt.sample(r);
                self.aligned = 1;
            }
            Some(r) => rtt.previous = Some(r),
            None => {}
        }
    }

    fn begin(&mut self, now: Time) {
        self.first_ack = Some(now);
        self.last_ack = now;
    }

    /// Forget the current train (after a timeout the ACKs no longer map to bursts).
    pub fn reset(&mut self) {
        *self = Train::default();
    }
}

/// ACK-train dispersion of a round (v0.2 `get_ack_train_disp`): with n aligned ACKs
/// spread over `last − first`, the train of the whole burst lasts `(last − first)·n/(n−1)`
/// (n ACKs span n − 1 gaps). A short burst is scaled up to the current burst size.
/// `None` when the train has fewer than two aligned ACKs or no spread.
pub fn dispersion(round: &Round, current_burst: u32) -> Option<Dur> {
    let first = round.first_ack?;
    if round.aligned <= 1 {
        return None;
    }
    let left = round.last_ack.saturating_since(first).0 as u128;
    let n = round.aligned as u128;
    let atd = if round.burst.segments == current_burst {
        left * n / (n - 1)
    } else {
        left * current_burst as u128 / round.burst.segments.max(1) as u128
    };
    (atd > 0).then_some(Dur(atd as u64))
}
