//! Pacing: spacing packets at a rate, with a send quantum that may leave back to back.
//!
//! After each send the next slot moves by the packet's serialisation time at the pacing
//! rate; a packet may leave up to (quantum − 1) full packets before its slot, so a sender
//! emits bursts of at most `quantum` packets (the Linux/BBR send quantum) and otherwise
//! an even stream. A transport asks [`Pacer::ready`] before sending and
//! [`Pacer::wake_at`] for its timer.

use tcplab_core::{Dur, Time};

/// When the next packet may leave (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    next: Time,
}

impl Pacer {
    /// How early a send may come: (quantum − 1) packets of `packet_bytes` at `rate` (bytes/s).
    fn slack(rate: u64, quantum: u32, packet_bytes: u32) -> Dur {
        if quantum <= 1 {
            return Dur::ZERO;
        }
        Dur::transmission(
            (quantum as u64 - 1) * packet_bytes as u64,
            rate.saturating_mul(8),
        )
    }

    /// Whether a packet may leave at `now`.
    pub fn ready(&self, now: Time, rate: u64, quantum: u32, packet_bytes: u32) -> bool {
        now + Self::slack(rate, quantum, packet_bytes) >= self.next
    }

    /// When a packet may leave (the wake-up to ask for after `ready` said no).
    pub fn wake_at(&self, rate: u64, quantum: u32, packet_bytes: u32) -> Time {
        self.next - Self::slack(rate, quantum, packet_bytes)
    }

    /// Accounts for a packet of `wire_bytes` sent at `now` at `rate` (bytes/s).
    pub fn on_send(&mut self, now: Time, wire_bytes: u32, rate: u64) {
        let gap = Dur::transmission(wire_bytes as u64, rate.saturating_mul(8));
        self.next = self.next.max(now) + gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1250 bytes at 10 Mbit/s take 1 ms: with quantum 1 the packets leave 1 ms apart,
    /// with quantum 3 three may leave at once, then one per millisecond.
    #[test]
    fn spaces_packets_and_allows_a_quantum() {
        let rate = 1_250_000; // bytes/s
        let mut p = Pacer::default();
        let t0 = Time::ZERO;
        assert!(p.ready(t0, rate, 1, 1250));
        p.on_send(t0, 1250, rate);
        assert!(!p.ready(t0, rate, 1, 1250));
        assert_eq!(p.wake_at(rate, 1, 1250), t0 + Dur::from_millis(1));
        let mut q = Pacer::default();
        let mut sent = 0;
        while q.ready(t0, rate, 3, 1250) {
            q.on_send(t0, 1250, rate);
            sent += 1;
        }
        assert_eq!(sent, 3);
        assert_eq!(q.wake_at(rate, 3, 1250), t0 + Dur::from_millis(1));
    }
}
