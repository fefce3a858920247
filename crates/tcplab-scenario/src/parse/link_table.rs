//! A whole link table: its parameters (`link.rs`), `duplex`, and its schedule and
//! handovers (`timevar.rs`).

use super::link::link_params;
use super::qdisc;
use super::timevar;
use super::{Section, R};
use crate::scenario::{Duplex, LinkSpec};
use toml::Value;

/// Reads a whole link table (parameters, `duplex`, schedule and handovers) for a link
/// between nodes `a` and `b`; keys the caller reads (`between`, `cost`) must be read first.
pub(super) fn parse_link(s: &Section<'_>, name: &str, a: usize, b: usize) -> R<LinkSpec> {
    let duplex = match s.string("duplex")? {
        None | Some("full") => Duplex::Full,
        Some("half") => Duplex::Half,
        Some(other) => return Err(s.err(
            "duplex",
            Some(&Value::String(other.into())),
            "use \"full\" (each direction its own transmitter) or \"half\" (one shared by both)",
        )),
    };
    if duplex == Duplex::Half {
        for k in ["reverse", "reverse_rate", "reverse_trace", "ack_loss"] {
            if s.table.contains_key(k) {
                return Err(s.err(
                    k,
                    s.table.get(k),
                    "a half-duplex link has one transmitter for both directions: per-direction keys do not apply",
                ));
            }
        }
    }
    let (fwd, rev) = link_params(s, None)?;
    let schedule = timevar::changes(s, &fwd, &rev)?;
    if duplex == Duplex::Half {
        qdisc::full_duplex_only(s, &fwd, &rev, &schedule)?;
    }
    s.finish()?;
    Ok(LinkSpec {
        name: name.to_string(),
        a,
        b,
        duplex,
        cost: 1,
        fwd,
        rev,
        schedule,
    })
}
