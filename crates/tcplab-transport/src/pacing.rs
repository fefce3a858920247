//! Pacing: packets leave at most at the controller's pacing rate, except that a send
//! quantum of them may leave back to back. Transport-neutral: any sender that asks a
//! controller for `pacing_rate` and `send_quantum` can use it.
//!
//! How a quantum leaves is the [`Bursts`] mode: `Slack` (the default) lets a packet go up
//! to (quantum − 1) packet times before its slot, so a quantum leaves at once after an
//! idle period and packets then follow one slot apart; `Tso` sends each quantum as one
//! burst and waits the quantum's transmission time, as Linux sends a TSO/GSO packet of
//! `tcp_tso_autosize()` segments (net/ipv4/tcp_output.c: about 1 ms of the pacing rate,
//! `sk_pacing_rate >> sk_pacing_shift` with shift 10, at most `gso_max_size` = 64 KB, at
//! least `tcp_min_tso_segs` = 2; BBR's quantum, `cc/bbr.rs`, is the same) and the fq
//! qdisc or TCP's internal pacing releases the next one `len / pacing_rate` later
//! (`tcp_update_skb_after_send`); `Off` sends one packet per slot (TSO and GSO off).

use tcplab_core::{Dur, Time};

/// How a send quantum leaves (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Bursts {
    #[default]
    Slack,
    Tso,
    Off,
}

/// The pacing slot of the next packet.
#[derive(Clone, Debug)]
pub struct Pacer {
    /// Largest packet on the wire, in bytes: a quantum of them may leave early. (The
    /// fields fit 24 bytes: the TCP sender keeps the pacer in its first cache line.)
    packet_bytes: u32,
    next_send_at: Time,
    /// The last send attempt was held back by pacing alone: only then is the slot a
    /// wake-up (a window-limited sender waits for ACKs, and a pacing slot in the past
    /// would make the driver spin).
    waiting: bool,
    bursts: Bursts,
    /// `Tso`: packets left of the burst that started at `burst_at`.
    burst_left: u16,
    burst_at: Time,
}

impl Pacer {
    /// A pacer for packets of at most `packet_bytes` on the wire.
    pub fn new(packet_bytes: u64) -> Pacer {
        Pacer {
            packet_bytes: packet_bytes.min(u32::MAX as u64) as u32,
            next_send_at: Time::ZERO,
            waiting: false,
            bursts: Bursts::Slack,
            burst_left: 0,
            burst_at: Time::ZERO,
        }
    }

    /// The same pacer with quanta leaving as `bursts` says.
    pub fn with_bursts(self, bursts: Bursts) -> Pacer {
        Pacer { bursts, ..self }
    }

    /// The first packet may leave at `now`.
    pub fn start(&mut self, now: Time) {
        self.next_send_at = now;
    }

    /// A new send attempt begins: an earlier refusal no longer stands.
    pub fn begin_attempt(&mut self) {
        self.waiting = false;
    }

    /// Whether pacing at `rate` (bytes/s; `None`: not paced) holds a packet back at `now`.
    /// A send may come up to (quantum − 1) packet times before its slot.
    /// With `Tso` bursts a quantum leaves at one instant once its slot has come.
    pub fn holds(&mut self, now: Time, rate: Option<u64>, quantum: u32) -> bool {
        let Some(rate) = rate else { return false };
        let held = match self.bursts {
            Bursts::Tso => {
                if self.burst_left > 0 && now == self.burst_at {
                    return false;
                }
                let held = now < self.next_send_at;
                if !held {
                    self.burst_at = now;
                    self.burst_left = quantum.clamp(1, u16::MAX as u32) as u16;
                }
                held
            }
            _ => now + self.slack(rate, quantum) < self.next_send_at,
        };
        self.waiting |= held;
        held
    }

    /// A packet of `wire_bytes` left at `now`: the next slot is one transmission time of it
    /// at `rate` later (from now, or from the previous slot if that is still ahead).
    pub fn on_sent(&mut self, now: Time, wire_bytes: u64, rate: Option<u64>) {
        if let Some(rate) = rate {
            let gap = Dur::transmission(wire_bytes, rate.saturating_mul(8));
            self.next_send_at = self.next_send_at.max(now) + gap;
            self.burst_left = self.burst_left.saturating_sub(1);
        }
    }

    /// A segment was refused since the last attempt began ([`wakeup`](Self::wakeup) is
    /// `None` otherwise).
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }

    /// When to try again, if the last attempt was held back by pacing.
    pub fn wakeup(&self, rate: Option<u64>, quantum: u32) -> Option<Time> {
        if !self.waiting {
            return None;
        }
        let slack = rate.map_or(Dur::ZERO, |r| self.slack(r, quantum));
        Some(Time(
            self.next_send_at
                .as_nanos()
                .saturating_sub(slack.as_nanos()),
        ))
    }

    fn slack(&self, rate: u64, quantum: u32) -> Dur {
        let q = quantum as u64;
        if q <= 1 || self.bursts != Bursts::Slack {
            return Dur::ZERO;
        }
        Dur::transmission((q - 1) * self.packet_bytes as u64, rate.saturating_mul(8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// 1250-byte packets at 1.25 MB/s (10 Mbit/s) are 1 ms apart; slots accumulate from
    /// the previous slot while it is ahead, and restart from `now` after an idle period.
    #[test]
    fn slots_are_one_transmission_time_apart() {
        let mut p = Pacer::new(1250);
        let rate = Some(1_250_000);
        p.start(Time(0));
        assert!(!p.holds(Time(0), rate, 1));
        p.on_sent(Time(0), 1250, rate);
        p.on_sent(Time(0), 1250, rate);
        assert!(p.holds(Time(MS), rate, 1), "second slot ends at 2 ms");
        assert_eq!(p.wakeup(rate, 1), Some(Time(2 * MS)));
        p.begin_attempt();
        assert_eq!(p.wakeup(rate, 1), None, "no wake-up without a refusal");
        assert!(!p.holds(Time(2 * MS), rate, 1));
        p.on_sent(Time(10 * MS), 1250, rate);
        assert!(p.holds(Time(10 * MS), rate, 1));
        assert_eq!(p.wakeup(rate, 1), Some(Time(11 * MS)), "idle: from now");
    }

    /// A quantum of q packets may leave (q − 1) packet times before the slot.
    #[test]
    fn quantum_lets_packets_leave_early() {
        let mut p = Pacer::new(1250);
        let rate = Some(1_250_000);
        for _ in 0..4 {
            p.on_sent(Time(0), 1250, rate);
        }
        // Slot at 4 ms; quantum 3 gives 2 ms of slack.
        assert!(p.holds(Time(MS), rate, 3));
        assert_eq!(p.wakeup(rate, 3), Some(Time(2 * MS)));
        assert!(!p.holds(Time(2 * MS), rate, 3));
        assert!(!p.holds(Time(0), None, 1), "unpaced: never held");
    }

    /// `Tso`: a quantum of 4 leaves at one instant, then nothing until the four packets'
    /// transmission time has passed (Linux's TSO packet and its pacing gap); `Off`: one
    /// packet per slot however large the quantum; `Slack` in steady state: one per slot,
    /// (q − 1) packet times early.
    #[test]
    fn tso_sends_each_quantum_as_one_burst() {
        let rate = Some(1_250_000);
        let sent_at = |bursts: Bursts| {
            let mut p = Pacer::new(1250).with_bursts(bursts);
            let mut times = vec![];
            let mut now = Time(0);
            while times.len() < 12 {
                p.begin_attempt();
                if p.holds(now, rate, 4) {
                    now = p.wakeup(rate, 4).unwrap();
                    continue;
                }
                p.on_sent(now, 1250, rate);
                times.push(now.as_nanos() / MS);
            }
            times
        };
        assert_eq!(sent_at(Bursts::Tso), [0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8]);
        assert_eq!(sent_at(Bursts::Off), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(sent_at(Bursts::Slack), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }
}
