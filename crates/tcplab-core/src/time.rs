//! Integer-nanosecond time.
//!
//! Floating-point clocks make event order depend on rounding, which differs between
//! platforms and compilers; `u64` nanoseconds cover 584 years and order exactly.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// A point in time, in nanoseconds since the start of a run (virtual or wall clock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else {
            Dur((s * 1e9).round().min(u64::MAX as f64) as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    pub fn saturating_sub(self, o: Dur) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
    /// Time to serialise `bytes` at `bits_per_sec`, rounded up so a link is never faster
    /// than its rate. A zero rate is rejected at configuration time, never here.
    ///
    /// Once per packet admitted to a link: a packet's bit-nanoseconds fit in 64 bits
    /// (up to 2.3 GB), so it takes one 64-bit division, not a call to the 128-bit one
    /// (about 40 instructions less); the same value either way.
    #[inline]
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> Dur {
        const BIT_NS: u64 = 8 * 1_000_000_000;
        let r = bits_per_sec.max(1);
        if bytes <= u64::MAX / BIT_NS {
            return Dur((bytes * BIT_NS).div_ceil(r));
        }
        let bits = bytes as u128 * BIT_NS as u128;
        Dur(bits.div_ceil(r as u128).min(u64::MAX as u128) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Saturates at zero: callers ask "how long since", never for negative spans.
    fn sub(self, o: Time) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, o: Dur) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, o: Dur) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}
impl SubAssign for Dur {
    fn sub_assign(&mut self, o: Dur) {
        self.0 = self.0.saturating_sub(o.0);
    }
}
impl Mul<u64> for Dur {
    type Output = Dur;
    fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}
impl Div<u64> for Dur {
    type Output = Dur;
    fn div(self, k: u64) -> Dur {
        Dur(self.0 / k.max(1))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns >= 1_000_000_000 {
            write!(f, "{}s", self.as_secs_f64())
        } else if ns >= 1_000_000 {
            write!(f, "{}ms", ns as f64 / 1e6)
        } else if ns >= 1_000 {
            write!(f, "{}us", ns as f64 / 1e3)
        } else {
            write!(f, "{ns}ns")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_rounds_up() {
        // 1500 B at 100 Mbit/s = 120 us exactly.
        assert_eq!(Dur::transmission(1500, 100_000_000), Dur::from_micros(120));
        // 1 B at 3 bit/s = 8/3 s, rounded up.
        assert_eq!(Dur::transmission(1, 3), Dur(2_666_666_667));
    }

    /// The 64-bit path and the 128-bit one agree at their border, and huge sizes saturate.
    #[test]
    fn transmission_is_exact_on_both_paths() {
        let wide = |b: u64, r: u64| {
            let x = (b as u128 * 8_000_000_000).div_ceil(r as u128);
            Dur(x.min(u64::MAX as u128) as u64)
        };
        let edge = u64::MAX / 8_000_000_000;
        for b in [
            0,
            1,
            40,
            1500,
            9000,
            65_535,
            edge - 1,
            edge,
            edge + 1,
            u64::MAX,
        ] {
            for r in [1, 3, 56_000, 100_000_000, 1_000_000_007, u64::MAX] {
                assert_eq!(Dur::transmission(b, r), wide(b, r), "{b} B at {r} bit/s");
            }
        }
        assert_eq!(Dur::transmission(u64::MAX, 1), Dur(u64::MAX));
        assert_eq!(Dur::transmission(1500, 0), wide(1500, 1));
    }

    #[test]
    fn time_arithmetic_saturates() {
        assert_eq!(Time(5) - Time(9), Dur(0));
        assert_eq!(Time(u64::MAX) + Dur(1), Time(u64::MAX));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur(0));
        assert_eq!(Dur::from_secs_f64(0.0015), Dur::from_micros(1500));
    }
}
