//! TCP Wave: a timer-driven burst sender (Abdelsalam et al., Computer Networks 112, 2017;
//! Linux `net/ipv4/tcp_wave.c` v0.1 and v0.2).
//!
//! Bursts of `init_burst` segments leave when the send timer (TxTime) fires; ACKs never
//! clock data out, they only feed measurements. Each burst comes back as an ACK train;
//! per train Wave measures the ACK-train dispersion (ATD, how long the path needs to
//! carry one burst) and ΔRTT = avg RTT − min RTT (queueing), then sets
//! TxTime = ATD + ΔRTT/2 (tracking mode, paper eq. and seed 000). If ΔRTT exceeds `beta`
//! it falls back to TxTime = init_timer for a stabilisation period (adjustment mode).
//!
//! Which version each rule follows (see docs/wave.md for the full comparison):
//! - train detection, aligned ACKs, ATD with the n/(n−1) correction, min/max from the
//!   first RTT of a round, adjustment-mode counter `avg_rtt / TxTime`: **v0.2**;
//! - `init_timer` = 500 ms: **paper / v0.1 / seed 000** (v0.2 uses 200 ms; a parameter);
//! - TxTime = ATD + ΔRTT/2, TxTime capped at init_timer, 0 forced to 1 ms: all versions;
//! - window emulation (ssthresh 0, cwnd = packets in flight on every ACK, += burst on
//!   timer expiry, shrink by the unsent part when application-limited): **v0.1/v0.2**;
//! - not taken from v0.2: the "heuristic" ATD from the Linux rate sample when a round
//!   has fewer than two aligned ACKs and no earlier ATD exists — tcplab keeps the current
//!   TxTime instead (the heuristic is a blind search tied to Linux's `interval_us`);
//! - after a retransmission timeout the burst history and the current train are
//!   dropped (go-back-N resends no longer map to bursts); Linux leaves them misaligned.

mod control;
mod history;
mod rtt;
#[cfg(test)]
mod tests;
mod train;

pub use control::Mode;

use super::{
    AckInfo, Capabilities, CcMetrics, CcParams, CongestionControl, CongestionEvent, Window,
};
use control::Control;
use history::{Burst, History};
use rtt::RttStats;
use tcplab_core::{Dur, Time};
use train::Train;
#[cfg(test)]
use train::{dispersion, Round};

/// TCP Wave (see the module docs).
#[derive(Clone, Debug)]
pub struct Wave {
    ctl: Control,
    next_fire: Option<Time>,
    rtt: RttStats,
    train: Train,
    hist: History,
    /// Total delivered bytes at the last ACK, to get what each ACK delivered (SACK too).
    delivered: u64,
    /// Segments sent outside the timer's budget since the last expiry (e.g. fast
    /// retransmissions): the next burst is reduced by this much (v0.2 `delta_segments`).
    overshoot: u32,
    round_open: bool,
    round_segments: u32,
    round_bytes: u64,
    current_burst: u32,
    burst_seq: u64,
    mss: u64,
}

impl Wave {
    /// Parameters: `init_burst` (segments, 10), `min_burst` (3), `init_timer_ms` (500;
    /// the first TxTime and its cap), `beta_ms` (150; the ΔRTT threshold).
    pub fn from_params(p: &mut CcParams) -> Result<Wave, String> {
        let whole = |v: f64| (1.0..=65535.0).contains(&v) && v.fract() == 0.0;
        let burst = p.take("init_burst", 10.0, whole, "a whole number in 1..=65535")?;
        let min_burst = p.take("min_burst", 3.0, whole, "a whole number in 1..=65535")?;
        // At least 1 ns: a shorter TxTime rounds to a zero-length timer.
        let timer = p.take("init_timer_ms", 500.0, |v| v >= 1e-6, ">= 1e-6 (1 ns)")?;
        let beta = p.take("beta_ms", 150.0, |v| v >= 0.0, ">= 0")?;
        if min_burst > burst {
            return Err(format!(
                "parameter 'min_burst' = {min_burst}: must be <= init_burst ({burst})"
            ));
        }
        Ok(Wave::new(
            burst as u32,
            min_burst as u32,
            Dur::from_secs_f64(timer / 1e3),
            Dur::from_secs_f64(beta / 1e3),
        ))
    }

    pub fn new(burst: u32, min_burst: u32, init_timer: Dur, beta: Dur) -> Wave {
        Wave {
            ctl: Control::new(burst, min_burst, init_timer, beta),
            next_fire: None,
            rtt: RttStats::default(),
            train: Train::default(),
            hist: History::new(),
            delivered: 0,
            overshoot: 0,
            round_open: false,
            round_segments: 0,
            round_bytes: 0,
            current_burst: burst,
            burst_seq: 0,
            mss: 1,
        }
    }

    /// The current TxTime (before the init_timer cap).
    pub fn tx_time(&self) -> Dur {
        self.ctl.tx_time
    }
    pub fn mode(&self) -> Mode {
        self.ctl.mode
    }
    /// The last ACK-train dispersion used.
    pub fn atd(&self) -> Option<Dur> {
        self.ctl.prev_atd
    }
    pub fn delta_rtt(&self) -> Dur {
        self.rtt.delta()
    }
    /// Bursts sent so far.
    pub fn burst_seq(&self) -> u64 {
        self.burst_seq
    }
}

impl CongestionControl for Wave {
    fn name(&self) -> &'static str {
        "wave"
    }

    fn capabilities(&self) -> Capabilities {
        // Timer-driven bursts, counted by what is sent and what is delivered.
        Capabilities::HEARS_SENDS
            .and(Capabilities::PACES_OR_TIMES)
            .and(Capabilities::READS_DELIVERY)
            .and(Capabilities::HEARS_ACKS_WITHOUT_PROGRESS)
    }

    fn init(&mut self, w: &mut Window, now: Time) {
        self.mss = w.mss as u64;
        w.ssthresh = 0;
        w.cwnd = 0;
        self.next_fire = Some(now);
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        // Every ACK closes the window to what is in flight: only the timer opens it.
        w.cwnd = ack.in_flight;
        let bytes = ack.delivered.saturating_sub(self.delivered);
        self.delivered = ack.delivered;
        // Linux v0.2 reads the rate sample's RTT (newest (S)ACKed packet, never a
        // retransmission); the Karn sample of a cumulative ACK is the same value.
        let r = ack.rtt.or(ack.rate.and_then(|s| s.rtt));
        if bytes == 0 {
            return;
        }
        let ctl = &mut self.ctl;
        self.train.on_ack(
            ack.now,
            bytes,
            r,
            &mut self.hist,
            &mut self.rtt,
            |round, rtt| ctl.round_terminated(round, rtt),
        );
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        _now: Time,
        in_flight: u64,
    ) {
        // ssthresh stays 0: Wave is always in "congestion avoidance" and the timer, not
        // the window, sets the rate. Recovery itself is the sender's (RFC 5681/6582/6675).
        w.ssthresh = 0;
        match ev {
            CongestionEvent::FastRetransmit => w.cwnd = in_flight,
            CongestionEvent::Rto { .. } => {
                // Go-back-N empties the flight; the next timer expiry opens one burst.
                w.cwnd = 0;
                self.hist.clear();
                self.train.reset();
                self.rtt.first = None;
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _now: Time) {
        w.ssthresh = 0;
    }

    fn on_sent(&mut self, _now: Time, bytes: u32, _in_flight: u64) {
        if self.round_open {
            self.round_bytes += bytes as u64;
            self.round_segments += 1;
        } else {
            self.overshoot = self.overshoot.saturating_add(1);
        }
    }

    fn send_timer(&self) -> Option<Time> {
        self.next_fire
    }

    fn on_send_timer(&mut self, w: &mut Window, now: Time) -> u32 {
        self.next_fire = Some(now + self.ctl.interval());
        // v0.2 `wavetcp_timer_expired`: the burst shrinks by what left outside the
        // previous rounds, but never below min_burst.
        let current = self
            .ctl
            .burst
            .saturating_sub(self.overshoot)
            .max(self.ctl.min_burst);
        self.overshoot = 0;
        self.current_burst = current;
        w.cwnd += current as u64 * self.mss;
        self.round_open = true;
        self.round_segments = 0;
        self.round_bytes = 0;
        current
    }

    fn on_segments_sent(&mut self, w: &mut Window, _now: Time, sent: u32) {
        self.round_open = false;
        // Retransmissions that slipped in during the round count as overshoot.
        self.overshoot = self
            .overshoot
            .saturating_add(self.round_segments.saturating_sub(sent));
        if sent > 0 {
            self.burst_seq += 1;
            self.hist.push(Burst {
                segments: sent,
                bytes: self.round_bytes,
            });
        }
        if sent < self.current_burst {
            // Application-limited: take back the window the burst did not use.
            let unused = (self.current_burst - sent) as u64 * self.mss;
            w.cwnd = w.cwnd.saturating_sub(unused);
        }
    }

    fn metrics(&self, _w: &Window) -> CcMetrics {
        CcMetrics {
            state: self.ctl.mode.name(),
            pacing_rate: None,
        }
    }

    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        let s = |d: Option<Dur>| d.map_or(f64::NAN, Dur::as_secs_f64);
        emit("txtime_s", self.ctl.interval().as_secs_f64());
        emit("atd_s", s(self.ctl.prev_atd));
        emit("delta_rtt_s", self.rtt.delta().as_secs_f64());
        emit("mode", self.ctl.mode.code());
        emit("burst_seq", self.burst_seq as f64);
        emit("current_burst", self.current_burst as f64);
        emit("min_rtt_s", s(self.rtt.min));
        emit("avg_rtt_s", s(self.rtt.avg));
        emit("max_rtt_s", s(self.rtt.max));
    }
}
