//! What a built-in transport provides: its name, its settings and its two endpoints.

use crate::cc::CcParams;
use crate::endpoint::Endpoint;
use crate::flow_context::FlowContext;
use crate::flow_keys::FlowKeys;
use crate::param_error::ParamError;
use std::fmt::Debug;
use tcplab_core::ColumnDef;
use tcplab_core::KeyError;
use toml::Table;

/// A built-in transport, implemented by a unit type in the transport's folder and listed
/// once in `builtin.rs`, which makes [`TransportSpec`](crate::TransportSpec) and
/// [`AnyEndpoint`](crate::AnyEndpoint) variants of it. Its packet header type, if it
/// brings one, implements [`PacketKind`](crate::PacketKind).
pub trait Transport {
    /// The name scenarios select it with (`transport = "..."`).
    const NAME: &'static str;
    /// Whether the sink must end up with every byte the source wrote (checked at the end
    /// of every run), or may lose some (then losses are only counted).
    const RELIABLE: bool;
    /// Its settings, as parsed from a `[[flow]]` table.
    type Spec: Clone + Debug;
    /// The end that writes (the flow's source).
    type Source: Endpoint + Send;
    /// The end that reads (the flow's sink).
    type Sink: Endpoint + Send;

    /// The congestion controller's name, for transports that have one.
    fn cc(spec: &Self::Spec) -> Option<&str> {
        let _ = spec;
        None
    }

    /// Reads its settings from its `[[flow]]` table: the scenario parser has read the
    /// keys every flow has (`name`, `count`, `bytes`, `start`, `stop`, `transport`, ...)
    /// and reports as unknown any key no one took. An error names the file, key, value
    /// and why ([`KeyError`], made with [`Keys::err`](tcplab_core::Keys::err)).
    ///
    /// TCP, datagram, TACK, TCP/NC and TCP-Forward read top-level keys in their folder's
    /// `keys.rs`. The default reads the flow's `params` table through
    /// [`from_params`](Self::from_params), blaming `params.<key>`.
    fn parse(flow: &FlowKeys<'_>) -> Result<Self::Spec, KeyError> {
        flow.params_spec(Self::NAME, Self::from_params)
    }

    /// The largest IP packet a flow of this transport sends, from its `[[flow]]` table
    /// as written (the scenario parser sizes byte-limited queues by it before any flow is
    /// parsed); a value [`parse`](Self::parse) will refuse counts as the default. The
    /// default reads `mtu` ([`flow_keys::mtu_packet`](crate::flow_keys::mtu_packet)).
    fn largest_packet(table: &Table) -> u64 {
        crate::flow_keys::mtu_packet(table)
    }

    /// Reads its settings from the flow's `params` table (take the keys you use; the
    /// ones left over are refused) and its byte count (`None`: unlimited), for a
    /// transport that keeps the default [`parse`](Self::parse).
    fn from_params(params: &mut CcParams, bytes: Option<u64>) -> Result<Self::Spec, ParamError> {
        let _ = (params, bytes);
        Err(ParamError::NoParamsParser(Self::NAME))
    }

    /// The columns its two ends publish in the flows table (`summary`: the source's,
    /// then the sink's), each declared beside the code that publishes it. The results
    /// reference (`tcplab.columns`, docs/results.md) is built from these.
    fn flow_columns() -> Vec<ColumnDef>;

    /// The columns its two ends publish in `flow_series` (`sample`), likewise.
    fn series_columns() -> Vec<ColumnDef>;

    /// Builds the two ends of one run of a flow with `spec`.
    fn build(spec: &Self::Spec, ctx: FlowContext) -> Result<(Self::Source, Self::Sink), String>;
}
