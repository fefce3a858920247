//! TCP as a built-in transport (`transport = "tcp"`).

use super::{Receiver, Sender, TcpSpec};
use crate::flow_context::FlowContext;
use crate::transport_kind::Transport;

/// `transport = "tcp"`: [`Sender`] and [`Receiver`].
pub struct TcpTransport;

impl Transport for TcpTransport {
    const NAME: &'static str = "tcp";
    const RELIABLE: bool = true;
    type Spec = TcpSpec;
    type Source = Sender;
    type Sink = Receiver;

    fn cc(spec: &TcpSpec) -> Option<&str> {
        Some(&spec.cc)
    }

    fn build(spec: &TcpSpec, ctx: FlowContext) -> Result<(Sender, Receiver), String> {
        spec.build(ctx.flow)
    }
}
