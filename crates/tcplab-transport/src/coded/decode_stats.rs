//! What a coded sink measures about decoding: events, decoding delay, end-to-end latency,
//! the first decode.

use tcplab_core::{ColumnDef, Dur, Metrics, Time};

/// Decoding delay of a segment: from the arrival of the first symbol that combines it to
/// the moment the receiver's CPU has decoded it (seed 004, Fig. 9).
#[derive(Clone, Debug, Default)]
pub struct DecodeStats {
    /// Symbols that decoded at least one segment.
    pub events: u64,
    decoded: u64,
    delay_sum_ns: u128,
    delay_max: Dur,
    latency_n: u64,
    latency_sum_ns: u128,
    latency_max: Dur,
    first: Option<Time>,
}

impl DecodeStats {
    /// Segment decoded at `done`; the first symbol combining it arrived at `arrived`; it
    /// entered the sender's coding layer at `entered` (seed 004, Fig. 8: encoding,
    /// transfer and decoding delay together).
    pub fn decoded(&mut self, done: Time, arrived: Time, entered: Option<Time>) {
        if let Some(e) = entered {
            let l = done.saturating_since(e);
            self.latency_n += 1;
            self.latency_sum_ns += u128::from(l.as_nanos());
            self.latency_max = self.latency_max.max(l);
        }
        let d = done.saturating_since(arrived);
        self.decoded += 1;
        self.delay_sum_ns += u128::from(d.as_nanos());
        self.delay_max = self.delay_max.max(d);
        self.first.get_or_insert(done);
    }

    pub fn mean_delay(&self) -> Option<Dur> {
        (self.decoded > 0).then(|| Dur((self.delay_sum_ns / u128::from(self.decoded)) as u64))
    }

    pub const DECODE_EVENTS: ColumnDef = ColumnDef::new(
        "decode_events",
        "",
        "symbols that decoded at least one segment",
    )
    .at_least(0.0);
    pub const SEGMENTS_DECODED: ColumnDef =
        ColumnDef::new("segments_decoded", "segments", "segments the sink decoded").at_least(0.0);
    pub const DECODE_DELAY_MEAN: ColumnDef = ColumnDef::new(
        "decode_delay_mean_s",
        "s",
        "mean time from a segment's first symbol to its decode",
    )
    .at_least(0.0);
    pub const DECODE_DELAY_MAX: ColumnDef =
        ColumnDef::new("decode_delay_max_s", "s", "largest such decoding delay").at_least(0.0);
    pub const FIRST_DECODE: ColumnDef =
        ColumnDef::new("first_decode_s", "s", "when the first segment was decoded").at_least(0.0);
    pub const LATENCY_MEAN: ColumnDef = ColumnDef::new(
        "latency_mean_s",
        "s",
        "mean end-to-end latency: from a segment's entry into the sender's coding layer \
         to its decode (encoding, transfer and decoding)",
    )
    .at_least(0.0);
    pub const LATENCY_MAX: ColumnDef =
        ColumnDef::new("latency_max_s", "s", "largest such end-to-end latency").at_least(0.0);

    /// The columns [`DecodeStats::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 7] = [
        Self::DECODE_EVENTS,
        Self::SEGMENTS_DECODED,
        Self::DECODE_DELAY_MEAN,
        Self::DECODE_DELAY_MAX,
        Self::FIRST_DECODE,
        Self::LATENCY_MEAN,
        Self::LATENCY_MAX,
    ];

    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&Self::DECODE_EVENTS, self.events.into());
        out.put(&Self::SEGMENTS_DECODED, self.decoded.into());
        out.put(
            &Self::DECODE_DELAY_MEAN,
            self.mean_delay().map(Dur::as_secs_f64).into(),
        );
        out.put(
            &Self::DECODE_DELAY_MAX,
            (self.decoded > 0)
                .then(|| self.delay_max.as_secs_f64())
                .into(),
        );
        out.put(
            &Self::FIRST_DECODE,
            self.first.map(Time::as_secs_f64).into(),
        );
        let n = self.latency_n;
        out.put(
            &Self::LATENCY_MEAN,
            (n > 0)
                .then(|| (self.latency_sum_ns / u128::from(n.max(1))) as f64 / 1e9)
                .into(),
        );
        out.put(
            &Self::LATENCY_MAX,
            (n > 0).then(|| self.latency_max.as_secs_f64()).into(),
        );
    }
}

/// Per segment, when the first symbol combining it arrived (from the oldest undecoded).
#[derive(Clone, Debug, Default)]
pub struct Arrivals {
    base: u32,
    at: std::collections::VecDeque<Time>,
    /// Every segment from `base` up to here has its arrival time: a symbol's window
    /// mostly overlaps the last one, so only the part beyond this needs looking at.
    seen_to: u32,
}

impl Arrivals {
    /// A symbol combining `start..end` arrived at `now`.
    pub fn saw(&mut self, now: Time, start: u32, end: u32) {
        while self.base + (self.at.len() as u32) < end {
            self.at.push_back(Time::MAX);
        }
        self.seen_to = self.seen_to.max(self.base);
        for i in start.max(self.seen_to)..end {
            let t = &mut self.at[(i - self.base) as usize];
            if *t == Time::MAX {
                *t = now;
            }
        }
        while self
            .at
            .get((self.seen_to - self.base) as usize)
            .is_some_and(|&t| t != Time::MAX)
        {
            self.seen_to += 1;
        }
    }

    /// When a symbol combining segment `i` first arrived.
    pub fn of(&self, i: u32) -> Time {
        i.checked_sub(self.base)
            .and_then(|o| self.at.get(o as usize).copied())
            .unwrap_or(Time::MAX)
    }

    /// Forgets segments below `b`.
    pub fn drop_below(&mut self, b: u32) {
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

    /// The high-water mark changes nothing: arrival times equal a plain per-segment
    /// first-seen map over windows that jump back (repairs), overlap and skip ahead.
    #[test]
    fn arrivals_match_a_first_seen_map() {
        let mut a = Arrivals::default();
        let mut first = std::collections::HashMap::new();
        let mut x: u64 = 7;
        let mut lo = 0u32;
        for step in 0..5000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) as u32;
            let start = lo + r % 40;
            let end = start + 1 + (r >> 8) % 16;
            a.saw(Time(step), start, end);
            for i in start.max(lo)..end {
                first.entry(i).or_insert(Time(step));
            }
            if r % 7 == 0 {
                lo += r % 5;
                a.drop_below(lo);
            }
            for i in lo..lo + 60 {
                let want = first.get(&i).copied().unwrap_or(Time::MAX);
                assert_eq!(a.of(i), want, "segment {i} after step {step}");
            }
        }
    }
}
