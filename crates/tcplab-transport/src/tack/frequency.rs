//! When the receiver sends TACKs: f_tack = min(bw / (L·MSS), β / RTT_min) (eq. 3).
//!
//! The interval between TACKs is therefore max(L·MSS / bw, RTT_min / β): periodic (β per
//! RTT_min) when the bandwidth-delay product is at least β·L·MSS, byte-counting (one per L
//! full-sized packets) below. `bw` is the windowed maximum of the per-interval delivery
//! rate over several RTT_min (§5.4, 5–10 RTTs). Each TACK closes a rate sample measured
//! as a packet train: the bytes that arrived after an earlier interval's last packet, over
//! the time from that packet to this interval's last one — exact for an even stream and
//! for bursts (A-MPDUs) alike. The train reaches back at least RTT_min (over as many TACK
//! intervals as that takes, up to [`SPANS`]): like the delivery-rate draft's rule that a
//! sample shorter than min RTT is invalid, this keeps jitter and ACK-free bursts from
//! inflating the max-filtered estimate. A mark is kept only if it is at least
//! RTT_min / (SPANS / 2) after the previous one, so the ring spans ≥ 2 RTT_min at any β
//! (with one mark per TACK, β > SPANS left no mark old enough and the estimate froze).

use crate::cc::WindowedMax;
use tcplab_core::{Dur, Time};

/// TACK intervals a rate sample may span.
pub const SPANS: usize = 16;

/// The TACK interval and the receiver's bandwidth estimate (see the module docs).
#[derive(Clone, Debug)]
pub struct TackClock {
    /// ACKs per RTT_min (β ≥ 2) and full-sized packets per ACK (L ≥ 1).
    pub beta: u32,
    pub l: u32,
    pub mss: u32,
    /// Length of the bandwidth filter, in RTT_min.
    pub bw_window_rtts: u32,
    /// Longest interval in the byte-counting regime (a floor on the frequency when the
    /// rate is tiny, like TCP's delayed-ACK timer).
    pub max_interval: Dur,
    bw: WindowedMax,
    /// Bytes received in all (after the first packet), and the last arrival.
    bytes: u64,
    last_arrival: Option<Time>,
    /// (last arrival, bytes) at the end of the latest intervals, oldest first (a ring).
    marks: [(Time, u64); SPANS],
    n_marks: usize,
    head: usize,
}

impl TackClock {
    pub fn new(beta: u32, l: u32, mss: u32, bw_window_rtts: u32, max_interval: Dur) -> Self {
        TackClock {
            beta,
            l,
            mss,
            bw_window_rtts,
            max_interval,
            bw: WindowedMax::default(),
            bytes: 0,
            last_arrival: None,
            marks: [(Time::ZERO, 0); SPANS],
            n_marks: 0,
            head: 0,
        }
    }

    /// A data packet of `bytes` arrived at `now`.
    pub fn on_arrival(&mut self, now: Time, bytes: u32) {
        if self.last_arrival.is_none() {
            // The train starts at the first packet: its own bytes arrived before it.
            self.push_mark(now, 0);
        } else {
            self.bytes += bytes as u64;
        }
        self.last_arrival = Some(now);
    }

    fn push_mark(&mut self, t: Time, bytes: u64) {
        if self.n_marks < SPANS {
            self.marks[(self.head + self.n_marks) % SPANS] = (t, bytes);
            self.n_marks += 1;
        } else {
            self.marks[self.head] = (t, bytes);
            self.head = (self.head + 1) % SPANS;
        }
    }

    /// Closes the interval at a TACK sent at `now`: feeds a rate sample to the filter.
    pub fn on_tack(&mut self, now: Time, rtt_min: Option<Dur>) {
        let Some(last) = self.last_arrival else {
            return;
        };
        let (newest_t, _) = self.marks[(self.head + self.n_marks - 1) % SPANS];
        if last <= newest_t {
            return; // nothing new since the previous TACK
        }
        // The most recent mark at least RTT_min before the last arrival; none (a history
        // shorter than RTT_min, e.g. one burst), or RTT_min not yet known: no sample.
        let Some(reach) = rtt_min else {
            self.push_mark(last, self.bytes);
            return;
        };
        let from = (0..self.n_marks)
            .rev()
            .map(|k| self.marks[(self.head + k) % SPANS])
            .find(|m| last - m.0 >= reach);
        if let Some(from) = from.filter(|f| last > f.0 && self.bytes > f.1) {
            let rate =
                ((self.bytes - from.1) as u128 * 1_000_000_000 / (last - from.0).0 as u128) as u64;
            let window = rtt_min.map_or(Dur::from_secs(1), |r| r * self.bw_window_rtts as u64);
            self.bw.update(window.0, now.0, rate);
        }
        if last - newest_t >= reach / (SPANS as u64 / 2) {
            self.push_mark(last, self.bytes);
        }
    }

    /// The receiver's bandwidth estimate in bytes/s (0 before the first sample).
    pub fn bw(&self) -> u64 {
        self.bw.get()
    }

    /// The interval max(L·MSS / bw, RTT_min / β), or `None` before any estimate (the
    /// receiver then counts L packets).
    pub fn interval(&self, rtt_min: Option<Dur>) -> Option<Dur> {
        let bw = self.bw();
        let bytes_part = (bw > 0).then(|| {
            Dur::transmission(self.l as u64 * self.mss as u64, bw.saturating_mul(8))
                .min(self.max_interval)
        });
        let time_part = rtt_min.map(|r| r / self.beta as u64);
        match (bytes_part, time_part) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// The frequency the interval gives, in Hz.
    pub fn frequency(&self, rtt_min: Option<Dur>) -> Option<f64> {
        self.interval(rtt_min).map(|d| 1.0 / d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 12 Mbit/s (1.5 MB/s) with 1500-byte packets and RTT_min 10 ms, bdp = 15,000
    /// bytes = 10 packets > β·L = 8: periodic, 400 Hz. At 80 ms the same. At 1.2 Mbit/s
    /// and 10 ms, bdp = 1 packet < 8: byte-counting, bw / (2·1500) = 50 Hz.
    #[test]
    fn interval_follows_equation_3() {
        for (rate_bps, rtt_ms, want_hz) in [
            (12_000_000u64, 10u64, 400.0),
            (12_000_000, 80, 50.0),
            (1_200_000, 10, 50.0),
        ] {
            let mut c = TackClock::new(4, 2, 1500, 10, Dur::from_secs(1));
            let rtt = Some(Dur::from_millis(rtt_ms));
            let gap = Dur::transmission(1500, rate_bps);
            let mut t = Time::ZERO;
            for i in 0..200 {
                c.on_arrival(t, 1500);
                if i % 5 == 4 {
                    c.on_tack(t, rtt);
                }
                t += gap;
            }
            assert_eq!(c.bw(), rate_bps / 8);
            let hz = c.frequency(rtt).unwrap();
            assert!((hz - want_hz).abs() < 1e-6, "{rate_bps} {rtt_ms}: {hz}");
        }
    }

    /// β = 32 TACKs per RTT_min: 16 marks of one TACK each covered only half an RTT_min,
    /// no sample reached back RTT_min, and the estimate stayed at its start-up value (0
    /// here) while the rate doubled. It must follow the stream: 12 then 24 Mbit/s.
    #[test]
    fn estimate_follows_the_rate_with_more_tacks_per_rtt_than_marks() {
        let rtt = Some(Dur::from_millis(80));
        let mut c = TackClock::new(32, 2, 1500, 10, Dur::from_secs(1));
        let tack = Dur::from_micros(2_500); // RTT_min / β
        let (mut t, mut next_tack) = (Time::ZERO, Time::ZERO + tack);
        for (rate_bps, secs) in [(12_000_000u64, 1u64), (24_000_000, 1)] {
            let gap = Dur::transmission(1500, rate_bps);
            let end = t + Dur::from_secs(secs);
            while t < end {
                c.on_arrival(t, 1500);
                if t >= next_tack {
                    c.on_tack(t, rtt);
                    next_tack += tack;
                }
                t += gap;
            }
            let got = c.bw() as f64 * 8.0;
            assert!(
                (got / rate_bps as f64 - 1.0).abs() < 0.01,
                "{rate_bps}: {got}"
            );
        }
    }
}
