//! What every topology parser returns: nodes, links, cells and the flows routed over them.

use crate::scenario::{FlowSpec, LinkSpec, NodeSpec, WlanSpec};

/// A parsed topology with its routed flows; `origin[i]` is the index of the `[[flow]]`
/// table flow `i` came from.
pub(super) struct Topology {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub wlans: Vec<WlanSpec>,
    pub flows: Vec<FlowSpec>,
    pub origin: Vec<usize>,
}
