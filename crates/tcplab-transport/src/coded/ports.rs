//! The byte stores of a `payload = true` coded flow's two ends.

use super::symbol_bytes::{SymbolBytes, NO_PORT};
use crate::flow_context::FlowContext;

/// The ports a `payload = true` flow's ends use (both `None` without payload).
pub(crate) fn ports(
    payload: bool,
    ctx: &FlowContext,
) -> Result<(Option<SymbolBytes>, Option<SymbolBytes>), String> {
    if !payload {
        return Ok((None, None));
    }
    match (&ctx.payload.source, &ctx.payload.sink) {
        (Some(a), Some(b)) => Ok((Some(a.clone()), Some(b.clone()))),
        _ => Err(NO_PORT.into()),
    }
}
