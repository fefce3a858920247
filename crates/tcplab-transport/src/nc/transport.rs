//! TCP/NC as a built-in transport (`transport = "tcp-nc"`).

use super::NcSourceSummary;
use super::{keys, NcSink, NcSource, NcSpec};
use crate::coded::CodedSinkSummary;
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::series_columns::{SYMBOLS_SENT, TCP_SENDER};
use crate::tcp::TcpSummary;
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;
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

    fn flow_columns() -> Vec<ColumnDef> {
        TcpSummary::columns()
            .chain(NcSourceSummary::COLUMNS)
            .chain(CodedSinkSummary::columns(true))
            .collect()
    }

    fn series_columns() -> Vec<ColumnDef> {
        TCP_SENDER
            .into_iter()
            .chain([SYMBOLS_SENT])
            .chain(NcSink::SERIES)
            .collect()
    }

    fn build(spec: &Box<NcSpec>, ctx: FlowContext) -> Result<(NcSource, NcSink), String> {
        spec.build(ctx)
    }
}
