//! Classic HyStart (Ha & Rhee, "Taming the elephants: new TCP slow start", Computer
//! Networks 55(9), 2011), as Linux's CUBIC runs it by default (`net/ipv4/tcp_cubic.c`,
//! `hystart_update`): leave slow start (ssthresh = cwnd) when either
//! - the ACK train of a round, ACKs no more than `ack_delta` apart, has lasted longer than
//!   half the minimum RTT (the window then fills about half the path's pipe), or
//! - the round's minimum RTT, once `min_samples` samples were seen, exceeds the path's
//!   minimum by clamp(min/8, 4 ms, 16 ms) (a queue is building).
//!
//! Linux constants are the defaults: `hystart_low_window` 16, `hystart_ack_delta_us` 2000,
//! HYSTART_DELAY_MIN/MAX 4/16 ms, HYSTART_MIN_SAMPLES 8, `hystart_detect` 3 (both). The
//! preset `"classic-ns3"` takes ns-3's `TcpCubic` instead: the train must last the whole
//! minimum RTT, the delay threshold is clamp(min, 4 ms, 1 s), and the round's RTT is the
//! minimum of its first 8 samples only.
//!
//! Rounds are counted as in [`super::hystart`] (delivery-rate samples). Not modelled:
//! Linux's pacing cushion (`hystart_ack_delay`, for TSO/GRO) and its rule that ignores RTT
//! samples for 1 s after a congestion-avoidance epoch starts (it only slows `delay_min`
//! tracking in congestion avoidance; HyStart itself runs in slow start).

use super::delivery_round::DeliveryRound;
use super::{AckInfo, CcParams, CongestionEvent, Window};
use tcplab_core::{Dur, Time};

/// Why slow start ended, for traces (Linux's `found` with its two causes).
const TRAIN: u8 = 1;
const DELAY: u8 = 2;

/// Classic HyStart state.
#[derive(Clone, Debug)]
pub struct ClassicHyStart {
    /// cwnd in segments below which HyStart does not judge (`hystart_low_window`).
    low_window: u64,
    /// Bit 1: ACK-train detection; bit 2: delay detection (`hystart_detect`).
    detect: u8,
    ack_delta: Dur,
    /// The train must last longer than this fraction of the minimum RTT (Linux 1/2).
    train_fraction: f64,
    delay_thresh_min: Dur,
    delay_thresh_max: Dur,
    /// Delay threshold = clamp(delay_min / divisor, min, max) (Linux 8).
    delay_divisor: f64,
    min_samples: u32,
    /// ns-3: the round's RTT is the minimum of its first `min_samples` samples only.
    first_samples_only: bool,
    /// 0 while searching, else TRAIN or DELAY (what ended slow start).
    found: u8,
    delay_min: Option<Dur>,
    round: DeliveryRound,
    round_start: Time,
    last_ack: Time,
    curr_rtt: Option<Dur>,
    samples: u32,
}

impl ClassicHyStart {
    /// Parameters (defaults: Linux, or ns-3 with `ns3`): `hystart_low_window` 16 segments,
    /// `hystart_detect` 3 (1 train, 2 delay, 3 both), `hystart_ack_delta_ms` 2,
    /// `hystart_train_fraction` 0.5 (ns-3 1), `hystart_delay_min_ms` 4,
    /// `hystart_delay_max_ms` 16 (ns-3 1000), `hystart_delay_divisor` 8 (ns-3 1),
    /// `hystart_min_samples` 8, `hystart_first_samples_only` 0 (ns-3 1).
    pub fn from_params(p: &mut CcParams, ns3: bool) -> Result<ClassicHyStart, String> {
        let whole = |v: f64| v >= 1.0 && v.fract() == 0.0;
        let pos = |v: f64| v > 0.0;
        let low = p.take("hystart_low_window", 16.0, |v| v >= 0.0, ">= 0 (segments)")?;
        let detect = p.take(
            "hystart_detect",
            3.0,
            |v| v == 1.0 || v == 2.0 || v == 3.0,
            "1 (ACK train), 2 (delay) or 3 (both)",
        )?;
        let delta = p.take("hystart_ack_delta_ms", 2.0, pos, "> 0")?;
        let frac = p.take(
            "hystart_train_fraction",
            if ns3 { 1.0 } else { 0.5 },
            pos,
            "> 0",
        )?;
        let dmin = p.take("hystart_delay_min_ms", 4.0, |v| v >= 0.0, ">= 0")?;
        let dmax = p.take(
            "hystart_delay_max_ms",
            if ns3 { 1000.0 } else { 16.0 },
            |v| v >= 0.0,
            ">= 0",
        )?;
        let div = p.take(
            "hystart_delay_divisor",
            if ns3 { 1.0 } else { 8.0 },
            pos,
            "> 0",
        )?;
        let n = p.take("hystart_min_samples", 8.0, whole, "a whole number >= 1")?;
        let first = p.take(
            "hystart_first_samples_only",
            if ns3 { 1.0 } else { 0.0 },
            |v| v == 0.0 || v == 1.0,
            "0 or 1",
        )?;
        if dmax < dmin {
            return Err("parameter 'hystart_delay_max_ms' must be >= hystart_delay_min_ms".into());
        }
        let ms = |v: f64| Dur::from_secs_f64(v / 1e3);
        Ok(ClassicHyStart {
            low_window: low as u64,
            detect: detect as u8,
            ack_delta: ms(delta),
            train_fraction: frac,
            delay_thresh_min: ms(dmin),
            delay_thresh_max: ms(dmax),
            delay_divisor: div,
            min_samples: n as u32,
            first_samples_only: first == 1.0,
            found: 0,
            delay_min: None,
            round: DeliveryRound::default(),
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: None,
            samples: 0,
        })
    }

    /// An RTO (Linux: the Loss state resets CUBIC, `found` and `delay_min` included) re-arms
    /// HyStart for the slow start that follows; a fast retransmit leaves it as it is.
    pub fn on_congestion(&mut self, ev: CongestionEvent) {
        if let CongestionEvent::Rto { .. } = ev {
            self.found = 0;
            self.delay_min = None;
            self.round = DeliveryRound::default();
        }
    }

    /// Per-ACK update (`cubictcp_acked` + `hystart_update`); may set ssthresh = cwnd.
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let Some(rtt) = ack.rtt else { return };
        let rtt = rtt.max(Dur(1));
        let delay_min = self.delay_min.map_or(rtt, |m| m.min(rtt));
        self.delay_min = Some(delay_min);
        if self.found != 0 || ack.in_recovery || w.cwnd >= w.ssthresh {
            return;
        }
        let now = ack.now;
        if self.round.starts(ack) {
            // A new round: this ACK covers data sent after the last round began.
            self.round_start = now;
            self.last_ack = now;
            self.curr_rtt = None;
            self.samples = 0;
        }
        if w.cwnd < self.low_window * w.mss as u64 {
            return;
        }
        if self.detect & TRAIN != 0 && now.saturating_since(self.last_ack) <= self.ack_delta {
            self.last_ack = now;
            let threshold = Dur((delay_min.0 as f64 * self.train_fraction) as u64);
            if now.saturating_since(self.round_start) > threshold {
                self.found = TRAIN;
            }
        }
        if self.detect & DELAY != 0 {
            if !self.first_samples_only || self.samples < self.min_samples {
                self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
            }
            if self.samples < self.min_samples {
                self.samples += 1;
            } else {
                let t = Dur((delay_min.0 as f64 / self.delay_divisor) as u64)
                    .clamp(self.delay_thresh_min, self.delay_thresh_max);
                if self.curr_rtt.is_some_and(|c| c > delay_min + t) && self.found == 0 {
                    self.found = DELAY;
                }
            }
        }
        if self.found != 0 {
            w.ssthresh = w.cwnd;
        }
    }

    pub fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        emit("hystart_found", self.found as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::RateSample;

    const MSS: u64 = 1000;

    /// An ACK at `t_us` delivering one segment, with an RTT sample of `rtt_us`.
    fn ack(t_us: u64, delivered: u64, prior: u64, rtt_us: u64) -> AckInfo {
        AckInfo {
            rtt: Some(Dur(rtt_us * 1000)),
            rate: Some(RateSample {
                prior_delivered: prior,
                ..RateSample::default()
            }),
            delivered,
            ..AckInfo::bare(Time(t_us * 1000), MSS)
        }
    }

    fn window(segs: u64) -> Window {
        Window {
            cwnd: segs * MSS,
            ssthresh: u64::MAX,
            mss: MSS as u32,
        }
    }

    fn linux() -> ClassicHyStart {
        ClassicHyStart::from_params(&mut CcParams::new(), false).unwrap()
    }

    /// Round 1 sets delay_min = 20 ms. Round 2 starts at t = 100 ms; its ACKs come 1 ms
    /// apart (a train). The train must last more than delay_min/2 = 10 ms: the ACK at
    /// 110 ms (exactly 10 ms) does not end slow start, the one at 111 ms does.
    #[test]
    fn ack_train_reaching_half_the_min_rtt_ends_slow_start() {
        let mut hs = linux();
        let mut w = window(20);
        hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
        // Round 2 begins with an ACK of data sent after round 1 began (prior_delivered
        // MSS reaches round 1's mark); its later ACKs are of data sent before it began.
        let (d0, p1, start) = (2 * MSS, MSS, 100_000);
        for i in 0..=10 {
            hs.on_ack(&mut w, &ack(start + i * 1000, d0 + i * MSS, p1, 20_000));
        }
        assert_eq!(
            (w.ssthresh, hs.found),
            (u64::MAX, 0),
            "10 ms is not > 10 ms"
        );
        hs.on_ack(&mut w, &ack(start + 11_000, d0 + 11 * MSS, p1, 20_000));
        assert_eq!((w.ssthresh, hs.found), (20 * MSS, TRAIN));

        // The same ACKs 3 ms apart are no train; below 16 segments HyStart does not judge.
        for (gap, segs) in [(3_000, 20), (1_000, 15)] {
            let mut hs = linux();
            let mut w = window(segs);
            hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
            for i in 0..30 {
                hs.on_ack(&mut w, &ack(start + i * gap, d0 + i * MSS, p1, 20_000));
            }
            assert_eq!(w.ssthresh, u64::MAX, "gap {gap} us, cwnd {segs}");
        }
    }

    /// delay_min = 20 ms, threshold clamp(20/8 = 2.5 ms, 4, 16) = 4 ms. In a round of
    /// 25 ms samples (ACKs 3 ms apart: no train) the first 8 samples only count; the 9th
    /// compares 25 > 20 + 4 and ends slow start. 24 ms samples (not > 24) never do.
    #[test]
    fn delay_increase_ends_slow_start_after_eight_samples() {
        for (rtt, exits) in [(25_000, true), (24_000, false)] {
            let mut hs = linux();
            let mut w = window(20);
            hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
            let d0 = 2 * MSS;
            for i in 0..8 {
                hs.on_ack(&mut w, &ack(100_000 + i * 3_000, d0 + i * MSS, MSS, rtt));
            }
            assert_eq!(w.ssthresh, u64::MAX, "8 samples are only collected");
            for i in 8..20 {
                hs.on_ack(&mut w, &ack(100_000 + i * 3_000, d0 + i * MSS, MSS, rtt));
            }
            let want = if exits { 20 * MSS } else { u64::MAX };
            assert_eq!(w.ssthresh, want, "rtt {rtt} us");
            if exits {
                assert_eq!(hs.found, DELAY);
            }
        }
    }

    /// ns-3's preset: the train must last the whole min RTT (20 ms) and the delay threshold
    /// is clamp(20 ms, 4 ms, 1 s) = 20 ms, so 25 ms samples are no delay increase.
    #[test]
    fn ns3_preset_needs_a_longer_train_and_a_larger_delay() {
        let mut hs = ClassicHyStart::from_params(&mut CcParams::new(), true).unwrap();
        let mut w = window(20);
        hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
        let d0 = 2 * MSS;
        for i in 0..=20 {
            hs.on_ack(&mut w, &ack(100_000 + i * 1000, d0 + i * MSS, MSS, 20_000));
        }
        assert_eq!(w.ssthresh, u64::MAX, "20 ms is not > 20 ms");
        hs.on_ack(&mut w, &ack(121_000, d0 + 21 * MSS, MSS, 20_000));
        assert_eq!(hs.found, TRAIN);

        let mut hs = ClassicHyStart::from_params(&mut CcParams::new(), true).unwrap();
        let mut w = window(20);
        hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
        for i in 0..30 {
            hs.on_ack(&mut w, &ack(100_000 + i * 3000, d0 + i * MSS, MSS, 25_000));
        }
        assert_eq!(w.ssthresh, u64::MAX);
    }

    #[test]
    fn rto_rearms_it() {
        let mut hs = linux();
        let mut w = window(20);
        hs.on_ack(&mut w, &ack(40_000, MSS, 0, 20_000));
        for i in 0..12 {
            hs.on_ack(
                &mut w,
                &ack(100_000 + i * 1000, 2 * MSS + i * MSS, MSS, 20_000),
            );
        }
        assert_eq!(hs.found, TRAIN);
        hs.on_congestion(CongestionEvent::FastRetransmit);
        assert_eq!(hs.found, TRAIN);
        hs.on_congestion(CongestionEvent::Rto { repeated: false });
        assert_eq!((hs.found, hs.delay_min), (0, None));
    }
}
