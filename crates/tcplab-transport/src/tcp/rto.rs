//! The retransmission timer (RFC 6298) and what its expiry starts: go-back-N from the
//! first unacknowledged segment in slow start (RFC 5681 section 3.1), skipping what the
//! receiver SACKed (RFC 6675 section 5.1).

use crate::tcp::loss_recovery::LossRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::sender::Sender;
use crate::tcp::timer_wheel;
use crate::tcp::window_cut::Cut;
use tcplab_core::{Dur, Time};

/// `TCP_TIMEOUT_MIN_US` (include/net/tcp.h): 2 ms.
const TCP_TIMEOUT_MIN: Dur = Dur::from_millis(2);

impl SendState {
    /// RFC 6298 (5.1): a segment was sent; start the timer unless it is running.
    pub fn arm_rto(&mut self, now: Time) {
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rto_expiry(now));
        }
    }

    /// (Re)starts the timer at now + RTO.
    pub fn restart_rto(&mut self, now: Time) {
        self.rto_at = Some(self.rto_expiry(now));
    }

    /// When the retransmission timer armed at `now` fires: now + RTO, or with
    /// `timer_hz` as Linux's does, the RTO kept in whole jiffies (`__tcp_set_rto`
    /// rounds SRTT + rttvar up, `inet_csk_rto_backoff` doubles the jiffies, capped at
    /// the maximum) and fired on the timer wheel (`timer_wheel.rs`).
    fn rto_expiry(&self, now: Time) -> Time {
        match self.cfg.timer_hz {
            0 => now + self.rtt.rto(),
            hz => self.rto_expiry_on_wheel(now, hz),
        }
    }

    /// [`Self::rto_expiry`] with `timer_hz` (Linux's jiffies): out of the exact-timer path.
    #[cold]
    fn rto_expiry_on_wheel(&self, now: Time, hz: u32) -> Time {
        let base = timer_wheel::to_jiffies(hz, self.rtt.base_rto());
        let max = timer_wheel::to_jiffies(hz, self.cfg.max_rto);
        let backed_off = base.saturating_mul(1 << self.rtt.backoff_count().min(32));
        timer_wheel::fires_at(hz, now, backed_off.min(max))
    }

    /// When another timer on the retransmission timer's clock, armed at `now` for
    /// `timeout`, fires (the loss probe and RACK's reordering timeout).
    pub fn timer_expiry(&self, now: Time, timeout: Dur) -> Time {
        timer_wheel::expiry(self.cfg.timer_hz, now, timeout)
    }

    /// With `timer_hz`, Linux adds `TCP_TIMEOUT_MIN_US` (2 ms, include/net/tcp.h) to
    /// the probe timeout when more than one segment is out (`tcp_schedule_loss_probe`)
    /// and to the reordering timeout (`tcp_rack_mark_lost`) before converting them to
    /// jiffies, a margin against the tick's jitter; exact timers need none.
    pub fn timer_slack(&self) -> Dur {
        if self.cfg.timer_hz == 0 {
            Dur::ZERO
        } else {
            TCP_TIMEOUT_MIN
        }
    }

    /// RFC 6298 (5.2, 5.3) on an ACK of new data: stop the timer when all is
    /// acknowledged, else restart it, unless the recovery holds it (RFC 6582's
    /// "Impatient" variant resets it on the first partial ACK only).
    pub fn rto_on_ack(&mut self, now: Time, hold: bool) {
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if !hold {
            self.restart_rto(now);
        }
    }

    /// Starts go-back-N from `seq`: every segment the receiver has not SACKed is presumed
    /// lost (RFC 5681 section 3.1; RFC 6675 section 5.1 keeps the SACK information).
    pub fn go_back(&mut self, seq: u64) {
        self.snd_nxt = seq;
        self.go_back_n = true;
        self.sb.mark_all_lost(&mut self.recs);
    }
}

impl Sender {
    /// RFC 6298 (5.4)-(5.7): the timer expired.
    pub(super) fn on_rto(&mut self, now: Time) {
        let s = &mut self.s;
        let flight = if s.in_recovery {
            self.recovery.in_network(s)
        } else {
            s.loss_flight()
        };
        s.cut_window(now, Cut::Rto { flight });
        self.recovery.on_rto(s);
        s.restart_rto(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Controller;
    use crate::cc::NewReno;
    use crate::records::SentRecord;
    use crate::tcp::config::SenderConfig;

    fn state() -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            ..SenderConfig::default()
        };
        SendState::new(0, cfg, Controller::NewReno(NewReno::default()))
    }

    /// Going back presumes every unSACKed segment lost: only SACKed bytes stay out of
    /// the lost count, and nothing is in flight until something is resent.
    #[test]
    fn go_back_presumes_unsacked_segments_lost() {
        let mut s = state();
        for i in 0..5 {
            s.recs.push(i, {
                let mut r = SentRecord::new(1000, Time::ZERO);
                r.set_sacked(i == 2);
                r
            });
        }
        s.sb.sacked_bytes = 1000;
        s.snd_nxt = 5000;
        s.snd_max = 5000;
        s.go_back(0);
        assert_eq!(s.snd_nxt, 0);
        assert_eq!(s.sb.lost_bytes, 4000);
        assert_eq!(s.in_flight(), 0, "4 presumed lost, 1 SACKed");
        assert!(!s.recs.get(2).unwrap().lost());
    }

    /// With `timer_hz`, the RTO is whole jiffies, doubled as jiffies by a backoff, and
    /// fires on the timer wheel's tick (`timer_wheel.rs`): 1 s = 250 jiffies at 250 Hz
    /// (level 1: the next multiple of 8 jiffies), 2 s = 500 (still level 1), 4 s = 1000
    /// (level 2: multiples of 64).
    #[test]
    fn rto_in_jiffies_on_the_timer_wheel() {
        let mut s = SendState::new(
            0,
            SenderConfig {
                mss: 1000,
                timer_hz: 250,
                ..SenderConfig::default()
            },
            Controller::NewReno(NewReno::default()),
        );
        let ms = |m: u64| Time(m * 1_000_000);
        s.restart_rto(ms(1));
        assert_eq!(s.rto_at, Some(ms(1024)), "jiffy 250 -> bucket 256");
        s.rtt.back_off();
        s.restart_rto(ms(1));
        assert_eq!(s.rto_at, Some(ms(2016)), "jiffy 500 -> bucket 504");
        s.rtt.back_off();
        s.restart_rto(ms(1));
        assert_eq!(s.rto_at, Some(ms(4096)), "jiffy 1000 -> bucket 1024");
        // Exact timers without it.
        s.cfg.timer_hz = 0;
        s.restart_rto(ms(1));
        assert_eq!(s.rto_at, Some(ms(4001)));
    }

    /// RFC 6298: the timer starts with the first send only, stops when all is
    /// acknowledged, and an ACK restarts it unless recovery holds it.
    #[test]
    fn timer_arming_rules() {
        let mut s = state();
        let rto = s.rtt.rto();
        s.arm_rto(Time(5));
        s.arm_rto(Time(9));
        assert_eq!(
            s.rto_at,
            Some(Time(5) + rto),
            "a running timer is not restarted"
        );
        s.snd_max = 2000;
        s.snd_una = 1000;
        s.rto_on_ack(Time(20), true);
        assert_eq!(s.rto_at, Some(Time(5) + rto), "held");
        s.rto_on_ack(Time(20), false);
        assert_eq!(s.rto_at, Some(Time(20) + rto));
        s.snd_una = 2000;
        s.rto_on_ack(Time(30), false);
        assert_eq!(s.rto_at, None, "all acknowledged");
    }
}
