//! Reno-family window growth (RFC 5681, with RFC 3465 byte counting).
//!
//! The same controller serves Reno and NewReno: they differ only in the sender's loss
//! recovery (RFC 5681 fast recovery vs RFC 6582 partial ACKs), which the sender owns.
//!
//! Congestion avoidance counts growth one of two ways (`ca_growth`):
//! - `"abc"` (default): RFC 3465 byte counting, one SMSS per cwnd of acknowledged bytes.
//!   Linux does the same in packets (`tcp_cong_avoid_ai`: `snd_cwnd_cnt` += segments
//!   acked, cwnd += 1 once it reaches cwnd).
//! - `"per-ack"`: RFC 5681 eq. 3, cwnd += SMSS·SMSS/cwnd per ACK of new data whatever it
//!   acknowledges (at least 1 byte, rounded down), as ns-3's `TcpNewReno`. With a receiver
//!   that ACKs every second segment the window grows by about half a segment per RTT.

use super::{
    reno_response, AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, Window,
};
use tcplab_core::Time;

/// How congestion avoidance counts acknowledgements (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaGrowth {
    /// RFC 3465 appropriate byte counting.
    Abc,
    /// RFC 5681 eq. 3: SMSS·SMSS/cwnd per ACK.
    PerAck,
}

/// Slow start and congestion avoidance of RFC 5681.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// RFC 3465 limit L in segments: slow start grows by at most L·SMSS per ACK.
    abc_limit: u64,
    ca_growth: CaGrowth,
    /// Bytes acknowledged since the last congestion-avoidance increment.
    bytes_acked: u64,
}

impl NewReno {
    /// Parameters: `abc_limit` (segments, default 2, RFC 3465 for delayed-ACK receivers)
    /// and `ca_growth` (`"abc"`, default, or `"per-ack"`).
    pub fn from_params(p: &mut CcParams) -> Result<NewReno, String> {
        let mut nr = NewReno::slow_start_from_params(p)?;
        nr.ca_growth = match p.take_choice("ca_growth", "abc", &["abc", "per-ack"], &[])? {
            "per-ack" => CaGrowth::PerAck,
            _ => CaGrowth::Abc,
        };
        Ok(nr)
    }

    /// For controllers that use only this slow start (Vegas): takes `abc_limit` alone.
    pub(super) fn slow_start_from_params(p: &mut CcParams) -> Result<NewReno, String> {
        let abc = p.take(
            "abc_limit",
            2.0,
            |v| v >= 1.0 && v.fract() == 0.0,
            "a whole number >= 1",
        )?;
        Ok(NewReno {
            abc_limit: abc as u64,
            ca_growth: CaGrowth::Abc,
            bytes_acked: 0,
        })
    }

    pub fn ca_growth(&self) -> CaGrowth {
        self.ca_growth
    }
}

super::default_from_params!(NewReno);

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn capabilities(&self) -> Capabilities {
        // Only the core: growth on ACKs of new data (an ACK that acknowledges nothing
        // new changes nothing), Reno's cut on a loss.
        Capabilities::NONE
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        let mss = w.mss as u64;
        if w.cwnd < w.ssthresh {
            // RFC 5681 (2) with RFC 3465: cwnd += min(N, L·SMSS).
            w.cwnd += ack.bytes_acked.min(self.abc_limit.saturating_mul(mss));
            self.bytes_acked = 0;
        } else if self.ca_growth == CaGrowth::PerAck {
            // RFC 5681 (3): SMSS·SMSS/cwnd per ACK, rounded down, at least 1 byte.
            w.cwnd += (mss * mss / w.cwnd.max(1)).max(1);
        } else {
            // RFC 3465 byte counting: one SMSS per cwnd of acknowledged bytes.
            self.bytes_acked += ack.bytes_acked;
            if self.bytes_acked >= w.cwnd {
                self.bytes_acked -= w.cwnd;
                w.cwnd += mss;
            }
        }
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        _now: Time,
        in_flight: u64,
    ) {
        self.bytes_acked = 0;
        // RFC 5681: loss window of one segment.
        reno_response(w, ev, in_flight, w.mss as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Time;

    fn ack(bytes: u64) -> AckInfo {
        AckInfo::bare(Time::ZERO, bytes)
    }

    #[test]
    fn slow_start_grows_by_acked_bytes_up_to_limit() {
        let mut cc = NewReno::default();
        let mut w = Window {
            cwnd: 14600,
            ssthresh: u64::MAX,
            mss: 1460,
        };
        cc.on_ack(&mut w, &ack(2920));
        assert_eq!(w.cwnd, 14600 + 2920);
        cc.on_ack(&mut w, &ack(10 * 1460));
        assert_eq!(w.cwnd, 14600 + 2920 + 2 * 1460, "capped at L=2 SMSS");
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut cc = NewReno::default();
        let mut w = Window {
            cwnd: 10 * 1460,
            ssthresh: 5 * 1460,
            mss: 1460,
        };
        for _ in 0..9 {
            cc.on_ack(&mut w, &ack(1460));
        }
        assert_eq!(w.cwnd, 10 * 1460);
        cc.on_ack(&mut w, &ack(1460));
        assert_eq!(w.cwnd, 11 * 1460);
    }

    /// One RTT of congestion avoidance at cwnd = 10 segments with a receiver that ACKs
    /// every second segment: 5 ACKs of 2 segments. Byte counting adds one segment; per-ACK
    /// counting adds MSS²/cwnd per ACK: 100 + 99 + 98 + 97 + 96 = 490 bytes, half a segment.
    #[test]
    fn per_ack_growth_with_delayed_acks_is_half_a_segment_per_rtt() {
        let mss = 1000;
        let start = Window {
            cwnd: 10 * mss,
            ssthresh: 5 * mss,
            mss: mss as u32,
        };
        let rtt = |cc: &mut NewReno| {
            let mut w = start;
            for _ in 0..5 {
                cc.on_ack(&mut w, &ack(2 * mss));
            }
            w.cwnd
        };
        assert_eq!(rtt(&mut NewReno::default()), 11 * mss);
        let mut p = CcParams::new().with_name("ca_growth", "per-ack");
        let mut per_ack = NewReno::from_params(&mut p).unwrap();
        p.finish("newreno").unwrap();
        assert_eq!(per_ack.ca_growth(), CaGrowth::PerAck);
        assert_eq!(rtt(&mut per_ack), 10 * mss + 490);
        // Slow start is unchanged: min(N, L·SMSS) per ACK.
        let mut w = Window {
            ssthresh: u64::MAX,
            ..start
        };
        per_ack.on_ack(&mut w, &ack(2 * mss));
        assert_eq!(w.cwnd, 12 * mss);
        let mut p = CcParams::new().with_name("ca_growth", "per-packet");
        let e = NewReno::from_params(&mut p).unwrap_err();
        assert!(e.contains("'ca_growth' = \"per-packet\"") && e.contains("\"per-ack\""));
    }

    #[test]
    fn loss_halves_flight_and_rto_resets_to_one_segment() {
        let mut cc = NewReno::default();
        let mut w = Window {
            cwnd: 20 * 1460,
            ssthresh: u64::MAX,
            mss: 1460,
        };
        cc.on_congestion_event(
            &mut w,
            CongestionEvent::FastRetransmit,
            Time::ZERO,
            20 * 1460,
        );
        assert_eq!((w.ssthresh, w.cwnd), (10 * 1460, 10 * 1460));
        cc.on_congestion_event(
            &mut w,
            CongestionEvent::Rto { repeated: false },
            Time::ZERO,
            3 * 1460,
        );
        assert_eq!(
            (w.ssthresh, w.cwnd),
            (2 * 1460, 1460),
            "ssthresh floor is 2 SMSS"
        );
        w.ssthresh = 7777;
        cc.on_congestion_event(
            &mut w,
            CongestionEvent::Rto { repeated: true },
            Time::ZERO,
            30 * 1460,
        );
        assert_eq!(w.ssthresh, 7777, "held constant on a repeated timeout");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let mut p = CcParams::new().with("abc_limt", 2.0);
        NewReno::from_params(&mut p).unwrap();
        assert!(p.finish("newreno").unwrap_err().contains("abc_limt"));
        let mut p = CcParams::new().with("abc_limit", 0.5);
        assert!(NewReno::from_params(&mut p).is_err());
    }
}
