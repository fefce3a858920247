//! Rounds of timer-driven controllers (TCP Wave's kernel hooks): at each expiry of the
//! controller's send timer it grants a burst of segments; the round closes when the burst
//! has left or the sender found nothing to send, and the controller hears how many left.
//! Transport-neutral: any sender driving a [`Controller`] can use it.

use crate::cc::{CongestionControl, Controller, Window};
use tcplab_core::Time;

/// The current round's grant and count.
#[derive(Clone, Debug, Default)]
pub struct TimerRounds {
    credit: u32,
    sent: u32,
    open: bool,
}

impl TimerRounds {
    /// Segments the current round may still send.
    pub fn credit(&self) -> u32 {
        self.credit
    }

    /// The send timer fired: close the running round, open one with the controller's
    /// grant. `no_data`: the sender has nothing left to send.
    pub fn on_timer(&mut self, cc: &mut Controller, w: &mut Window, now: Time, no_data: bool) {
        self.close(cc, w, now, no_data);
        self.credit = cc.on_send_timer(w, now);
        self.sent = 0;
        self.open = true;
    }

    /// One segment of the grant left; the round closes when the grant is used up.
    pub fn on_sent(&mut self, cc: &mut Controller, w: &mut Window, now: Time, no_data: bool) {
        self.credit -= 1;
        self.sent += 1;
        if self.credit == 0 {
            self.close(cc, w, now, no_data);
        }
    }

    /// Closes the round: report what left, and whether data ran out.
    pub fn close(&mut self, cc: &mut Controller, w: &mut Window, now: Time, no_data: bool) {
        if !self.open {
            return;
        }
        self.open = false;
        cc.on_segments_sent(w, now, self.sent);
        if no_data {
            cc.on_no_data(w, now);
        }
        self.credit = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{AckInfo, CongestionEvent};
    use std::sync::{Arc, Mutex};

    /// What the controller heard: the count of each closed round, and no-data calls.
    type Heard = Arc<Mutex<(Vec<u32>, u32)>>;

    /// Grants 3 segments per round and records what rounds report.
    struct Probe(Heard);
    impl CongestionControl for Probe {
        fn name(&self) -> &'static str {
            "probe"
        }
        fn on_ack(&mut self, _w: &mut Window, _a: &AckInfo) {}
        fn on_congestion_event(&mut self, _: &mut Window, _: CongestionEvent, _: Time, _: u64) {}
        fn on_send_timer(&mut self, _w: &mut Window, _now: Time) -> u32 {
            3
        }
        fn on_segments_sent(&mut self, _w: &mut Window, _now: Time, sent: u32) {
            self.0.lock().unwrap().0.push(sent);
        }
        fn on_no_data(&mut self, _w: &mut Window, _now: Time) {
            self.0.lock().unwrap().1 += 1;
        }
    }

    /// A grant of 3 closes after 3 sends and reports 3; a round cut short by the next
    /// timer reports what left and, without data, tells the controller; a closed round
    /// reports nothing more.
    #[test]
    fn rounds_report_what_left() {
        let heard = Heard::default();
        let mut cc = Controller::Custom(Box::new(Probe(heard.clone())));
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let mut r = TimerRounds::default();
        r.on_timer(&mut cc, &mut w, Time(0), false);
        assert_eq!(r.credit(), 3);
        for _ in 0..3 {
            r.on_sent(&mut cc, &mut w, Time(1), false);
        }
        assert_eq!(r.credit(), 0);
        assert_eq!(*heard.lock().unwrap(), (vec![3], 0));
        r.on_timer(&mut cc, &mut w, Time(2), false);
        r.on_sent(&mut cc, &mut w, Time(3), false);
        r.on_timer(&mut cc, &mut w, Time(4), true);
        assert_eq!(*heard.lock().unwrap(), (vec![3, 1], 1));
        r.close(&mut cc, &mut w, Time(5), false);
        r.close(&mut cc, &mut w, Time(6), true);
        assert_eq!(*heard.lock().unwrap(), (vec![3, 1, 0], 1));
    }
}
