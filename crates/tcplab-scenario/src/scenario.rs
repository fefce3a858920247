//! A validated scenario: what to simulate, independent of the file it came from.
//!
//! Every topology is a graph of nodes and links; the point-to-point and dumbbell forms of
//! a scenario file are shorthands the parser expands into it. Each flow carries its
//! route, so the simulator never searches for paths while running.

use tcplab_core::Dur;
use tcplab_link::{LinkParams, WlanParams};
use tcplab_transport::TransportSpec;

/// How often time series are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every interval of virtual time.
    Interval(Dur),
    /// After every packet a flow's source processes.
    PerAck,
    Off,
}

/// A parameter change on a link at a given time (schedules, handovers).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChange {
    pub at: Dur,
    /// New forward (`a` → `b`) and reverse parameters.
    pub fwd: LinkParams,
    pub rev: LinkParams,
}

/// Whether a link's two directions have their own transmitters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplex {
    /// Two independent directions (a cable pair, a point-to-point radio link).
    Full,
    /// One transmitter both ends take turns on: a shared medium (see
    /// [`tcplab_link::SharedLink`]); only the forward parameters apply.
    Half,
    /// One association of WLAN cell `i` ([`Scenario::wlans`]): both directions contend
    /// with every other node of the cell for its one channel. The link's own parameters
    /// are unused; the cell's apply.
    Wlan(usize),
}

/// An 802.11 cell: an access point and its stations on one channel (infrastructure
/// mode: each station is joined to the access point by a [`Duplex::Wlan`] link, so routes
/// between stations pass through the access point).
#[derive(Clone, Debug, PartialEq)]
pub struct WlanSpec {
    pub name: String,
    /// The preset the parameters started from (`"802.11ac"`, ...).
    pub standard: String,
    /// The access point first, then the stations: a node's position is its port.
    pub nodes: Vec<usize>,
    pub params: WlanParams,
    /// Per port: the frame error rate of that node's link with the access point.
    pub per: Vec<f64>,
}

/// A network node (a host or a router); links and flows refer to nodes by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSpec {
    pub name: String,
}

/// A link between nodes `a` and `b`. Forward is `a` → `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub a: usize,
    pub b: usize,
    pub duplex: Duplex,
    /// Routing cost (1 by default: shortest path = fewest hops).
    pub cost: u64,
    pub fwd: LinkParams,
    pub rev: LinkParams,
    /// Changes applied in time order.
    pub schedule: Vec<LinkChange>,
}

/// One link crossed by a flow, and in which direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Index into [`Scenario::links`].
    pub link: usize,
    /// True when crossing from the link's `a` to its `b`.
    pub forward: bool,
}

/// One flow: a transport between two nodes along a route.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub transport: TransportSpec,
    /// Bytes the application writes; `None`: unlimited (until `stop` or the end of the run).
    pub bytes: Option<u64>,
    pub start: Dur,
    /// The application stops writing at this time (data already written is still delivered).
    pub stop: Option<Dur>,
    /// Source and destination nodes.
    pub src: usize,
    pub dst: usize,
    /// The links from `src` to `dst`; packets of the sink take the same links back.
    pub path: Vec<Hop>,
    /// Receive interrupt coalescing of the source's and the sink's host (zero: none;
    /// [`tcplab_transport::RxCoalescing`]).
    pub rx_coalesce: [Dur; 2],
}

impl FlowSpec {
    /// The TCP settings, if this is a TCP flow.
    pub fn tcp(&self) -> Option<&tcplab_transport::TcpSpec> {
        match &self.transport {
            TransportSpec::Tcp(t) => Some(t),
            _ => None,
        }
    }

    pub fn tcp_mut(&mut self) -> Option<&mut tcplab_transport::TcpSpec> {
        match &mut self.transport {
            TransportSpec::Tcp(t) => Some(t),
            _ => None,
        }
    }
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
    /// Rows each series table may hold before every other sample is dropped.
    pub series_rows: usize,
    /// Refuse runs estimated to need more heap than this (default: 80 % of the machine).
    pub memory_limit: Option<u64>,
    pub nodes: Vec<NodeSpec>,
    /// Links between two nodes, the associations of WLAN cells included.
    pub links: Vec<LinkSpec>,
    pub wlans: Vec<WlanSpec>,
    pub flows: Vec<FlowSpec>,
}
