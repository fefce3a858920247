//! Sans-IO models of one direction of a network link.
//!
//! A [`Link`] is a pure state machine: the driver hands it packets with
//! [`Link::handle_packet`], asks when the next one reaches the far end with
//! [`Link::poll_timeout`], and collects it with [`Link::poll_transmit`]. Time is always
//! passed in, so the simulator (virtual clock) and an emulator (wall clock) share the code.
//!
//! Every model also implements the [`Medium`] contract (ports, deliveries, drops), which
//! is how the simulator sees it; [`SharedLink`] is a medium several nodes share, and
//! [`Wlan`] an 802.11 cell whose nodes contend for one channel.

mod admit;
mod arrivals;
mod capacity;
mod codel;
mod counters;
mod discipline;
mod fq_codel;
mod jitter;
mod link;
pub mod link_columns;
mod loss;
mod media_columns;
mod medium;
mod opportunities;
mod params;
mod pie;
mod qdisc;
mod qdisc_columns;
mod queued;
mod red;
mod ring;
mod shared;
mod sojourn;
mod step;
mod trace;
pub mod wlan;

pub use admit::Admit;
pub use capacity::{Capacity, TraceCursor};
pub use codel::CoDelParams;
pub use counters::LinkCounters;
pub use discipline::Discipline;
pub use fq_codel::FqCoDelParams;
pub use jitter::Jitter;
pub use link::{FifoSpares, Link};
pub use loss::{LossModel, LossProcess};
pub use media_columns::{series_columns, summary_columns};
pub use medium::{Delivery, Medium, Port};
pub use opportunities::{realised_opportunities, to_mahimahi, MAX_OPPORTUNITIES};
pub use params::{LinkParams, QueueLimit};
pub use pie::PieParams;
pub use queued::QdiscCounters;
pub use red::RedParams;
pub use shared::SharedLink;
pub use sojourn::SojournHistogram;
pub use step::{StepParams, StepThreshold};
pub use trace::{example_traces, DeliveryTrace, OPPORTUNITY_BYTES};
pub use wlan::{Wlan, WlanParams};

/// What a link needs to know about a packet: its size on the wire.
pub trait Packet {
    /// Bytes serialised on the link, headers included.
    fn wire_len(&self) -> u32;
    /// False for a packet without application payload (a pure acknowledgement: an
    /// 802.11 cell reports the airtime such packets take). Defaults to true.
    fn carries_payload(&self) -> bool {
        true
    }
    /// True if the packet is ECN-capable (ECT(0) or ECT(1) in its IP header, RFC 3168):
    /// a queue discipline with ECN on marks it instead of dropping it. Defaults to false.
    fn ecn_capable(&self) -> bool {
        false
    }
    /// Sets the Congestion Experienced codepoint (called only on an ECN-capable packet).
    fn set_ce(&mut self) {}
    /// Names the packet's flow for flow-queueing disciplines (FQ-CoDel hashes it, as
    /// Linux hashes the 5-tuple). Defaults to 0: one flow.
    fn flow_key(&self) -> u64 {
        0
    }
}
