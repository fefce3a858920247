//! DCTCP (RFC 8257): Reno's growth, and an answer to ECN marks in proportion to how many
//! there are.
//!
//! - The α estimator (RFC 8257 section 3.3): over each observation window (about one
//!   round trip: until the data outstanding at its start is acknowledged, Linux's
//!   `dctcp_update_alpha` with `next_seq = snd_nxt`), count the bytes acknowledged and
//!   those acknowledged with ECE; at its end α = (1 − g)·α + g·M with M their ratio and
//!   g = 1/16 (section 4.2's recommendation; Linux `dctcp_shift_g` = 4). α starts at 1
//!   (section 3.3; Linux `dctcp_alpha_on_init` = `DCTCP_MAX_ALPHA`).
//! - The reduction (section 3.3), once per window of data (the sender's CWR state,
//!   `tcp/ecn.rs`): ssthresh = cwnd·(1 − α/2), at least two segments (Linux
//!   `dctcp_ssthresh`: `max(cwnd - (cwnd * alpha >> 11), 2)`).
//! - A loss is answered as Reno answers it (section 3.5: "A DCTCP sender MUST react to
//!   loss episodes in the same way as conventional TCP"; Linux `dctcp_react_to_loss`).
//!
//! A flow with `cc = "dctcp"` turns ECN on at both ends, and its receiver echoes marks
//! the DCTCP way (RFC 8257 section 3.2, `tcp/receiver.rs`), as Linux's DCTCP asks for ECN
//! whatever `tcp_ecn` says (`TCP_CONG_NEEDS_ECN`).

use super::{AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, NewReno, Window};
use tcplab_core::Time;

/// RFC 8257's sender (see the module docs).
#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: NewReno,
    /// The estimated fraction of marked bytes, in [0, 1].
    alpha: f64,
    /// The estimation gain g.
    g: f64,
    /// Bytes acknowledged in this observation window, and those with ECE.
    acked: u64,
    acked_marked: u64,
    /// Bytes acknowledged since the start, and where this window ends in that count.
    acked_cum: u64,
    window_end: u64,
}

impl Dctcp {
    /// Parameters: `g` (default 1/16) and `alpha_init` (default 1), besides Reno's
    /// `abc_limit` and `ca_growth`.
    pub fn from_params(p: &mut CcParams) -> Result<Dctcp, String> {
        let g = p.take(
            "g",
            1.0 / 16.0,
            |v| v > 0.0 && v <= 1.0,
            "an estimation gain in (0, 1]",
        )?;
        let alpha = p.take(
            "alpha_init",
            1.0,
            |v| (0.0..=1.0).contains(&v),
            "a fraction in [0, 1]",
        )?;
        Ok(Dctcp {
            reno: NewReno::from_params(p)?,
            alpha,
            g,
            acked: 0,
            acked_marked: 0,
            acked_cum: 0,
            window_end: 0,
        })
    }

    /// The current estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

super::default_from_params!(Dctcp);

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn capabilities(&self) -> Capabilities {
        // As NewReno: ACKs of new data, the cuts.
        Capabilities::NONE
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.bytes_acked == 0 {
            return;
        }
        // Marked bytes count in recovery and CWR too (Linux's `dctcp_update_alpha` runs
        // on every ACK event).
        self.acked += ack.bytes_acked;
        self.acked_cum += ack.bytes_acked;
        if ack.ece {
            self.acked_marked += ack.bytes_acked;
        }
        if self.acked_cum >= self.window_end {
            if self.acked > 0 {
                let m = self.acked_marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
            }
            self.acked = 0;
            self.acked_marked = 0;
            // The next window ends when what is outstanding now is acknowledged.
            self.window_end = self.acked_cum + ack.in_flight.max(1);
        }
        self.reno.on_ack(w, ack);
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    ) {
        self.reno.on_congestion_event(w, ev, now, in_flight);
    }

    fn on_ecn_echo(&mut self, w: &mut Window, _now: Time, _in_flight: u64) {
        let mss = w.mss as u64;
        let cut = (w.cwnd as f64 * self.alpha / 2.0) as u64;
        w.ssthresh = (w.cwnd - cut.min(w.cwnd)).max(2 * mss);
        w.cwnd = w.ssthresh;
    }

    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        emit("dctcp_alpha", self.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn window() -> Window {
        Window {
            cwnd: 20 * MSS,
            ssthresh: 10 * MSS,
            mss: MSS as u32,
        }
    }

    /// α converges to the fraction of bytes acknowledged with ECE: 20 segments a window,
    /// the first `marked` of each window echoed; after 200 windows α is within 1 % of
    /// the fraction whatever it started from (g = 1/16: the gap shrinks by 15/16 a
    /// window).
    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        for (marked, alpha_init) in [(5, 1.0), (5, 0.0), (12, 1.0), (0, 1.0), (20, 0.0)] {
            let mut p = CcParams::new();
            p.set("alpha_init", alpha_init);
            let mut c = Dctcp::from_params(&mut p).unwrap();
            let mut w = window();
            for n in 0..200 * 20u64 {
                let ack = AckInfo {
                    in_flight: 20 * MSS - MSS,
                    ece: n % 20 < marked,
                    in_recovery: true, // no growth: the window stays at 20 segments
                    ..AckInfo::bare(Time(n), MSS)
                };
                c.on_ack(&mut w, &ack);
            }
            let f = marked as f64 / 20.0;
            assert!(
                (c.alpha() - f).abs() < 0.01,
                "{marked}/20 marked from α {alpha_init}: α = {}",
                c.alpha()
            );
        }
    }

    /// One window's update is exactly (1 − g)·α + g·M.
    #[test]
    fn one_window_updates_alpha_by_g() {
        let mut c = Dctcp::default();
        let mut w = window();
        // The first ACK closes the (empty) initial window: M = 1/1 of its bytes.
        let first = AckInfo {
            in_flight: 4 * MSS,
            ece: false,
            ..AckInfo::bare(Time(0), MSS)
        };
        c.on_ack(&mut w, &first);
        assert_eq!(c.alpha(), 15.0 / 16.0);
        // The next window: 4 segments, one of them marked.
        for n in 0..4 {
            let ack = AckInfo {
                in_flight: 4 * MSS,
                ece: n == 0,
                in_recovery: true,
                ..AckInfo::bare(Time(1 + n), MSS)
            };
            c.on_ack(&mut w, &ack);
        }
        let want = 15.0 / 16.0 * 15.0 / 16.0 + 0.25 / 16.0;
        assert!((c.alpha() - want).abs() < 1e-12, "{}", c.alpha());
    }

    /// The cut is cwnd·(1 − α/2), at least two segments; a loss is Reno's halving.
    #[test]
    fn the_cut_follows_alpha_and_a_loss_halves() {
        let mut p = CcParams::new();
        p.set("alpha_init", 0.5);
        let mut c = Dctcp::from_params(&mut p).unwrap();
        let mut w = window();
        c.on_ecn_echo(&mut w, Time(0), 20 * MSS);
        assert_eq!((w.cwnd, w.ssthresh), (15 * MSS, 15 * MSS));
        let mut small = Window {
            cwnd: 2 * MSS,
            ..window()
        };
        let mut one = Dctcp::default();
        one.on_ecn_echo(&mut small, Time(0), 2 * MSS);
        assert_eq!(small.cwnd, 2 * MSS, "at least two segments");
        let mut l = window();
        c.on_congestion_event(&mut l, CongestionEvent::FastRetransmit, Time(0), 20 * MSS);
        assert_eq!(l.ssthresh, 10 * MSS);
    }
}
