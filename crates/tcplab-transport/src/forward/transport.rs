//! TCP-Forward as a built-in transport (`transport = "tcp-forward"`).

use super::ForwardSourceSummary;
use super::{keys, ForwardSink, ForwardSource, ForwardSpec};
use crate::coded::CodedSinkSummary;
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;
use tcplab_core::KeyError;

/// `transport = "tcp-forward"`: [`ForwardSource`] and [`ForwardSink`].
pub struct ForwardTransport;

impl Transport for ForwardTransport {
    const NAME: &'static str = "tcp-forward";
    const RELIABLE: bool = true;
    /// Boxed: a TCP-Forward spec is several times larger than the others.
    type Spec = Box<ForwardSpec>;
    type Source = ForwardSource;
    type Sink = ForwardSink;

    fn cc(spec: &Box<ForwardSpec>) -> Option<&str> {
        Some(&spec.cc)
    }

    /// TCP-Forward's keys (`keys.rs`).
    fn parse(flow: &FlowKeys<'_>) -> Result<Box<ForwardSpec>, KeyError> {
        keys::forward_spec(flow, flow.bytes).map(Box::new)
    }

    fn flow_columns() -> Vec<ColumnDef> {
        ForwardSourceSummary::COLUMNS
            .into_iter()
            .chain(CodedSinkSummary::columns(false))
            .collect()
    }

    fn series_columns() -> Vec<ColumnDef> {
        ForwardSource::SERIES
            .into_iter()
            .chain(ForwardSink::SERIES)
            .collect()
    }

    fn build(
        spec: &Box<ForwardSpec>,
        ctx: FlowContext,
    ) -> Result<(ForwardSource, ForwardSink), String> {
        spec.build(ctx)
    }
}
