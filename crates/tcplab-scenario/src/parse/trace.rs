//! Capacity traces: `trace = "traces/x.mahi"` (relative to the scenario file) makes a
//! Mahimahi trace the capacity of both directions, `reverse_trace` of the ACK direction
//! only; a datagram flow's `pattern = "trace"` reads its file the same way.

use super::{Section, R};
use std::path::Path;
use std::sync::Arc;
use tcplab_link::{DeliveryTrace, LinkParams};

/// Reads a Mahimahi trace file named by key `k` (relative to the scenario file).
pub(super) fn load_trace(s: &Section<'_>, k: &str, rel: &str) -> R<Arc<DeliveryTrace>> {
    let v = s.table.get(k);
    let p = Path::new(rel);
    let path = if p.is_relative() {
        Path::new(s.file)
            .parent()
            .map_or_else(|| p.to_path_buf(), |d| d.join(p))
    } else {
        p.to_path_buf()
    };
    // Opening a FIFO (or a device) blocks until something writes to it: look first.
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => {
            return Err(s.err(
                k,
                v,
                format!("{}: not a regular file (a trace is a file)", path.display()),
            ))
        }
        _ => {}
    }
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
