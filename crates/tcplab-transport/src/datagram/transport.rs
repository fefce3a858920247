//! Datagrams as a built-in transport (`transport = "datagram"`).

use super::DatagramSummary;
use super::{keys, DatagramSink, DatagramSource, DatagramSpec};
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::series_columns::DELIVERED;
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;
use tcplab_core::KeyError;
use toml::Table;

/// `transport = "datagram"`: [`DatagramSource`] and [`DatagramSink`]; unreliable.
pub struct DatagramTransport;

impl Transport for DatagramTransport {
    const NAME: &'static str = "datagram";
    const RELIABLE: bool = false;
    type Spec = DatagramSpec;
    type Source = DatagramSource;
    type Sink = DatagramSink;

    /// Its `packet_size` (the UDP payload) plus the IP and UDP headers.
    fn largest_packet(table: &Table) -> u64 {
        keys::largest_packet(table)
    }

    /// The datagram keys (`keys.rs`).
    fn parse(flow: &FlowKeys<'_>) -> Result<DatagramSpec, KeyError> {
        keys::datagram_spec(flow)
    }

    fn flow_columns() -> Vec<ColumnDef> {
        DatagramSummary::COLUMNS.to_vec()
    }

    fn series_columns() -> Vec<ColumnDef> {
        DatagramSource::SERIES
            .into_iter()
            .chain([DELIVERED])
            .collect()
    }

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
