//! The datagram source: sends on its pattern's schedule, never retransmits.

use super::{Datagram, DatagramSpec, Pattern, UDP_HEADER_BYTES};
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use tcplab_core::{ColumnDef, Dur, Metrics, Rng, Time};

/// See the module docs of [`crate::datagram`].
#[derive(Debug)]
pub struct DatagramSource {
    flow: u32,
    spec: DatagramSpec,
    /// Payload bytes to send; `None`: until stopped.
    target: Option<u64>,
    rng: Rng,
    started: bool,
    /// The writer stopped or the target was reached.
    done: bool,
    /// Start of the current sending period (the whole run for CBR, an on period, or the
    /// current repetition of a trace); sends are timed from it without drift.
    period_start: Time,
    sent_in_period: u64,
    /// On/off: end of the current on period, or (while off) when the next one starts.
    switch_at: Option<Time>,
    on: bool,
    /// Trace: index of the next timestamp.
    trace_idx: usize,
    next_send: Option<Time>,
    seq: u64,
    bytes_sent: u64,
    finished_at: Option<Time>,
}

impl DatagramSource {
    /// `rng` draws the on/off periods (give each source its own named stream).
    pub fn new(flow: u32, spec: DatagramSpec, target: Option<u64>, rng: Rng) -> Self {
        DatagramSource {
            flow,
            spec,
            target,
            rng,
            started: false,
            done: false,
            period_start: Time::ZERO,
            sent_in_period: 0,
            switch_at: None,
            on: false,
            trace_idx: 0,
            next_send: None,
            seq: 0,
            bytes_sent: 0,
            finished_at: None,
        }
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }

    /// Datagrams sent so far.
    pub fn packets_sent(&self) -> u64 {
        self.seq
    }

    fn wire_bytes(&self) -> u64 {
        (self.spec.payload + UDP_HEADER_BYTES) as u64
    }

    /// When the `k`-th datagram of a period sent at `rate_bps` leaves.
    fn paced(&self, rate_bps: u64, k: u64) -> Time {
        self.period_start + Dur::transmission(k * self.wire_bytes(), rate_bps)
    }

    /// Schedules the next send after `sent_in_period` datagrams of the current period.
    fn schedule_next(&mut self) {
        self.next_send = match &self.spec.pattern {
            Pattern::Cbr { rate_bps } => Some(self.paced(*rate_bps, self.sent_in_period)),
            Pattern::OnOff { rate_bps, .. } => {
                let t = self.paced(*rate_bps, self.sent_in_period);
                (self.on && self.switch_at.is_some_and(|end| t < end)).then_some(t)
            }
            Pattern::Trace { ms } => {
                if self.trace_idx == ms.len() {
                    // The trace repeats with a period equal to its last timestamp.
                    self.period_start += Dur::from_millis(ms[ms.len() - 1]);
                    self.trace_idx = 0;
                }
                Some(self.period_start + Dur::from_millis(ms[self.trace_idx]))
            }
        };
    }

    /// Runs on/off switches due at `now` (several, if periods are short).
    fn switch_periods(&mut self, now: Time) {
        let Pattern::OnOff { on, off, .. } = self.spec.pattern else {
            return;
        };
        while let Some(t) = self.switch_at.filter(|&t| t <= now) {
            self.on = !self.on;
            if self.on {
                self.period_start = t;
                self.sent_in_period = 0;
                self.switch_at = Some(t + on.draw(&mut self.rng));
            } else {
                self.switch_at = Some(t + off.draw(&mut self.rng));
            }
            self.schedule_next();
        }
    }

    fn finish(&mut self, now: Time) {
        self.done = true;
        self.next_send = None;
        self.switch_at = None;
        self.finished_at.get_or_insert(now);
    }
}

impl DatagramSource {
    pub const SENT: ColumnDef =
        ColumnDef::new("sent", "B", "bytes a datagram source sent so far").at_least(0.0);

    /// The `flow_series` columns its `sample` writes.
    pub const SERIES: [ColumnDef; 1] = [Self::SENT];
}

impl Endpoint for DatagramSource {
    fn handle_packet(&mut self, _now: Time, _pkt: &Packet) -> Result<(), Violation> {
        Ok(()) // nothing comes back to a datagram source
    }

    fn handle_timeout(&mut self, now: Time) {
        self.switch_periods(now);
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if self.done {
            return None;
        }
        self.switch_periods(now);
        self.next_send.filter(|&t| t <= now)?;
        let remaining = self.target.map_or(u64::MAX, |b| b - self.bytes_sent);
        let len = (self.spec.payload as u64).min(remaining) as u32;
        let d = Datagram {
            seq: self.seq,
            sent_at: now,
            len,
        };
        self.seq += 1;
        self.bytes_sent += len as u64;
        self.sent_in_period += 1;
        if matches!(self.spec.pattern, Pattern::Trace { .. }) {
            self.trace_idx += 1;
        }
        if self.target.is_some_and(|b| self.bytes_sent >= b) {
            self.finish(now);
        } else {
            self.schedule_next();
        }
        Some(Packet::Datagram(d))
    }

    fn poll_timeout(&self) -> Option<Time> {
        match (self.next_send, self.switch_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn start(&mut self, now: Time) {
        if self.started {
            return;
        }
        self.started = true;
        self.period_start = now;
        if let Pattern::OnOff { on, .. } = self.spec.pattern {
            self.on = true;
            self.switch_at = Some(now + on.draw(&mut self.rng));
        }
        self.schedule_next();
    }

    fn stop(&mut self, now: Time) {
        if self.started {
            self.finish(now);
        }
    }

    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.bytes_sent,
            sent_bytes: self.bytes_sent,
            finished_at: self.finished_at,
        }
    }

    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&Self::SENT, self.bytes_sent.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagram::Period;
    use std::sync::Arc;

    fn source(pattern: Pattern, payload: u32, target: Option<u64>) -> DatagramSource {
        DatagramSource::new(
            0,
            DatagramSpec { pattern, payload },
            target,
            Rng::from_seed(1),
        )
    }

    /// Drives a source alone until `end`; returns the send times.
    fn run(s: &mut DatagramSource, end: Time) -> Vec<Time> {
        let mut out = vec![];
        s.start(Time::ZERO);
        let mut now = Time::ZERO;
        loop {
            s.handle_timeout(now);
            while let Some(Packet::Datagram(d)) = s.poll_transmit(now) {
                assert_eq!(d.sent_at, now);
                out.push(now);
            }
            match s.poll_timeout() {
                Some(t) if t <= end => now = t.max(now),
                _ => return out,
            }
        }
    }

    #[test]
    fn cbr_sends_at_the_wire_rate_without_drift() {
        // 972 + 28 = 1000 bytes at 8 Mbit/s: one datagram per millisecond.
        let mut s = source(
            Pattern::Cbr {
                rate_bps: 8_000_000,
            },
            972,
            None,
        );
        let t = run(&mut s, Time::ZERO + Dur::from_secs(1));
        assert_eq!(t.len(), 1001);
        assert_eq!(t[1000], Time::ZERO + Dur::from_secs(1));
        assert!(t.windows(2).all(|w| w[1] - w[0] == Dur::from_millis(1)));
    }

    #[test]
    fn a_finite_source_stops_at_its_byte_count_with_a_short_last_datagram() {
        let mut s = source(
            Pattern::Cbr {
                rate_bps: 8_000_000,
            },
            1000,
            Some(2500),
        );
        let t = run(&mut s, Time::ZERO + Dur::from_secs(1));
        assert_eq!(t.len(), 3);
        assert_eq!(s.progress().app_bytes, 2500);
        assert_eq!(s.progress().finished_at, Some(t[2]));
    }

    #[test]
    fn on_off_sends_only_in_on_periods() {
        let on = Dur::from_millis(10);
        let off = Dur::from_millis(30);
        let mut s = source(
            Pattern::OnOff {
                rate_bps: 8_000_000,
                on: Period::Constant(on),
                off: Period::Constant(off),
            },
            972,
            None,
        );
        let t = run(&mut s, Time::ZERO + Dur::from_millis(399));
        // Ten 40 ms cycles, each with sends at 0..9 ms of its on period.
        assert_eq!(t.len(), 100);
        for x in &t {
            let phase = x.as_nanos() % 40_000_000;
            assert!(phase < 10_000_000, "sent during an off period at {x:?}");
        }
    }

    #[test]
    fn exponential_on_off_averages_to_the_duty_cycle() {
        let m = Dur::from_millis(50);
        let mut s = source(
            Pattern::OnOff {
                rate_bps: 8_000_000,
                on: Period::Exponential { mean: m },
                off: Period::Exponential { mean: m },
            },
            972,
            None,
        );
        let t = run(&mut s, Time::ZERO + Dur::from_secs(200));
        // Half the time on, 1000 datagrams per second while on.
        let rate = t.len() as f64 / 200.0;
        assert!((rate - 500.0).abs() < 25.0, "{rate} datagrams/s");
    }

    #[test]
    fn trace_sends_at_its_timestamps_and_repeats() {
        let ms: Arc<[u64]> = vec![0, 0, 5, 10].into();
        let mut s = source(Pattern::Trace { ms }, 100, None);
        let t = run(&mut s, Time::ZERO + Dur::from_millis(20));
        let got: Vec<u64> = t.iter().map(|x| x.as_nanos() / 1_000_000).collect();
        assert_eq!(got, vec![0, 0, 5, 10, 10, 10, 15, 20, 20, 20]);
    }

    #[test]
    fn stop_ends_the_source() {
        let mut s = source(
            Pattern::Cbr {
                rate_bps: 8_000_000,
            },
            972,
            None,
        );
        s.start(Time::ZERO);
        assert!(s.poll_transmit(Time::ZERO).is_some());
        s.stop(Time::ZERO + Dur::from_millis(5));
        assert!(s.poll_transmit(Time::ZERO + Dur::from_millis(6)).is_none());
        assert_eq!(s.poll_timeout(), None);
        assert_eq!(
            s.progress().finished_at,
            Some(Time::ZERO + Dur::from_millis(5))
        );
    }
}
