//! TACK as a built-in transport (`transport = "tack"`).

use super::{TackReceiver, TackSender, TackSpec};
use crate::flow_context::FlowContext;
use crate::transport_kind::Transport;

/// `transport = "tack"`: [`TackSender`] and [`TackReceiver`].
pub struct TackTransport;

impl Transport for TackTransport {
    const NAME: &'static str = "tack";
    const RELIABLE: bool = true;
    type Spec = TackSpec;
    type Source = TackSender;
    type Sink = TackReceiver;

    fn cc(spec: &TackSpec) -> Option<&str> {
        Some(&spec.cc)
    }

    fn build(spec: &TackSpec, ctx: FlowContext) -> Result<(TackSender, TackReceiver), String> {
        spec.build(ctx.flow)
    }
}
