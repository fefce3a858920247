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
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> Dur {
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let r = bits_per_sec.max(1) as u128;
        Dur(bits.div_ceil(r).min(u64::MAX as u128) as u64)
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

    #[test]
    fn time_arithmetic_saturates() {
        assert_eq!(Time(5) - Time(9), Dur(0));
        assert_eq!(Time(u64::MAX) + Dur(1), Time(u64::MAX));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur(0));
        assert_eq!(Dur::from_secs_f64(0.0015), Dur::from_micros(1500));
    }
}
