//! TCP as a built-in transport (`transport = "tcp"`).

use super::{keys, stack, Receiver, Sender, TcpSpec};
use super::{TcpSummary, RECEIVER_COLUMNS};
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::series_columns::{DELIVERED, TCP_SENDER};
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;
use tcplab_core::KeyError;

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

    /// TCP's keys (`keys.rs`) under the flow's `stack` profile, else the scenario's,
    /// else [`stack::DEFAULT`].
    fn parse(flow: &FlowKeys<'_>) -> Result<TcpSpec, KeyError> {
        let default = flow.stack.unwrap_or(stack::DEFAULT);
        keys::tcp_spec(flow, flow.bytes, Some(default))
    }

    fn flow_columns() -> Vec<ColumnDef> {
        TcpSummary::columns().chain(RECEIVER_COLUMNS).collect()
    }

    fn series_columns() -> Vec<ColumnDef> {
        TCP_SENDER.into_iter().chain([DELIVERED]).collect()
    }

    fn build(spec: &TcpSpec, ctx: FlowContext) -> Result<(Sender, Receiver), String> {
        spec.build(ctx.flow)
    }
}
