//! TACK as a built-in transport (`transport = "tack"`).

use super::{keys, TackReceiver, TackSender, TackSpec};
use super::{TackReceiverSummary, TackSenderSummary};
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;
use tcplab_core::KeyError;

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

    /// TACK's keys (`keys.rs`).
    fn parse(flow: &FlowKeys<'_>) -> Result<TackSpec, KeyError> {
        keys::tack_spec(flow, flow.bytes)
    }

    fn flow_columns() -> Vec<ColumnDef> {
        TackSenderSummary::columns()
            .chain(TackReceiverSummary::COLUMNS)
            .collect()
    }

    fn series_columns() -> Vec<ColumnDef> {
        TackSender::SERIES
            .into_iter()
            .chain(TackReceiver::SERIES)
            .collect()
    }

    fn build(spec: &TackSpec, ctx: FlowContext) -> Result<(TackSender, TackReceiver), String> {
        spec.build(ctx.flow)
    }
}
