//! The datagram sink: counts what arrives and measures one-way delay.

use super::summary::DatagramSummary;
use super::DelayHistogram;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::series_columns::DELIVERED;
use tcplab_core::{Dur, Metrics, Time};

/// See the module docs of [`crate::datagram`].
#[derive(Debug)]
pub struct DatagramSink {
    flow: u32,
    target: Option<u64>,
    received: u64,
    bytes: u64,
    /// Highest sequence number seen; a lower one arriving later was reordered.
    highest: Option<u64>,
    reordered: u64,
    owd: DelayHistogram,
    finished_at: Option<Time>,
}

impl DatagramSink {
    pub fn new(flow: u32, target: Option<u64>) -> Self {
        DatagramSink {
            flow,
            target,
            received: 0,
            bytes: 0,
            highest: None,
            reordered: 0,
            owd: DelayHistogram::default(),
            finished_at: None,
        }
    }

    pub fn packets_received(&self) -> u64 {
        self.received
    }

    pub fn one_way_delay(&self) -> &DelayHistogram {
        &self.owd
    }
}

fn secs(d: Option<Dur>) -> Option<f64> {
    d.map(Dur::as_secs_f64)
}

impl Endpoint for DatagramSink {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        let Packet::Datagram(d) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "datagram",
            });
        };
        self.received += 1;
        self.bytes += d.len as u64;
        if self.highest.is_some_and(|h| d.seq < h) {
            self.reordered += 1;
        } else {
            self.highest = Some(d.seq);
        }
        self.owd.record(now - d.sent_at);
        if self.target == Some(self.bytes) {
            self.finished_at = Some(now);
        }
        Ok(())
    }

    fn handle_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.bytes,
            sent_bytes: 0,
            finished_at: self.finished_at,
        }
    }

    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&DELIVERED, self.bytes.into());
    }

    fn summary(&self, out: &mut dyn Metrics) {
        let h = &self.owd;
        DatagramSummary {
            packets_reordered: self.reordered,
            owd_min_s: secs(h.min()),
            owd_mean_s: secs(h.mean()),
            owd_p50_s: secs(h.quantile(0.5)),
            owd_p95_s: secs(h.quantile(0.95)),
            owd_p99_s: secs(h.quantile(0.99)),
            owd_max_s: secs(h.max()),
        }
        .publish(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagram::Datagram;

    fn dg(seq: u64, sent_ms: u64) -> Packet {
        Packet::Datagram(Datagram {
            seq,
            sent_at: Time::ZERO + Dur::from_millis(sent_ms),
            len: 100,
        })
    }

    #[test]
    fn counts_bytes_reordering_and_delay() {
        let mut s = DatagramSink::new(0, Some(300));
        let at = |ms| Time::ZERO + Dur::from_millis(ms);
        s.handle_packet(at(10), &dg(0, 0)).unwrap();
        s.handle_packet(at(25), &dg(2, 10)).unwrap();
        assert_eq!(s.progress().finished_at, None);
        s.handle_packet(at(30), &dg(1, 5)).unwrap();
        assert_eq!(s.packets_received(), 3);
        assert_eq!(s.progress().app_bytes, 300);
        assert_eq!(s.progress().finished_at, Some(at(30)));
        assert_eq!(s.reordered, 1);
        assert_eq!(s.one_way_delay().min(), Some(Dur::from_millis(10)));
        assert_eq!(s.one_way_delay().max(), Some(Dur::from_millis(25)));
    }

    #[test]
    fn rejects_another_transport_packet() {
        let mut s = DatagramSink::new(4, None);
        let seg = Packet::Tcp(crate::Segment::default());
        assert_eq!(
            s.handle_packet(Time::ZERO, &seg),
            Err(Violation::ForeignPacket {
                flow: 4,
                expected: "datagram"
            })
        );
    }
}
