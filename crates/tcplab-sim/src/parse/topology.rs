//! Topology shorthands: the access links of a dumbbell.

use super::{Section, R};
use crate::scenario::LinkSpec;
use tcplab_core::Dur;
use tcplab_link::LinkParams;

pub(super) fn default_access(name: String) -> LinkSpec {
    let p = LinkParams::new(10_000_000_000, Dur::ZERO);
    LinkSpec {
        name,
        fwd: p.clone(),
        rev: p,
        schedule: vec![],
    }
}

pub(super) fn parse_access_overrides(f: &Section<'_>) -> R<(Option<Dur>, Option<u64>)> {
    let d = f.duration("access_delay")?;
    let r = f.rate("access_rate")?;
    if r == Some(0) {
        return Err(f.err(
            "access_rate",
            f.table.get("access_rate"),
            "a link rate must be > 0",
        ));
    }
    Ok((d, r))
}
