//! Unreliable datagrams: the cross-traffic source and sink.
//!
//! The first non-TCP endpoints, and what ns-3 users know as `OnOffApplication` +
//! `PacketSink`: a source that sends at a constant rate, in on/off periods drawn from
//! exponential or Pareto laws, or at the timestamps of a Mahimahi-style packet trace; and a
//! sink that counts what arrived and measures one-way delay. Nothing is retransmitted, so
//! the flows table reports what was sent, delivered and lost.

mod histogram;
mod keys;
mod pattern;
mod pcap;
mod sink;
mod source;
mod summary;
mod transport;
pub mod wire;

pub use histogram::DelayHistogram;
pub use pattern::{Pattern, Period};
pub use sink::DatagramSink;
pub use source::DatagramSource;
pub use summary::DatagramSummary;
pub use transport::DatagramTransport;

use crate::packet_kind::PacketKind;
use crate::pcap::{Endpoints, Wire};
use tcplab_core::Time;

/// IPv4 (20 bytes) and UDP (8 bytes) headers.
pub const UDP_HEADER_BYTES: u32 = 28;

/// One datagram: a sequence number, its send time (for one-way delay) and its payload size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// Numbered from 0 in send order.
    pub seq: u64,
    /// When the source sent it (a real driver stamps its clock here).
    pub sent_at: Time,
    /// Payload bytes.
    pub len: u32,
}

impl Datagram {
    #[inline]
    pub fn wire_len(&self) -> u32 {
        self.len + UDP_HEADER_BYTES
    }
}

impl PacketKind for Datagram {
    #[inline]
    fn wire_len(&self) -> u32 {
        Datagram::wire_len(self)
    }
    #[inline]
    fn payload_len(&self) -> u32 {
        self.len
    }
    fn pcap_header(&self, w: &mut Wire, ends: Endpoints, _from_sink: bool) {
        pcap::header(w, self, ends);
    }
}

/// A datagram flow's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagramSpec {
    pub pattern: Pattern,
    /// Payload bytes per datagram (the last one of a finite flow may be shorter).
    pub payload: u32,
}
