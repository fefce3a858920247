//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation).
//!
//! Each ACK yields a sample of how fast data was delivered over the interval of the most
//! recently sent packet it acknowledges, flagged when the sender was application-limited.

use crate::records::{FarTable, SendTimes, SentRecord};
use tcplab_core::{Dur, Time};

/// One delivery-rate sample, handed to the congestion controller on each ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval`.
    pub delivered: u64,
    pub interval: Dur,
    /// Bytes per second; zero when the interval is shorter than the minimum RTT.
    pub delivery_rate: u64,
    /// The sample was taken while the sender had nothing to send.
    pub is_app_limited: bool,
    /// RTT of the most recently sent packet acknowledged by this ACK.
    pub rtt: Option<Dur>,
    /// Total delivered bytes before the sampled packet was sent.
    pub prior_delivered: u64,
}

/// Connection-level delivery state (the draft's `C.*` variables).
///
/// `repr(C)`: the flags and the app-limited mark, which every ACK reads, come first. A
/// TCP sender whose controller does not declare `Capabilities::READS_DELIVERY` does not
/// ask its sampler at all (`SendState::rate_on`, in the sender's first line).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct RateSampler {
    have_sample: bool,
    sample_app_limited: bool,
    /// Nonzero while app-limited: the `delivered` count at which that ends.
    app_limited_until: u64,
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    // Per-ACK sample under construction.
    prior_delivered: u64,
    prior_time: Time,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    sample_rtt: Option<Dur>,
    sample_sent_time: Time,
}

impl RateSampler {
    /// Sets a record's app-limited flag when its segment is (re)sent and returns its rate
    /// times (with `orig_sent_time` for the caller to fill) for [`SentRecord::store`].
    pub fn on_send(
        &mut self,
        now: Time,
        nothing_in_flight: bool,
        rec: &mut SentRecord,
    ) -> SendTimes {
        if nothing_in_flight {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        rec.set_app_limited(self.app_limited_until != 0);
        SendTimes {
            orig_sent_time: now,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            delivered: self.delivered,
        }
    }

    /// Marks the connection application-limited (nothing to send, window not full).
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    /// Closes the current ACK's sample when nobody reads it: the state
    /// [`take_sample`](Self::take_sample) leaves, without building the sample (its rate
    /// is a 64-bit division). Returns whether there was a sample.
    pub fn close_sample(&mut self) -> bool {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        std::mem::replace(&mut self.have_sample, false)
    }

    /// Accounts a segment newly delivered (cumulatively or by SACK) by the current ACK.
    #[inline]
    pub fn on_delivered(&mut self, now: Time, rec: &SentRecord, far: &FarTable) {
        self.delivered += rec.len as u64;
        self.delivered_time = now;
        let t = rec.times(far);
        let sent = rec.sent_time();
        let newer = (t.delivered, sent) > (self.prior_delivered, self.sample_sent_time);
        if !self.have_sample || newer {
            self.sample_sent_time = sent;
            self.have_sample = true;
            self.prior_delivered = t.delivered;
            self.prior_time = t.delivered_time;
            self.sample_app_limited = rec.app_limited();
            self.send_elapsed = sent - t.first_sent_time;
            self.ack_elapsed = self.delivered_time - t.delivered_time;
            self.sample_rtt = (rec.tx_count == 1).then(|| now - sent);
            self.first_sent_time = sent;
        }
    }

    /// Closes the current ACK's sample. Invalid when shorter than `min_rtt` (ACK compression).
    pub fn take_sample(&mut self, min_rtt: Option<Dur>) -> Option<RateSample> {
        if !self.close_sample() {
            return None;
        }
        let delivered = self.delivered - self.prior_delivered;
        let interval = self.send_elapsed.max(self.ack_elapsed);
        let valid = interval > Dur::ZERO && min_rtt.is_none_or(|m| interval >= m);
        let delivery_rate = if valid {
            // The same quotient in 64 bits while the product fits (a 128-bit division is a
            // library call); it fits for anything below 18 GB delivered per sample.
            match delivered.checked_mul(1_000_000_000) {
                Some(p) => p / interval.0,
                None => (delivered as u128 * 1_000_000_000 / interval.0 as u128) as u64,
            }
        } else {
            0
        };
        Some(RateSample {
            delivered,
            interval,
            delivery_rate,
            is_app_limited: self.sample_app_limited,
            rtt: self.sample_rtt,
            prior_delivered: self.prior_delivered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One segment sent at 0 with `before` bytes delivered earlier, delivered at 1 s.
    fn sample(before: u64) -> RateSample {
        let mut r = RateSampler::default();
        let mut far = FarTable::default();
        let mut rec = SentRecord::new(1000, Time::ZERO);
        let t = r.on_send(Time::ZERO, true, &mut rec);
        rec.store(&mut far, Time::ZERO, SendTimes { delivered: 0, ..t });
        r.delivered = before;
        r.on_delivered(Time(1_000_000_000), &rec, &far);
        r.take_sample(None).expect("a sample")
    }

    /// Closing a sample unread leaves the sampler as taking it does, app-limited end
    /// included.
    #[test]
    fn closing_a_sample_leaves_the_state_taking_it_leaves() {
        let mut r = RateSampler::default();
        let mut far = FarTable::default();
        let mut rec = SentRecord::new(1000, Time::ZERO);
        let t = r.on_send(Time::ZERO, true, &mut rec);
        rec.store(&mut far, Time::ZERO, t);
        r.on_app_limited(500);
        r.on_delivered(Time(1_000_000), &rec, &far);
        let (mut taken, mut closed) = (r.clone(), r.clone());
        assert!(taken.take_sample(None).is_some());
        assert!(closed.close_sample());
        assert_eq!(format!("{taken:?}"), format!("{closed:?}"));
        assert_eq!(
            closed.app_limited_until, 0,
            "delivered passed the app-limited mark"
        );
        assert!(!closed.close_sample() && closed.take_sample(None).is_none());
    }

    /// The rate is exact on both sides of the 64-bit product's limit (about 18 GB per
    /// sample, where the 128-bit division takes over).
    #[test]
    fn delivery_rate_is_exact_for_small_and_huge_samples() {
        assert_eq!(sample(0).delivery_rate, 1000);
        let huge = sample(40_000_000_000);
        assert_eq!(huge.delivered, 40_000_001_000);
        assert_eq!(huge.delivery_rate, 40_000_001_000);
    }
}
