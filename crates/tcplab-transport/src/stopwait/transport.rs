//! Stop-and-wait as a built-in transport (`transport = "stopwait"`).

use super::StopWaitSummary;
use super::{StopWaitSink, StopWaitSource, StopWaitSpec};
use crate::cc::CcParams;
use crate::flow_context::FlowContext;
use crate::param_error::ParamError;
use crate::series_columns::DELIVERED;
use crate::transport_kind::Transport;
use tcplab_core::ColumnDef;

/// `transport = "stopwait"`: [`StopWaitSource`] and [`StopWaitSink`].
pub struct StopWait;

impl Transport for StopWait {
    const NAME: &'static str = "stopwait";
    const RELIABLE: bool = true;
    type Spec = StopWaitSpec;
    type Source = StopWaitSource;
    type Sink = StopWaitSink;

    fn from_params(params: &mut CcParams, bytes: Option<u64>) -> Result<StopWaitSpec, ParamError> {
        StopWaitSpec::from_params(params, bytes)
    }

    fn flow_columns() -> Vec<ColumnDef> {
        StopWaitSummary::COLUMNS.to_vec()
    }

    fn series_columns() -> Vec<ColumnDef> {
        vec![DELIVERED]
    }

    fn build(
        spec: &StopWaitSpec,
        ctx: FlowContext,
    ) -> Result<(StopWaitSource, StopWaitSink), String> {
        Ok((
            StopWaitSource::new(spec.clone()),
            StopWaitSink::new(ctx.flow),
        ))
    }
}
