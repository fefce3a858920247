//! A host's receive interrupt coalescing in front of an endpoint (the flow keys
//! `source_rx_coalesce`, `sink_rx_coalesce`): the NIC raises its receive interrupt a
//! fixed time after the first packet that arrived since the last interrupt, and every
//! packet that arrived until then reaches the stack at that interrupt, in order.
//!
//! So a packet waits between 0 (it arrived just before the interrupt) and the whole timer
//! (it opened the batch): the first packet of a batch, a lone ACK for instance, waits the
//! longest. The endpoint sees each packet at the interrupt's time, as a stack that
//! timestamps on receipt does. Example default: Linux's iwlwifi driver (Intel Wi-Fi NICs
//! such as the Wireless-AC 8260 of the TACK paper's testbed) sets its interrupt
//! coalescing timer to 64 × 32 µs = 2048 µs (`IWL_HOST_INT_TIMEOUT_DEF`, "Set interrupt
//! coalescing timer to default (2048 usecs)", drivers/net/wireless/intel/iwlwifi).

use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::transport::AnyEndpoint;
use std::collections::VecDeque;
use tcplab_core::{Dur, Metrics, Time};

/// Packets held for one interrupt, reserved at the start (grows only beyond it).
const HELD_CAPACITY: usize = 256;

/// See the module docs.
pub struct RxCoalescing {
    inner: AnyEndpoint,
    timer: Dur,
    held: VecDeque<Packet>,
    /// When the pending interrupt fires (some packet is held).
    interrupt_at: Option<Time>,
    /// A packet the endpoint refused at an interrupt, reported with the next arrival.
    refused: Option<Violation>,
}

impl RxCoalescing {
    /// `inner` behind a receive interrupt `timer` after the first packet of each batch.
    pub fn new(inner: AnyEndpoint, timer: Dur) -> Self {
        RxCoalescing {
            inner,
            timer,
            held: VecDeque::with_capacity(HELD_CAPACITY),
            interrupt_at: None,
            refused: None,
        }
    }

    /// Wraps `end` if `timer` is not zero.
    pub fn wrap(end: AnyEndpoint, timer: Dur) -> AnyEndpoint {
        if timer == Dur::ZERO {
            end
        } else {
            AnyEndpoint::User(Box::new(RxCoalescing::new(end, timer)))
        }
    }

    fn interrupt(&mut self, at: Time) {
        self.interrupt_at = None;
        while let Some(p) = self.held.pop_front() {
            if let Err(v) = self.inner.handle_packet(at, &p) {
                self.refused.get_or_insert(v);
            }
        }
    }
}

impl Endpoint for RxCoalescing {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        if let Some(v) = self.refused.take() {
            return Err(v);
        }
        if self.interrupt_at.is_none() {
            self.interrupt_at = Some(now + self.timer);
        }
        self.held.push_back(*pkt);
        Ok(())
    }
    fn handle_timeout(&mut self, now: Time) {
        if let Some(at) = self.interrupt_at.filter(|&t| t <= now) {
            self.interrupt(at);
        }
        if self.inner.poll_timeout().is_some_and(|t| t <= now) {
            self.inner.handle_timeout(now);
        }
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.inner.poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Time> {
        match (self.interrupt_at, self.inner.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn start(&mut self, now: Time) {
        self.inner.start(now)
    }
    fn stop(&mut self, now: Time) {
        self.inner.stop(now)
    }
    fn progress(&self) -> Progress {
        self.inner.progress()
    }
    fn sample(&self, out: &mut dyn Metrics) {
        self.inner.sample(out)
    }
    fn summary(&self, out: &mut dyn Metrics) {
        self.inner.summary(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagram::DatagramSink;
    use crate::packet::Packet;

    fn datagram(seq: u64, sent: Time) -> Packet {
        Packet::Datagram(crate::datagram::Datagram {
            seq,
            len: 1000,
            sent_at: sent,
        })
    }

    /// Three packets 100 µs apart behind a 2048 µs timer reach the sink together, 2048 µs
    /// after the first; the next one opens a new batch.
    #[test]
    fn a_batch_is_delivered_one_timer_after_its_first_packet() {
        let sink = AnyEndpoint::DatagramSink(Box::new(DatagramSink::new(0, None)));
        let mut e = RxCoalescing::new(sink, Dur::from_micros(2048));
        let t0 = Time::ZERO + Dur::from_millis(1);
        for k in 0..3 {
            let t = t0 + Dur::from_micros(100 * k);
            e.handle_packet(t, &datagram(k, t)).unwrap();
            assert_eq!(e.poll_timeout(), Some(t0 + Dur::from_micros(2048)));
            assert_eq!(e.progress().app_bytes, 0, "held until the interrupt");
        }
        e.handle_timeout(t0 + Dur::from_micros(2048));
        assert_eq!(e.progress().app_bytes, 3000);
        assert_eq!(e.poll_timeout(), None);
        let t1 = t0 + Dur::from_millis(5);
        e.handle_packet(t1, &datagram(3, t1)).unwrap();
        assert_eq!(e.poll_timeout(), Some(t1 + Dur::from_micros(2048)));
    }

    #[test]
    fn no_timer_no_wrapper() {
        let sink = AnyEndpoint::DatagramSink(Box::new(DatagramSink::new(0, None)));
        let e = RxCoalescing::wrap(sink, Dur::ZERO);
        assert!(matches!(e, AnyEndpoint::DatagramSink(_)));
    }
}
