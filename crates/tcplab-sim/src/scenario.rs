//! A validated scenario: what to simulate, independent of the file it came from.

use tcplab_core::Dur;
use tcplab_link::LinkParams;
use tcplab_transport::cc::CcParams;
use tcplab_transport::{ReceiverConfig, SenderConfig};

/// How often time series are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every interval of virtual time.
    Interval(Dur),
    /// After every ACK a sender processes (and every link change of queue).
    PerAck,
    Off,
}

/// A parameter change on a link direction at a given time (schedules, handovers).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChange {
    pub at: Dur,
    /// New forward (data-direction) and reverse parameters.
    pub fwd: LinkParams,
    pub rev: LinkParams,
}

/// A duplex link: the forward direction carries data, the reverse one ACKs.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub fwd: LinkParams,
    pub rev: LinkParams,
    /// Changes applied in time order.
    pub schedule: Vec<LinkChange>,
}

/// One flow: a sender, a receiver and the links between them.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub cc: String,
    pub cc_params: CcParams,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    pub start: Dur,
    /// The application stops writing at this time (data already sent is still delivered).
    pub stop: Option<Dur>,
    /// Indices into [`Scenario::links`], sender to receiver; ACKs take the reverse path.
    pub path: Vec<usize>,
}

/// Everything needed for a run except the seed.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// Where it was read from, for messages.
    pub source: String,
    /// Hard stop; `None` runs until every finite flow completes (capped by `max_time`).
    pub duration: Option<Dur>,
    /// Safety cap when no duration is given.
    pub max_time: Dur,
    pub sampling: Sampling,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
}
