//! Reno-family window growth (RFC 5681, with RFC 3465 byte counting).
//!
//! The same controller serves Reno and NewReno: they differ only in the sender's loss
//! recovery (RFC 5681 fast recovery vs RFC 6582 partial ACKs), which the sender owns.

use super::{reno_ssthresh, AckInfo, CcParams, CongestionControl, CongestionEvent, Window};
use tcplab_core::Time;

/// Slow start and congestion avoidance of RFC 5681.
#[derive(Clone, Debug)]
pub struct NewReno {
    /// RFC 3465 limit L in segments: slow start grows by at most L·SMSS per ACK.
    abc_limit: u64,
    /// Bytes acknowledged since the last congestion-avoidance increment.
    bytes_acked: u64,
}

impl NewReno {
    /// Parameters: `abc_limit` (segments, default 2, RFC 3465 for delayed-ACK receivers).
    pub fn from_params(p: &mut CcParams) -> Result<NewReno, String> {
        let abc = p.take(
            "abc_limit",
            2.0,
            |v| v >= 1.0 && v.fract() == 0.0,
            "a whole number >= 1",
        )?;
        Ok(NewReno {
            abc_limit: abc as u64,
            bytes_acked: 0,
        })
    }
}

super::default_from_params!(NewReno);

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.in_recovery || ack.bytes_acked == 0 {
            return;
        }
        let mss = w.mss as u64;
        if w.cwnd < w.ssthresh {
            // RFC 5681 (2) with RFC 3465: cwnd += min(N, L·SMSS).
            w.cwnd += ack.bytes_acked.min(self.abc_limit * mss);
            self.bytes_acked = 0;
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
        match ev {
            CongestionEvent::FastRetransmit => {
                w.ssthresh = reno_ssthresh(in_flight, w.mss);
                w.cwnd = w.ssthresh;
            }
            CongestionEvent::Rto { repeated } => {
                if !repeated {
                    w.ssthresh = reno_ssthresh(in_flight, w.mss);
                }
                // RFC 5681: loss window of one segment.
                w.cwnd = w.mss as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Time;

    fn ack(bytes: u64) -> AckInfo {
        AckInfo {
            now: Time::ZERO,
            bytes_acked: bytes,
            rtt: None,
            srtt: None,
            min_rtt: None,
            in_flight: 0,
            in_recovery: false,
            rate: None,
            delivered: 0,
        }
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
