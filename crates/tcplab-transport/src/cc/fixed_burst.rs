//! A minimal timer-driven burst sender, to exercise the timer hooks TCP Wave needs.
//!
//! Every `interval` it releases `burst` segments; ACKs never open the window. It proves
//! the sender honours a controller's send timer and per-round segment budget.

use super::{
    AckInfo, Capabilities, CcMetrics, CcParams, CongestionControl, CongestionEvent, Window,
};
use tcplab_core::{Dur, Time};

#[derive(Clone, Debug)]
pub struct FixedBurst {
    burst: u32,
    interval: Dur,
    next: Option<Time>,
}

impl FixedBurst {
    /// Parameters: `burst` (segments, default 10), `interval_ms` (default 10).
    pub fn from_params(p: &mut CcParams) -> Result<FixedBurst, String> {
        let burst = p.take(
            "burst",
            10.0,
            |v| v >= 1.0 && v.fract() == 0.0,
            "a whole number >= 1",
        )?;
        // At least 1 ns: a shorter interval rounds to a zero-length timer.
        let ms = p.take("interval_ms", 10.0, |v| v >= 1e-6, ">= 1e-6 (1 ns)")?;
        Ok(FixedBurst {
            burst: burst as u32,
            interval: Dur::from_secs_f64(ms / 1e3),
            next: None,
        })
    }

    pub fn new(burst: u32, interval: Dur) -> FixedBurst {
        FixedBurst {
            burst,
            interval,
            next: None,
        }
    }
}

impl CongestionControl for FixedBurst {
    fn name(&self) -> &'static str {
        "fixed_burst"
    }

    fn capabilities(&self) -> Capabilities {
        // Its send timer sets the rate; the window is not the limit (no inflation).
        Capabilities::PACES_OR_TIMES.and(Capabilities::SETS_RECOVERY_WINDOW)
    }

    fn init(&mut self, w: &mut Window, now: Time) {
        // The window never limits: the timer and the burst budget do.
        w.cwnd = u64::MAX / 4;
        self.next = Some(now);
    }

    fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}

    /// Losses change nothing: the timer and the burst budget set the rate.
    fn on_congestion_event(&mut self, _w: &mut Window, _ev: CongestionEvent, _now: Time, _f: u64) {}

    /// The window is not the limit, so the sender must not inflate or deflate it either.
    fn recovery_inflation(&self) -> bool {
        false
    }

    fn send_timer(&self) -> Option<Time> {
        self.next
    }

    fn on_send_timer(&mut self, _w: &mut Window, now: Time) -> u32 {
        // Keep a fixed grid even if the driver woke us late.
        let mut next = self.next.unwrap_or(now);
        while next <= now {
            next += self.interval;
        }
        self.next = Some(next);
        self.burst
    }

    fn metrics(&self, _w: &Window) -> CcMetrics {
        CcMetrics {
            state: "burst",
            pacing_rate: None,
        }
    }
}
