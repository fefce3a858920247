//! Capacity traces: `trace = "traces/x.mahi"` (relative to the scenario file) makes a
//! Mahimahi trace the capacity of both directions, `reverse_trace` of the ACK direction
//! only; a datagram flow's `pattern = "trace"` reads its file the same way (`Keys::file_path`).

use super::{Section, R};
use std::sync::Arc;
use tcplab_link::{DeliveryTrace, LinkParams};

/// Reads a Mahimahi trace file named by key `k` (relative to the scenario file).
fn load_trace(s: &Section<'_>, k: &str, rel: &str) -> R<Arc<DeliveryTrace>> {
    let v = s.table.get(k);
    let path = s.file_path(k, rel)?;
    let t =
        DeliveryTrace::read(&path).map_err(|e| s.err(k, v, format!("{}: {e}", path.display())))?;
    Ok(Arc::new(t))
}

/// Reads `trace` and `reverse_trace` into the two directions.
pub(super) fn capacity_keys(s: &Section<'_>, fwd: &mut LinkParams, rev: &mut LinkParams) -> R<()> {
    if let Some(t) = s.string("trace")? {
        let t = load_trace(s, "trace", t)?;
        fwd.trace = Some(t.clone());
        rev.trace = Some(t);
    }
    if let Some(t) = s.string("reverse_trace")? {
        rev.trace = Some(load_trace(s, "reverse_trace", t)?);
    }
    Ok(())
}
