//! Minstrel-HT style rate adaptation for one (transmitter, receiver) link, after ns-3's
//! `MinstrelHtWifiManager` (src/wifi/model/rate-control/minstrel-ht-wifi-manager.cc,
//! itself after Linux mac80211's `rc80211_minstrel_ht.c`), reduced to one MCS group (the
//! configured streams, width and guard interval):
//! - every `UPDATE_INTERVAL` (ns-3 `UpdateStatistics`: 50 ms) each rate tried since the
//!   last update gets its success ratio folded into an EWMA, 75 % old (ns-3 `EWMA`: 75;
//!   the first sample is taken as it is);
//! - a rate's expected throughput is its EWMA success (capped at 90 %, zero below 10 %)
//!   over the airtime of a 1200-byte MPDU (ns-3 `CalculateThroughput`, `PacketLength`:
//!   1200); the highest one is used;
//! - `LOOKAROUND_PERCENT` of the transmissions (ns-3 `LookAroundRate`: 10 %) sample another
//!   rate drawn uniformly, so that better rates are found when the channel improves;
//! - a new link starts at the lowest rate (ns-3 `RateInit`: the lowest index).
//!
//! Each A-MPDU is one trial per MPDU (its Block ACK reports each).

use tcplab_core::{Dur, Rng, Time};

/// ns-3 `UpdateStatistics`.
pub const UPDATE_INTERVAL: Dur = Dur(50_000_000);
/// ns-3 `EWMA`: the weight of the old value, in percent.
const EWMA_OLD_PERCENT: f64 = 75.0;
/// ns-3 `LookAroundRate`.
const LOOKAROUND_PERCENT: u64 = 10;
/// ns-3 `PacketLength`: the MPDU whose airtime rates are compared by.
pub const PERFECT_BYTES: u64 = 1200;

#[derive(Clone, Copy, Debug, Default)]
struct RateStats {
    attempts: u64,
    successes: u64,
    /// EWMA success in percent; `None` before the first update with trials.
    ewma: Option<f64>,
}

/// One link's statistics and choice (see the module docs).
#[derive(Debug)]
pub(super) struct Minstrel {
    stats: Vec<RateStats>,
    best: usize,
    next_update: Time,
}

impl Minstrel {
    pub fn new(rates: usize) -> Self {
        Minstrel {
            stats: vec![RateStats::default(); rates],
            best: 0,
            next_update: Time::ZERO + UPDATE_INTERVAL,
        }
    }

    /// The rate of the next transmission at `now`; `perfect[r]` is rate `r`'s airtime of
    /// a `PERFECT_BYTES` MPDU in seconds.
    pub fn choose(&mut self, now: Time, perfect: &[f64], rng: &mut Rng) -> usize {
        if now >= self.next_update {
            self.update(perfect);
            while self.next_update <= now {
                self.next_update += UPDATE_INTERVAL;
            }
        }
        let n = self.stats.len();
        if n > 1 && rng.below(100) < LOOKAROUND_PERCENT {
            let r = rng.below(n as u64 - 1) as usize;
            return if r >= self.best { r + 1 } else { r };
        }
        self.best
    }

    /// `sent` MPDUs at rate `r`, `ok` of them received.
    pub fn record(&mut self, r: usize, sent: u64, ok: u64) {
        let s = &mut self.stats[r];
        s.attempts += sent;
        s.successes += ok;
    }

    fn update(&mut self, perfect: &[f64]) {
        let mut best = (self.best, f64::MIN);
        for (r, s) in self.stats.iter_mut().enumerate() {
            if s.attempts > 0 {
                let now = 100.0 * s.successes as f64 / s.attempts as f64;
                s.ewma = Some(match s.ewma {
                    None => now,
                    Some(old) => {
                        (now * (100.0 - EWMA_OLD_PERCENT) + old * EWMA_OLD_PERCENT) / 100.0
                    }
                });
                s.attempts = 0;
                s.successes = 0;
            }
            let tp = match s.ewma {
                Some(p) if p >= 10.0 => p.min(90.0) / perfect[r],
                _ => 0.0,
            };
            if tp > best.1 {
                best = (r, tp);
            }
        }
        if best.1 > 0.0 {
            self.best = best.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rate 1 is twice as fast; with it always through, Minstrel moves to it at the first
    /// update; when it then fails, the EWMA (75 % old) drops below 10 % after a few
    /// intervals and Minstrel falls back to rate 0.
    #[test]
    fn follows_the_throughput() {
        let perfect = [2e-4, 1e-4];
        let mut m = Minstrel::new(2);
        let mut rng = Rng::from_seed(1);
        let ms = |x: u64| Time::ZERO + Dur::from_millis(x);
        assert_eq!(m.best, 0);
        m.record(0, 10, 10);
        m.record(1, 10, 10);
        m.choose(ms(50), &perfect, &mut rng);
        assert_eq!(m.best, 1);
        let mut t = 50;
        while m.best == 1 {
            m.record(1, 10, 0);
            m.record(0, 10, 10);
            t += 50;
            m.choose(ms(t), &perfect, &mut rng);
        }
        // 100 → 75 → 56 → 42 %: below half rate 0's 90 % (45 %) after three updates.
        assert_eq!(t, 200);
    }
}
