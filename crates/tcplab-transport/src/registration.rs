//! What registers a transport at run time ([`register`](crate::transport::register)): a
//! factory for its two ends and the columns they publish.

use crate::cc::CcParams;
use crate::endpoint::Endpoint;
use crate::flow_context::FlowContext;
use tcplab_core::ColumnDef;

/// The two ends of a user-registered transport.
pub struct UserEndpoints {
    pub source: Box<dyn Endpoint + Send>,
    pub sink: Box<dyn Endpoint + Send>,
    /// Whether the sink must end up with every byte the source wrote (checked at the end
    /// of every run), or may lose some (then losses are only counted).
    pub reliable: bool,
}

/// Builds a registered transport from its parameters (`[flow.params]`; take the ones you
/// understand, unknown ones are reported) and the flow's context.
pub type Factory = fn(&mut CcParams, FlowContext) -> Result<UserEndpoints, String>;

/// A transport registered at run time: how its two ends are built and the columns they
/// publish, each a [`ColumnDef`] as a built-in declares them
/// ([`Transport::flow_columns`](crate::Transport::flow_columns)). The results reference
/// (`tcplab_sim::columns`, Python's `tcplab.columns`) lists them beside the built-ins',
/// and `tcplab_sim::undeclared_columns` finds a column its ends publish undeclared.
#[derive(Clone, Copy, Debug)]
pub struct Registration {
    pub build: Factory,
    /// The columns its ends publish in the flows table (`summary`).
    pub flow_columns: &'static [ColumnDef],
    /// The columns its ends publish in `flow_series` (`sample`).
    pub series_columns: &'static [ColumnDef],
}

impl Registration {
    /// A transport whose ends publish no columns of their own.
    pub const fn new(build: Factory) -> Registration {
        Registration {
            build,
            flow_columns: &[],
            series_columns: &[],
        }
    }
}
