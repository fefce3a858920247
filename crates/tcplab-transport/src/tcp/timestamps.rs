//! RFC 7323 timestamps: the TSval clock, modular comparison, and the receiver's choice of
//! what to echo (TS.Recent, section 4.3).
//!
//! The clock ticks every microsecond ([`TICK`]). RFC 7323 section 5.4 asks for 1 ms to
//! 1 s per tick so that PAWS cannot be fooled by a wrapped clock; the model's 64-bit
//! sequence numbers never wrap and it applies no PAWS, while a coarse tick would turn
//! every timestamp RTT sample on a short path into a multiple of 1 ms. A 32-bit
//! microsecond clock wraps after 71 minutes; all arithmetic is modulo 2^32.

use tcplab_core::{Dur, Time};

/// One TSval tick.
pub const TICK: Dur = Dur::from_micros(1);

/// The TSval of an endpoint's clock at `now`.
pub fn tsval(now: Time) -> u32 {
    (now.0 / TICK.0) as u32
}

/// Time since the segment whose TSval is echoed in `ecr` was sent (RFC 7323 section 4.1:
/// RTT = now − TSecr).
pub fn elapsed_since(now: Time, ecr: u32) -> Dur {
    Dur(tsval(now).wrapping_sub(ecr) as u64 * TICK.0)
}

/// `a` is earlier than `b` modulo 2^32 (RFC 7323 section 5.2's comparison).
pub fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// The receiver's echo state (RFC 7323 section 4.3): TS.Recent and Last.ACK.sent.
#[derive(Clone, Copy, Debug, Default)]
pub struct TsRecent {
    recent: Option<u32>,
    last_ack_sent: u64,
}

impl TsRecent {
    /// Rule 2: a segment whose TSval is not older than TS.Recent and that starts at or
    /// below Last.ACK.sent updates TS.Recent. With delayed ACKs the first segment of the
    /// pair is echoed (the RTT includes the ACK delay, as the RFC intends); out-of-order
    /// segments do not update it, so the ACK that a retransmission triggers by filling
    /// the hole echoes the retransmission.
    pub fn on_segment(&mut self, seq: u64, tsval: u32) {
        if seq <= self.last_ack_sent && self.recent.is_none_or(|r| !before(tsval, r)) {
            self.recent = Some(tsval);
        }
    }

    /// Rule 3: an ACK for `ack` leaves now; its TSecr.
    pub fn on_ack_sent(&mut self, ack: u64) -> u32 {
        self.last_ack_sent = ack;
        self.recent.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modular comparison and elapsed time across the 2^32 wrap.
    #[test]
    fn clock_wraps_modulo_2_32() {
        assert!(before(u32::MAX, 1) && !before(1, u32::MAX) && !before(5, 5));
        let t = Time((1u64 << 32) * 1000 - 500_000); // 500 µs before the wrap
        let later = t + Dur::from_millis(2);
        assert!(tsval(later) < tsval(t));
        assert_eq!(elapsed_since(later, tsval(t)), Dur::from_millis(2));
    }

    /// RFC 7323 section 4.3: in-order segments at Last.ACK.sent update TS.Recent, the
    /// second of a delayed-ACK pair and out-of-order ones do not, nor an older TSval.
    #[test]
    fn ts_recent_follows_section_4_3() {
        let mut r = TsRecent::default();
        r.on_segment(0, 10);
        r.on_segment(1000, 20); // second of a pair: above Last.ACK.sent = 0
        assert_eq!(r.on_ack_sent(2000), 10);
        r.on_segment(3000, 30); // out of order: hole at 2000
        assert_eq!(r.on_ack_sent(2000), 10);
        r.on_segment(2000, 40); // the retransmission fills the hole
        assert_eq!(r.on_ack_sent(4000), 40);
        r.on_segment(4000, 35); // older TSval: not taken
        assert_eq!(r.on_ack_sent(5000), 40);
    }
}
