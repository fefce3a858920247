//! Linux's timer granularity (`timer_hz`): the kernel arms TCP's retransmission timer
//! (RTO, tail loss probe, RACK's reordering timeout: one `icsk_retransmit_timer`) in
//! jiffies, and the timer wheel fires it on a tick of its level's granularity.
//!
//! - A timeout is converted with `usecs_to_jiffies`, which rounds up
//!   (include/linux/jiffies.h), and the RTO is kept in jiffies: `__tcp_set_rto` converts
//!   SRTT + rttvar, and a backoff doubles the jiffies (`inet_csk_rto_backoff`,
//!   include/net/inet_connection_sock.h), capped at the maximum.
//! - `inet_csk_reset_xmit_timer` arms it at `jiffies + when`; `calc_wheel_index`
//!   (kernel/time/timer.c) puts a timer `delta` jiffies ahead on level 0 if
//!   `delta < LVL_START(1)` = 63, level 1 below 504, level n below 63·8^(n-1)
//!   (`LVL_START(n) = (LVL_SIZE - 1) << ((n - 1) * LVL_CLK_SHIFT)`, 64 buckets, 8×
//!   coarser per level), and `calc_index` rounds its expiry up to the next multiple of
//!   the level's granularity, strictly after it: `((expires >> LVL_SHIFT(lvl)) + 1) <<
//!   LVL_SHIFT(lvl)` ("the timer wheel has to guarantee that a timer does not fire
//!   early"). So at HZ = 250 a 264 ms RTO (66 jiffies, level 1) fires 268–296 ms later.
//!
//! Jiffies count from time zero of the run (a real kernel's tick phase and jiffies
//! value are arbitrary; this fixes them so that runs stay deterministic). `hz = 0`
//! means exact timers (tcplab's default).

use tcplab_core::{Dur, Time};

/// `LVL_CLK_SHIFT`: each level of the wheel is 8 times coarser.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: the last bucket of a level (64 buckets).
const LVL_LAST: u64 = 63;
/// `LVL_DEPTH` for HZ > 100: timeouts beyond the last level are capped there.
const LVL_DEPTH: u32 = 9;

/// One jiffy at `hz` ticks per second.
fn jiffy(hz: u32) -> u64 {
    1_000_000_000 / hz as u64
}

/// `usecs_to_jiffies`: whole jiffies, rounded up.
pub fn to_jiffies(hz: u32, d: Dur) -> u64 {
    d.0.div_ceil(jiffy(hz))
}

/// When a timer armed at `now` for `jiffies` jiffies fires on the timer wheel.
pub fn fires_at(hz: u32, now: Time, jiffies: u64) -> Time {
    let j = jiffy(hz);
    let expires = now.0 / j + jiffies;
    let mut lvl = 0;
    while lvl + 1 < LVL_DEPTH && jiffies >= LVL_LAST << (lvl * LVL_CLK_SHIFT) {
        lvl += 1;
    }
    let shift = lvl * LVL_CLK_SHIFT;
    let bucket = ((expires >> shift) + 1) << shift;
    Time(bucket.saturating_mul(j))
}

/// When a timer armed at `now` for `timeout` fires: at `now + timeout` with `hz = 0`,
/// else in whole jiffies on the wheel.
pub fn expiry(hz: u32, now: Time, timeout: Dur) -> Time {
    if hz == 0 {
        return now + timeout;
    }
    fires_at(hz, now, to_jiffies(hz, timeout))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn exact_without_hz() {
        assert_eq!(expiry(0, Time(5), Dur(7)), Time(12));
    }

    /// Level 0 (under 63 jiffies): the expiry jiffy plus one.
    #[test]
    fn level_zero_fires_one_tick_after_the_expiry_jiffy() {
        // At 1 ms into jiffy 0, 40 ms = 10 jiffies: expires at jiffy 10, fires at 11.
        assert_eq!(expiry(250, Time(MS), Dur(40 * MS)), Time(44 * MS));
        // 41 ms rounds up to 11 jiffies.
        assert_eq!(expiry(250, Time(MS), Dur(41 * MS)), Time(48 * MS));
        assert_eq!(to_jiffies(250, Dur(MS)), 1);
        assert_eq!(to_jiffies(1000, Dur(MS)), 1);
    }

    /// Level 1 (63 to 503 jiffies): rounded up to the next multiple of 8 jiffies.
    #[test]
    fn level_one_rounds_to_eight_jiffies() {
        // 66 jiffies from jiffy 500: expires 566, bucket 568 (2.272 s).
        assert_eq!(fires_at(250, Time(500 * 4 * MS), 66), Time(568 * 4 * MS));
        // A multiple of 8 still moves to the next one (never early).
        assert_eq!(
            fires_at(250, Time(502 * 4 * MS), 62 + 4),
            Time(576 * 4 * MS)
        );
        // Level 2 (504 jiffies and more): multiples of 64.
        assert_eq!(fires_at(250, Time(0), 504), Time(512 * 4 * MS));
        assert_eq!(fires_at(250, Time(0), 512), Time(576 * 4 * MS));
    }
}
