//! Stop-and-wait's sink: delivers packets in order and acknowledges every copy.

use super::StopWaitPacket;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::series_columns::DELIVERED;
use tcplab_core::{Metrics, Time};

/// Delivers packet after packet; acknowledges every copy (a lost ACK makes the source
/// resend, and the copy must be acknowledged again).
#[derive(Debug)]
pub struct StopWaitSink {
    flow: u32,
    /// The next packet it expects.
    expected: u64,
    delivered: u64,
    ack_due: Option<u64>,
}

impl StopWaitSink {
    pub fn new(flow: u32) -> Self {
        StopWaitSink {
            flow,
            expected: 0,
            delivered: 0,
            ack_due: None,
        }
    }
}

impl Endpoint for StopWaitSink {
    fn handle_packet(&mut self, _now: Time, pkt: &Packet) -> Result<(), Violation> {
        let Packet::StopWait(p) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "stop-and-wait",
            });
        };
        if p.seq == self.expected {
            self.expected += 1;
            self.delivered += u64::from(p.len);
        }
        self.ack_due = Some(p.seq);
        Ok(())
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.ack_due
            .take()
            .map(|seq| Packet::StopWait(StopWaitPacket { seq, len: 0 }))
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.delivered,
            ..Progress::default()
        }
    }

    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&DELIVERED, self.delivered.into());
    }
}
