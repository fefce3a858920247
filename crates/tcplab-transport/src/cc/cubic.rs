//! CUBIC (RFC 9438): window growth as a cubic function of the time since the last
//! congestion event, with a Reno-friendly floor and a 0.7 multiplicative decrease.
//!
//! Windows are kept in segments (f64) as in the RFC's formulas; `Window::cwnd` stays in
//! bytes, with a fractional-byte accumulator so per-ACK increments below one byte add up.

use super::hystart::HyStart;
use super::hystart_classic::ClassicHyStart;
use super::{AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, Window};
use tcplab_core::{Dur, Time};

/// Which rule set cwnd on the last congestion-avoidance ACK (RFC 9438 sections 4.3-4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    SlowStart = 0,
    RenoFriendly = 1,
    Concave = 2,
    Convex = 3,
}

/// How slow start ends besides a loss (`hystart`).
#[derive(Clone, Debug)]
enum SlowStartExit {
    Off,
    /// RFC 9406.
    PlusPlus(HyStart),
    /// Ha & Rhee, as Linux (or ns-3) runs it.
    Classic(ClassicHyStart),
}

/// CUBIC congestion control.
#[derive(Clone, Debug)]
pub struct Cubic {
    /// C (section 4.1.1): aggressiveness of the cubic function, segments/s³ (default 0.4).
    c: f64,
    /// β_cubic (section 4.1.1): multiplicative decrease factor (default 0.7).
    beta: f64,
    /// Section 4.7: lower W_max when a loss comes before the previous W_max is regained.
    fast_convergence: bool,
    /// Section 4.3: follow W_est when Reno would be faster (default on).
    reno_friendly: bool,
    /// α_cubic becomes 1 at cwnd_prior (RFC 9438), or stays (Linux).
    alpha_switch: bool,
    /// RFC 3465 slow-start limit L in segments (as NewReno).
    abc_limit: u64,
    /// HyStart++ (RFC 9406) or classic HyStart, when enabled.
    hystart: SlowStartExit,
    /// W_max (section 4.1.2): window in segments just before the last reduction.
    w_max: f64,
    /// cwnd_prior: window in segments when ssthresh was last set (section 4.3: α switch).
    cwnd_prior: f64,
    /// K (eq. 2) in seconds.
    k: f64,
    /// Start of the current congestion-avoidance stage (t = 0 of eq. 1).
    epoch_start: Option<Time>,
    /// W_est (eq. 4) in segments.
    w_est: f64,
    /// Fractional bytes of growth not yet added to cwnd.
    frac: f64,
    region: Region,
    /// ssthresh = β·cwnd in whole segments, ignoring what the sender reports in flight
    /// (`ssthresh_from = "cwnd"`: ns-3's `TcpCubic::GetSsThresh`).
    from_cwnd: bool,
}

impl Cubic {
    /// Parameters (defaults from RFC 9438 section 4.1.1 and section 4.7): `c` 0.4,
    /// `beta` 0.7, `fast_convergence` 1, `reno_friendly` 1, `abc_limit` 2 (RFC 3465),
    /// `hystart` `"off"` (default; 0), `"hystartpp"` (1: HyStart++, RFC 9406, with the
    /// parameters in `hystart.rs`), `"classic"` (Linux's HyStart, `hystart_classic.rs`) or
    /// `"classic-ns3"` (ns-3's variant of it); `ssthresh_from` `"flight"` (default: β times
    /// what the sender reports in flight, its `ssthresh_basis`) or `"cwnd"` (ns-3's
    /// `TcpCubic::GetSsThresh`: max(⌊⌊cwnd / MSS⌋·β⌋, 2) segments, whatever is in flight);
    /// `alpha_switch` 1 (RFC 9438 section 4.3: α_cubic becomes 1 once W_est reaches
    /// cwnd_prior) or 0 (Linux's `bictcp_update`: its Reno estimate `tcp_cwnd` grows by
    /// one segment per `beta_scale`/8 windows ACKed, α = 3(1 − β)/(1 + β) throughout).
    pub fn from_params(p: &mut CcParams) -> Result<Cubic, String> {
        let c = p.take("c", 0.4, |v| v > 0.0, "> 0")?;
        let beta = p.take("beta", 0.7, |v| v > 0.0 && v < 1.0, "in (0, 1)")?;
        let flag = |v: f64| v == 0.0 || v == 1.0;
        let fc = p.take("fast_convergence", 1.0, flag, "0 or 1")?;
        let rf = p.take("reno_friendly", 1.0, flag, "0 or 1")?;
        let alpha_switch = p.take("alpha_switch", 1.0, flag, "0 or 1")?;
        let abc = p.take(
            "abc_limit",
            2.0,
            |v| v >= 1.0 && v.fract() == 0.0,
            "a whole number >= 1",
        )?;
        let hs = p.take_choice(
            "hystart",
            "off",
            &["off", "hystartpp", "classic", "classic-ns3"],
            &["off", "hystartpp"],
        )?;
        let from_cwnd =
            p.take_choice("ssthresh_from", "flight", &["flight", "cwnd"], &[])? == "cwnd";
        let plus_plus = HyStart::from_params(p)?;
        let classic = ClassicHyStart::from_params(p, hs == "classic-ns3")?;
        let hystart = match hs {
            "hystartpp" => SlowStartExit::PlusPlus(plus_plus),
            "classic" | "classic-ns3" => SlowStartExit::Classic(classic),
            _ => SlowStartExit::Off,
        };
        Ok(Cubic {
            c,
            beta,
            fast_convergence: fc == 1.0,
            reno_friendly: rf == 1.0,
            alpha_switch: alpha_switch == 1.0,
            abc_limit: abc as u64,
            hystart,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            frac: 0.0,
            region: Region::SlowStart,
            from_cwnd,
        })
    }

    /// Eq. 1: W_cubic(t) = C·(t − K)³ + W_max, in segments.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    /// α_cubic (section 4.3): 3(1 − β)/(1 + β) until W_est reaches cwnd_prior, then 1
    /// (Reno's rate once the window lost at the last reduction is regained).
    fn alpha(&self) -> f64 {
        if self.alpha_switch && self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        }
    }

    /// Starts a congestion-avoidance stage (section 4.2; section 4.8 after a timeout:
    /// W_max then is 0 here, so K = 0 and W_max becomes the current window).
    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        self.w_est = cwnd;
        if self.w_max <= cwnd {
            self.w_max = cwnd;
            self.k = 0.0;
        } else {
            // Eq. 2 with cwnd_epoch: K = cbrt((W_max − cwnd_epoch)/C).
            self.k = ((self.w_max - cwnd) / self.c).cbrt();
        }
    }

    fn add_bytes(&mut self, w: &mut Window, bytes: f64) {
        self.frac += bytes.max(0.0);
        let whole = self.frac.floor();
        self.frac -= whole;
        w.cwnd += whole as u64;
    }

    fn congestion_avoidance(&mut self, w: &mut Window, ack: &AckInfo) {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let now = ack.now;
        if self.epoch_start.is_none() {
            self.start_epoch(now, cwnd);
        }
        let t = (now - self.epoch_start.expect("set above")).as_secs_f64();
        let rtt = ack.srtt.or(ack.rtt).unwrap_or(Dur::ZERO).as_secs_f64();
        let acked = ack.bytes_acked as f64 / mss;
        // Section 4.3, eq. 4: W_est grows by α_cubic per window of acknowledged segments.
        self.w_est += self.alpha() * acked / cwnd;
        let w_t = self.w_cubic(t);
        if self.reno_friendly && w_t < self.w_est {
            // Section 4.3: the Reno-friendly region; cwnd follows W_est.
            self.region = Region::RenoFriendly;
            let target = self.w_est * mss;
            if target > w.cwnd as f64 {
                self.add_bytes(w, target - w.cwnd as f64);
            }
            return;
        }
        self.region = if cwnd < self.w_max {
            Region::Concave
        } else {
            Region::Convex
        };
        // Sections 4.4/4.5: target = W_cubic(t + RTT), kept within [cwnd, 1.5·cwnd];
        // cwnd grows by (target − cwnd)/cwnd per acknowledged segment.
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        self.add_bytes(w, (target - cwnd) / cwnd * acked * mss);
    }
}

super::default_from_params!(Cubic);

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn capabilities(&self) -> Capabilities {
        // HyStart (either kind) reads the delivery-rate sample: its rounds end by
        // delivered bytes. CUBIC's own growth reads neither.
        let base = Capabilities::HEARS_ACKS_WITHOUT_PROGRESS;
        match self.hystart {
            SlowStartExit::Off => base,
            _ => base.and(Capabilities::READS_DELIVERY),
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        match &mut self.hystart {
            SlowStartExit::Off => {}
            SlowStartExit::PlusPlus(hs) => hs.on_ack(w, ack),
            SlowStartExit::Classic(hs) => hs.on_ack(w, ack),
        }
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            // Section 4.10: standard slow start (RFC 5681 with RFC 3465 byte counting),
            // or HyStart++'s conservative slow start.
            self.region = Region::SlowStart;
            let inc = ack
                .bytes_acked
                .min(self.abc_limit.saturating_mul(w.mss as u64));
            let div = match &self.hystart {
                SlowStartExit::PlusPlus(h) => h.growth_divisor(),
                _ => 1,
            };
            self.add_bytes(w, inc as f64 / div as f64);
            return;
        }
        self.congestion_avoidance(w, ack);
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        _now: Time,
        in_flight: u64,
    ) {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        self.epoch_start = None;
        self.frac = 0.0;
        match &mut self.hystart {
            SlowStartExit::Off => {}
            SlowStartExit::PlusPlus(hs) => hs.on_congestion(),
            SlowStartExit::Classic(hs) => hs.on_congestion(ev),
        }
        if let CongestionEvent::Rto { repeated: true } = ev {
            // RFC 5681 as in section 4.8: ssthresh held on a repeated timeout.
            w.cwnd = w.mss as u64;
            return;
        }
        // Section 4.7: fast convergence releases bandwidth for a newer flow.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // Section 4.6: ssthresh = flight_size·β_cubic, at least 2 segments.
        let ssthresh = if self.from_cwnd {
            ((cwnd.floor() * self.beta) as u64).max(2) * w.mss as u64
        } else {
            ((in_flight as f64 * self.beta) as u64).max(2 * w.mss as u64)
        };
        w.ssthresh = ssthresh;
        match ev {
            CongestionEvent::FastRetransmit => w.cwnd = ssthresh,
            CongestionEvent::Rto { .. } => {
                // Section 4.8: loss window of one segment; the next stage uses K = 0 and
                // W_max = cwnd at its start.
                w.cwnd = w.mss as u64;
                self.w_max = 0.0;
            }
        }
    }

    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        emit("w_max", self.w_max);
        emit("k", self.k);
        emit("w_est", self.w_est);
        emit("region", self.region as u8 as f64);
        match &self.hystart {
            SlowStartExit::Off => {}
            SlowStartExit::PlusPlus(hs) => hs.trace(emit),
            SlowStartExit::Classic(hs) => hs.trace(emit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ack(now_ms: u64, bytes: u64, srtt_ms: u64) -> AckInfo {
        AckInfo {
            srtt: Some(Dur::from_millis(srtt_ms)),
            min_rtt: Some(Dur::from_millis(srtt_ms)),
            ..AckInfo::bare(Time::ZERO + Dur::from_millis(now_ms), bytes)
        }
    }

    fn window(segs: u64) -> Window {
        Window {
            cwnd: segs * MSS as u64,
            ssthresh: u64::MAX,
            mss: MSS,
        }
    }

    fn loss(cc: &mut Cubic, w: &mut Window) {
        let flight = w.cwnd;
        cc.on_congestion_event(w, CongestionEvent::FastRetransmit, Time::ZERO, flight);
    }

    #[test]
    fn loss_reduces_by_beta_and_sets_k() {
        let mut cc = Cubic::default();
        let mut w = window(100);
        loss(&mut cc, &mut w);
        assert_eq!(w.cwnd, 70 * MSS as u64, "β_cubic = 0.7");
        assert_eq!(w.ssthresh, 70 * MSS as u64);
        assert_eq!(cc.w_max, 100.0);
        cc.on_ack(&mut w, &ack(0, MSS as u64, 100));
        // K = cbrt(W_max(1 − β)/C) = cbrt(100·0.3/0.4) = cbrt(75).
        assert!((cc.k - 75f64.cbrt()).abs() < 1e-9, "K = {}", cc.k);
    }

    /// A loss with 100 segments of window but 40 in flight: by default ssthresh is β
    /// times what is in flight (28 segments); `ssthresh_from = "cwnd"` (ns-3) β·cwnd (70).
    #[test]
    fn ssthresh_from_cwnd_ignores_what_is_in_flight() {
        for (from, segs) in [("flight", 28), ("cwnd", 70)] {
            let mut p = CcParams::new().with_name("ssthresh_from", from);
            let mut cc = Cubic::from_params(&mut p).unwrap();
            let mut w = window(100);
            let flight = 40 * MSS as u64;
            cc.on_congestion_event(&mut w, CongestionEvent::FastRetransmit, Time::ZERO, flight);
            assert_eq!(w.ssthresh, segs * MSS as u64, "{from}");
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_only_when_enabled() {
        let mut cc = Cubic::default();
        let mut w = window(100);
        loss(&mut cc, &mut w);
        w.cwnd = 80 * MSS as u64; // a second loss before regaining W_max = 100
        loss(&mut cc, &mut w);
        assert!(
            (cc.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9,
            "W_max {}",
            cc.w_max
        );

        let mut p = CcParams::new().with("fast_convergence", 0.0);
        let mut cc = Cubic::from_params(&mut p).unwrap();
        let mut w = window(100);
        loss(&mut cc, &mut w);
        w.cwnd = 80 * MSS as u64;
        loss(&mut cc, &mut w);
        assert_eq!(cc.w_max, 80.0);
    }

    /// Per-ACK growth follows eq. 1: after ~K seconds of ACKs the window is back at W_max,
    /// and the increase per RTT matches W_cubic(t + RTT) − cwnd.
    #[test]
    fn window_tracks_the_cubic_function() {
        let mut p = CcParams::new().with("reno_friendly", 0.0);
        let mut cc = Cubic::from_params(&mut p).unwrap();
        let mut w = window(1000);
        loss(&mut cc, &mut w);
        let rtt = 100u64;
        let mut t = 0;
        while t < 12_000 {
            // One RTT: a window of ACKs, one per segment, spread over the RTT.
            let segs = w.cwnd / MSS as u64;
            for i in 0..segs {
                cc.on_ack(&mut w, &ack(t + i * rtt / segs, MSS as u64, rtt));
            }
            t += rtt;
            let want = cc.w_cubic(t as f64 / 1000.0);
            let got = w.cwnd as f64 / MSS as f64;
            assert!(
                (got - want).abs() <= 0.02 * cc.w_max,
                "t={t} ms: cwnd {got:.1} vs W_cubic {want:.1}"
            );
        }
        assert!(cc.region == Region::Convex);
    }

    /// `n` round trips of 1 ms, one ACK per segment of the window.
    fn one_ms_rtts(cc: &mut Cubic, w: &mut Window, n: u64) {
        for t in 0..n {
            for _ in 0..w.cwnd / MSS as u64 {
                cc.on_ack(w, &ack(t, MSS as u64, 1));
            }
        }
    }

    #[test]
    fn reno_friendly_region_on_short_rtt() {
        let mut cc = Cubic::default();
        let mut w = window(20);
        loss(&mut cc, &mut w);
        // 1 ms RTT: the cubic function barely moves, Reno's per-RTT growth wins.
        one_ms_rtts(&mut cc, &mut w, 10);
        assert_eq!(cc.region, Region::RenoFriendly);
        // W_est from 14 with α = 3·0.3/1.7 ≈ 0.53 per RTT (below cwnd_prior = 20).
        let alpha = 0.9 / 1.7;
        let expect = 14.0 + 10.0 * alpha;
        let got = w.cwnd as f64 / MSS as f64;
        assert!((got - expect).abs() < 0.6, "cwnd {got} vs {expect}");
        let mut p = CcParams::new().with("reno_friendly", 0.0);
        let mut cc = Cubic::from_params(&mut p).unwrap();
        let mut w2 = window(20);
        loss(&mut cc, &mut w2);
        one_ms_rtts(&mut cc, &mut w2, 10);
        assert!(w2.cwnd < w.cwnd, "without the Reno floor growth is slower");
    }

    /// Linux's `bictcp_update` keeps the Reno estimate's rate past cwnd_prior.
    #[test]
    fn alpha_stays_without_the_switch() {
        let mut cc = Cubic::from_params(&mut CcParams::new().with("alpha_switch", 0.0)).unwrap();
        cc.cwnd_prior = 10.0;
        cc.w_est = 12.0;
        assert!((cc.alpha() - 0.9 / 1.7).abs() < 1e-12);
        assert!(Cubic::from_params(&mut CcParams::new().with("alpha_switch", 2.0)).is_err());
    }

    #[test]
    fn alpha_becomes_one_after_cwnd_prior() {
        let mut cc = Cubic::default();
        let mut w = window(10);
        loss(&mut cc, &mut w);
        cc.w_est = 10.0;
        assert_eq!(cc.alpha(), 1.0);
        cc.w_est = 9.0;
        assert!((cc.alpha() - 0.9 / 1.7).abs() < 1e-12);
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut cc = Cubic::default();
        let mut w = window(100);
        cc.on_congestion_event(
            &mut w,
            CongestionEvent::Rto { repeated: false },
            Time::ZERO,
            100 * MSS as u64,
        );
        assert_eq!((w.cwnd, w.ssthresh), (MSS as u64, 70 * MSS as u64));
        w.cwnd = w.ssthresh;
        cc.on_ack(&mut w, &ack(0, MSS as u64, 100));
        assert_eq!(cc.k, 0.0);
        assert!((cc.w_max - 70.0).abs() < 1e-9);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = CcParams::new().with("beta", 1.5);
        assert!(Cubic::from_params(&mut p).is_err());
        let mut p = CcParams::new().with("c", 0.0);
        assert!(Cubic::from_params(&mut p).is_err());
        let mut p = CcParams::new().with("c", 0.8).with("beta", 0.5);
        let cc = Cubic::from_params(&mut p).unwrap();
        p.finish("cubic").unwrap();
        assert_eq!((cc.c, cc.beta), (0.8, 0.5));
    }
}
