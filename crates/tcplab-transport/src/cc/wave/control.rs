//! The per-round TxTime update: tracking and adjustment modes (v0.2
//! `wavetcp_round_terminated`, `wavetcp_tracking_mode`, `wavetcp_adj_mode`).

use super::rtt::RttStats;
use super::train::{dispersion, Round};
use tcplab_core::Dur;

/// The controller's phase, for traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No round has updated TxTime yet (TxTime = init_timer).
    Startup,
    Tracking,
    Adjustment,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "wave_startup",
            Mode::Tracking => "wave_tracking",
            Mode::Adjustment => "wave_adjustment",
        }
    }

    pub fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Tracking => 1.0,
            Mode::Adjustment => 2.0,
        }
    }
}

/// TxTime and what decides it.
#[derive(Clone, Debug)]
pub struct Control {
    pub burst: u32,
    pub min_burst: u32,
    pub init_timer: Dur,
    pub beta: Dur,
    pub tx_time: Dur,
    pub mode: Mode,
    /// Rounds left before the next update (the adjustment-mode stabilisation counter).
    pub stab: u64,
    pub prev_atd: Option<Dur>,
}

impl Control {
    pub fn new(burst: u32, min_burst: u32, init_timer: Dur, beta: Dur) -> Control {
        Control {
            burst,
            min_burst,
            init_timer,
            beta,
            tx_time: init_timer,
            mode: Mode::Startup,
            stab: 0,
            prev_atd: None,
        }
    }

    /// The interval until the next burst: TxTime capped at init_timer (all versions).
    pub fn interval(&self) -> Dur {
        self.tx_time.min(self.init_timer)
    }

    /// End of a round of `round.burst` segments. Bursts of min_burst segments or fewer
    /// carry too little train to measure and are skipped (v0.2 `wavetcp_end_round`).
    pub fn round_terminated(&mut self, round: &Round, rtt: &mut RttStats) {
        if round.burst.segments <= self.min_burst {
            return;
        }
        rtt.end_round_avg();
        if self.stab > 0 {
            self.stab -= 1;
            return;
        }
        let delta = rtt.delta();
        let atd = self.atd_for(round);
        if delta > self.beta {
            // Adjustment: hold init_timer for about avg_rtt / TxTime rounds (v0.2; v0.1
            // divided by the ATD), forget the floor and assume the worst RTT as average.
            let avg = rtt.avg.unwrap_or(Dur::ZERO);
            self.stab = avg.0 / self.tx_time.0.max(1);
            rtt.reset_for_adjustment();
            self.tx_time = self.init_timer;
            self.mode = Mode::Adjustment;
        } else if let Some(atd) = atd {
            // Tracking: TxTime = ATD + ΔRTT/2; a zero timer is forced to 1 ms.
            let t = atd + delta / 2;
            self.tx_time = if t == Dur::ZERO {
                Dur::from_millis(1)
            } else {
                t
            };
            self.mode = Mode::Tracking;
        }
    }

    /// v0.2 `calculate_ack_train_disp` without the rate-sample heuristic: a fresh
    /// dispersion for a full burst (or the first one ever), else the previous value.
    fn atd_for(&mut self, round: &Round) -> Option<Dur> {
        if round.first_ack.is_none() || round.aligned <= 1 {
            return self.prev_atd;
        }
        if round.burst.segments != self.burst && self.prev_atd.is_some() {
            return self.prev_atd;
        }
        if let Some(a) = dispersion(round, self.burst) {
            self.prev_atd = Some(a);
        }
        self.prev_atd
    }
}
