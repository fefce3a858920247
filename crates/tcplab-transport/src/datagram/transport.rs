//! Datagrams as a built-in transport (`transport = "datagram"`).

use super::{DatagramSink, DatagramSource, DatagramSpec};
use crate::flow_context::FlowContext;
use crate::transport_kind::Transport;

/// `transport = "datagram"`: [`DatagramSource`] and [`DatagramSink`]; unreliable.
pub struct DatagramTransport;

impl Transport for DatagramTransport {
    const NAME: &'static str = "datagram";
    const RELIABLE: bool = false;
    type Spec = DatagramSpec;
    type Source = DatagramSource;
    type Sink = DatagramSink;

    fn build(
        spec: &DatagramSpec,
        ctx: FlowContext,
    ) -> Result<(DatagramSource, DatagramSink), String> {
        Ok((
            DatagramSource::new(ctx.flow, spec.clone(), ctx.bytes, ctx.source_rng),
            DatagramSink::new(ctx.flow, ctx.bytes),
        ))
    }
}
