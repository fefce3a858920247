//! TCP/NC as a built-in transport (`transport = "tcp-nc"`).

use super::{keys, NcSink, NcSource, NcSpec};
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::transport_kind::Transport;
use tcplab_core::KeyError;

/// `transport = "tcp-nc"`: [`NcSource`] and [`NcSink`].
pub struct NcTransport;

impl Transport for NcTransport {
    const NAME: &'static str = "tcp-nc";
    const RELIABLE: bool = true;
    /// Boxed: a TCP/NC spec is several times larger than the others.
    type Spec = Box<NcSpec>;
    type Source = NcSource;
    type Sink = NcSink;

    fn cc(spec: &Box<NcSpec>) -> Option<&str> {
        Some(&spec.tcp.cc)
    }

    /// TCP's keys plus `coding` (`keys.rs`).
    fn parse(flow: &FlowKeys<'_>) -> Result<Box<NcSpec>, KeyError> {
        keys::nc_spec(flow, flow.bytes).map(Box::new)
    }

    fn build(spec: &Box<NcSpec>, ctx: FlowContext) -> Result<(NcSource, NcSink), String> {
        spec.build(ctx)
    }
}
