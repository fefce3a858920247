//! HyStart++ (RFC 9406): leave slow start when the round's minimum RTT rises, before the
//! overshoot causes a burst of losses. Optional for CUBIC (RFC 9438 section 4.10).
//!
//! Rounds are counted with delivery-rate samples: a round ends when an ACK acknowledges a
//! segment sent after the round began (its `prior_delivered` reached the round's mark),
//! which is RFC 9406's "ACK beyond windowEnd" without access to SND.NXT.

use super::delivery_round::DeliveryRound;
use super::{AckInfo, CcParams, Window};
use tcplab_core::Dur;

/// HyStart++ state (RFC 9406 section 4.2).
#[derive(Clone, Debug)]
pub struct HyStart {
    /// MIN_RTT_THRESH / MAX_RTT_THRESH (4 ms, 16 ms) and MIN_RTT_DIVISOR (8).
    min_thresh: Dur,
    max_thresh: Dur,
    divisor: f64,
    /// N_RTT_SAMPLE (8): RTT samples a round needs before it is judged.
    n_rtt_sample: u32,
    /// CSS_GROWTH_DIVISOR (4) and CSS_ROUNDS (5).
    css_divisor: u64,
    css_rounds: u32,
    round: DeliveryRound,
    last_round_min: Option<Dur>,
    cur_round_min: Option<Dur>,
    samples: u32,
    /// Conservative slow start: the RTT that triggered it, and rounds spent in it.
    css_baseline: Option<Dur>,
    css_count: u32,
    done: bool,
}

impl HyStart {
    /// Parameters with RFC 9406 section 4.3 defaults: `hs_min_rtt_thresh_ms` 4,
    /// `hs_max_rtt_thresh_ms` 16, `hs_min_rtt_divisor` 8, `hs_n_rtt_sample` 8,
    /// `hs_css_growth_divisor` 4, `hs_css_rounds` 5.
    pub fn from_params(p: &mut CcParams) -> Result<HyStart, String> {
        let pos = |v: f64| v > 0.0;
        let whole = |v: f64| v >= 1.0 && v.fract() == 0.0;
        let min_t = p.take("hs_min_rtt_thresh_ms", 4.0, pos, "> 0")?;
        let max_t = p.take("hs_max_rtt_thresh_ms", 16.0, pos, "> 0")?;
        let divisor = p.take("hs_min_rtt_divisor", 8.0, pos, "> 0")?;
        let n = p.take("hs_n_rtt_sample", 8.0, whole, "a whole number >= 1")?;
        let css_div = p.take("hs_css_growth_divisor", 4.0, |v| v >= 2.0, ">= 2")?;
        let css_rounds = p.take("hs_css_rounds", 5.0, whole, "a whole number >= 1")?;
        if max_t < min_t {
            return Err("parameter 'hs_max_rtt_thresh_ms' must be >= hs_min_rtt_thresh_ms".into());
        }
        Ok(HyStart {
            min_thresh: Dur::from_secs_f64(min_t / 1e3),
            max_thresh: Dur::from_secs_f64(max_t / 1e3),
            divisor,
            n_rtt_sample: n as u32,
            css_divisor: css_div as u64,
            css_rounds: css_rounds as u32,
            round: DeliveryRound::default(),
            last_round_min: None,
            cur_round_min: None,
            samples: 0,
            css_baseline: None,
            css_count: 0,
            done: false,
        })
    }

    /// Slow-start growth is divided by this (CSS_GROWTH_DIVISOR while in CSS, else 1).
    pub fn growth_divisor(&self) -> u64 {
        if self.css_baseline.is_some() {
            self.css_divisor
        } else {
            1
        }
    }

    /// A loss ends slow start for good (section 4.2: CSS and slow start exit on loss).
    pub fn on_congestion(&mut self) {
        self.done = true;
        self.css_baseline = None;
    }

    /// Per-ACK update; may end slow start by setting ssthresh = cwnd.
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if self.done || ack.in_recovery || w.cwnd >= w.ssthresh {
            return;
        }
        if self.round.starts(ack) {
            self.last_round_min = self.cur_round_min;
            self.cur_round_min = None;
            self.samples = 0;
            if self.css_baseline.is_some() {
                self.css_count += 1;
                if self.css_count >= self.css_rounds {
                    // Section 4.2: CSS_ROUNDS rounds in CSS: enter congestion avoidance.
                    w.ssthresh = w.cwnd;
                    self.done = true;
                    self.css_baseline = None;
                    return;
                }
            }
        }
        let Some(rtt) = ack.rtt else { return };
        self.cur_round_min = Some(self.cur_round_min.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
        if self.samples < self.n_rtt_sample {
            return;
        }
        let cur = self.cur_round_min.expect("set above");
        match self.css_baseline {
            None => {
                let Some(last) = self.last_round_min else {
                    return;
                };
                let thresh = Dur::from_secs_f64(last.as_secs_f64() / self.divisor)
                    .clamp(self.min_thresh, self.max_thresh);
                if cur >= last + thresh {
                    // Section 4.2: the RTT rose by RttThresh: conservative slow start.
                    self.css_baseline = Some(cur);
                    self.css_count = 0;
                }
            }
            Some(base) if cur < base => {
                // The rise was spurious: resume slow start.
                self.css_baseline = None;
            }
            Some(_) => {}
        }
    }

    pub fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        emit("hystart_css", self.css_baseline.is_some() as u8 as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::RateSample;
    use tcplab_core::Time;

    fn ack(delivered: u64, prior: u64, rtt_ms: u64) -> AckInfo {
        AckInfo {
            rtt: Some(Dur::from_millis(rtt_ms)),
            rate: Some(RateSample {
                prior_delivered: prior,
                ..RateSample::default()
            }),
            delivered,
            ..AckInfo::bare(Time::ZERO, 1000)
        }
    }

    /// A round at 50 ms then a round at 60 ms (≥ 50 + 50/8 ms) enters CSS; five CSS
    /// rounds end slow start with ssthresh = cwnd. A flat RTT never leaves slow start.
    #[test]
    fn rtt_rise_enters_css_then_congestion_avoidance() {
        let mut hs = HyStart::from_params(&mut CcParams::new()).unwrap();
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let mut delivered = 0;
        let mut round = |hs: &mut HyStart, w: &mut Window, rtt: u64| {
            let start = delivered;
            for _ in 0..10 {
                delivered += 1000;
                hs.on_ack(w, &ack(delivered, start, rtt));
            }
        };
        round(&mut hs, &mut w, 50);
        round(&mut hs, &mut w, 50);
        assert_eq!(hs.growth_divisor(), 1);
        round(&mut hs, &mut w, 57);
        assert_eq!(hs.growth_divisor(), 4, "RTT rose by >= 6.25 ms: CSS");
        for _ in 0..5 {
            round(&mut hs, &mut w, 57);
        }
        assert_eq!(w.ssthresh, w.cwnd, "CSS_ROUNDS done: congestion avoidance");

        let mut hs = HyStart::from_params(&mut CcParams::new()).unwrap();
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        for _ in 0..10 {
            round(&mut hs, &mut w, 50);
        }
        assert_eq!((hs.growth_divisor(), w.ssthresh), (1, u64::MAX));
    }
}
