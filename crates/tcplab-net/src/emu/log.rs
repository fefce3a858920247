//! The emulator's per-packet log and its timing-error histogram.

use tcplab_core::Dur;

/// What happened to a packet at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// Read from a TUN device and offered to the link.
    Arrive,
    /// Written out at the far end.
    Depart,
    /// Dropped by the queue: full (a tail drop), or by its discipline (an AQM drop, at
    /// enqueue or at dequeue).
    DropQueue,
    /// Destroyed by the loss model.
    DropLoss,
    /// Offered while the link was down, or in flight when it went down (then the
    /// packet's size is not known to the driver and `bytes` is 0).
    DropDown,
    /// Writing it into the kernel failed.
    DropWrite,
}

impl PacketEvent {
    pub fn name(self) -> &'static str {
        match self {
            PacketEvent::Arrive => "arrive",
            PacketEvent::Depart => "depart",
            PacketEvent::DropQueue => "drop_queue",
            PacketEvent::DropLoss => "drop_loss",
            PacketEvent::DropDown => "drop_down",
            PacketEvent::DropWrite => "drop_write",
        }
    }
}

/// One row per packet event, in columns (Mahimahi's `+`, `-` and `d` lines, with the
/// direction and the timing error).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketLog {
    /// Wall-clock time since the emulator started, ns.
    pub t_ns: Vec<u64>,
    /// 0: forward (namespace → host), 1: reverse.
    pub direction: Vec<u8>,
    pub event: Vec<PacketEvent>,
    /// IP packet size.
    pub bytes: Vec<u32>,
    /// Departures: time spent in the emulator (departure − arrival), else 0.
    pub delay_ns: Vec<u64>,
    /// Departures: how much later than the link model's schedule the packet left, else 0.
    pub late_ns: Vec<u64>,
    /// The packet's IP ECN field at that event (a departure shows a CE mark the queue
    /// discipline set), [`ECN_UNKNOWN`] when the packet is not at hand.
    pub ecn: Vec<u8>,
}

/// The `ecn` of an event whose packet the driver does not hold (or not IP).
pub const ECN_UNKNOWN: u8 = 0xff;

/// The name of an `ecn` value (RFC 3168 section 5), `None` for [`ECN_UNKNOWN`].
pub fn ecn_name(e: u8) -> Option<&'static str> {
    ["not-ect", "ect1", "ect0", "ce"].get(e as usize).copied()
}

/// What the log records of a packet itself: its size and ECN field.
#[derive(Clone, Copy, Debug)]
pub struct PacketFacts {
    pub bytes: u32,
    pub ecn: u8,
}

impl PacketFacts {
    /// A packet the driver no longer holds (lost in flight when the link went down).
    pub const GONE: PacketFacts = PacketFacts {
        bytes: 0,
        ecn: ECN_UNKNOWN,
    };

    pub fn of(p: &[u8]) -> PacketFacts {
        PacketFacts {
            bytes: p.len() as u32,
            ecn: super::ip::ecn(p).unwrap_or(ECN_UNKNOWN),
        }
    }
}

impl PacketLog {
    pub fn push(
        &mut self,
        t: u64,
        dir: u8,
        ev: PacketEvent,
        p: PacketFacts,
        delay: u64,
        late: u64,
    ) {
        self.t_ns.push(t);
        self.direction.push(dir);
        self.event.push(ev);
        self.bytes.push(p.bytes);
        self.ecn.push(p.ecn);
        self.delay_ns.push(delay);
        self.late_ns.push(late);
    }

    pub fn len(&self) -> usize {
        self.t_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }
}

/// Departure lateness in 1 µs bins up to 100 ms (then one overflow bin): fixed memory,
/// exact to the microsecond for the percentiles that matter.
#[derive(Clone, Debug)]
pub struct LatenessHistogram {
    bins: Vec<u64>,
    count: u64,
    max_ns: u64,
}

const BINS: usize = 100_000;

impl Default for LatenessHistogram {
    fn default() -> Self {
        LatenessHistogram {
            bins: vec![0; BINS + 1],
            count: 0,
            max_ns: 0,
        }
    }
}

impl LatenessHistogram {
    #[inline]
    pub fn add(&mut self, late_ns: u64) {
        let b = ((late_ns / 1000) as usize).min(BINS);
        self.bins[b] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(late_ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> Dur {
        Dur(self.max_ns)
    }

    /// The `q`-quantile (0..=1), as the upper edge of its 1 µs bin; `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<Dur> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(if i == BINS {
                    Dur(self.max_ns)
                } else {
                    Dur::from_micros(i as u64 + 1).min(Dur(self.max_ns.max(1)))
                });
            }
        }
        Some(Dur(self.max_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_sample() {
        let mut h = LatenessHistogram::default();
        for us in 0..100u64 {
            h.add(us * 1000 + 500);
        }
        assert_eq!(h.quantile(0.5), Some(Dur::from_micros(50)));
        assert_eq!(h.quantile(0.99), Some(Dur::from_micros(99)));
        assert_eq!(h.quantile(1.0), Some(Dur(99_500)));
        assert_eq!(LatenessHistogram::default().quantile(0.5), None);
    }
}
