//! Stop-and-wait's source: one packet in flight, sent again after a timeout.

use super::{StopWaitPacket, StopWaitSpec, StopWaitSummary};
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use tcplab_core::{Metrics, Time};

/// Sends packet `next`, waits for its acknowledgement or `timeout`, resends on timeout.
#[derive(Debug)]
pub struct StopWaitSource {
    spec: StopWaitSpec,
    next: u64,
    /// The outstanding packet's number and when to give up on it.
    waiting: Option<(u64, Time)>,
    /// A packet is to be sent at the next `poll_transmit`.
    due: bool,
    done_at: Option<Time>,
    resent: u64,
}

impl StopWaitSource {
    pub fn new(spec: StopWaitSpec) -> Self {
        StopWaitSource {
            spec,
            next: 0,
            waiting: None,
            due: false,
            done_at: None,
            resent: 0,
        }
    }

    fn packets(&self) -> u64 {
        self.spec.bytes / u64::from(self.spec.payload)
    }
}

impl Endpoint for StopWaitSource {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        let Packet::StopWait(p) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: 0,
                expected: "stop-and-wait",
            });
        };
        if p.is_ack() && self.waiting.is_some_and(|(s, _)| s == p.seq) {
            self.waiting = None;
            self.next += 1;
            if self.next >= self.packets() {
                self.done_at = Some(now);
            } else {
                self.due = true;
            }
        }
        Ok(())
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.waiting.is_some_and(|(_, t)| t <= now) {
            self.waiting = None;
            self.due = true;
            self.resent += 1;
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if !self.due {
            return None;
        }
        self.due = false;
        self.waiting = Some((self.next, now + self.spec.timeout));
        Some(Packet::StopWait(StopWaitPacket {
            seq: self.next,
            len: self.spec.payload,
        }))
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.waiting.map(|(_, t)| t)
    }

    fn start(&mut self, _now: Time) {
        self.due = true;
    }

    fn progress(&self) -> Progress {
        let sent = (self.next + u64::from(self.waiting.is_some())) * u64::from(self.spec.payload);
        Progress {
            app_bytes: self.spec.bytes,
            sent_bytes: sent.min(self.spec.bytes),
            finished_at: self.done_at,
        }
    }

    fn summary(&self, out: &mut dyn Metrics) {
        StopWaitSummary {
            resent: self.resent,
        }
        .publish(out);
    }
}
