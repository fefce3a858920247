//! Time-varying link keys: the schedule and handovers (traces: `trace.rs`; jitter:
//! `jitter.rs`).
//!
//! - `[[<link>.schedule]] at, ...link keys...`: from `at` on, the link's parameters
//!   changed by the entry's keys; `rate` switches a trace-driven link back to a constant
//!   rate, `trace` starts a trace when applied.
//! - `[[<link>.handover]] at, outage, to = { ...link keys... }`: the link goes down at
//!   `at` (in-flight packets lost), and `outage` later comes back up with the current
//!   parameters changed by `to`. `outage = "0s"` switches without a disconnection.

use super::link::link_params;
use super::{Section, R};
use crate::scenario::LinkChange;
use tcplab_core::Dur;
use tcplab_link::LinkParams;

enum Step<'a> {
    Set(Section<'a>),
    Down,
    Up(Section<'a>),
}

/// Schedule entries and handovers of one link, merged in time order.
pub(super) fn changes(s: &Section<'_>, fwd: &LinkParams, rev: &LinkParams) -> R<Vec<LinkChange>> {
    let mut steps: Vec<(Dur, Step<'_>)> = Vec::new();
    let mut last = None;
    for c in s.tables("schedule")? {
        let at = c
            .duration("at")?
            .ok_or_else(|| c.err("at", None, "each schedule entry needs at = \"<time>\""))?;
        if last.is_some_and(|l| at < l) {
            return Err(c.err(
                "at",
                c.table.get("at"),
                "schedule entries must be in time order",
            ));
        }
        last = Some(at);
        steps.push((at, Step::Set(c)));
    }
    let mut windows: Vec<(Dur, Dur, Section<'_>)> = Vec::new();
    for h in s.tables("handover")? {
        let at = h
            .duration("at")?
            .ok_or_else(|| h.err("at", None, "each handover needs at = \"<time>\""))?;
        let outage = h.duration("outage")?.unwrap_or(Dur::ZERO);
        let to = h.table("to")?.ok_or_else(|| {
            h.err(
                "to",
                None,
                "each handover needs to = { rate = ..., delay = ..., ... }",
            )
        })?;
        if to.table.contains_key("up") {
            return Err(to.err(
                "up",
                to.table.get("up"),
                "a handover always ends with the link up",
            ));
        }
        windows.push((at, at + outage, h));
        if outage > Dur::ZERO {
            steps.push((at, Step::Down));
        }
        steps.push((at + outage, Step::Up(to)));
    }
    // Nothing else may happen while a handover is in progress.
    for (i, (a, b, h)) in windows.iter().enumerate() {
        let inside = |t: Dur| t > *a && t < *b;
        let clash = steps.iter().any(|(t, _)| inside(*t))
            || windows
                .iter()
                .enumerate()
                .any(|(j, (c, d, _))| j != i && *c <= *b && *a <= *d);
        if clash {
            return Err(h.err(
                "at",
                h.table.get("at"),
                "overlaps another handover or a schedule entry during its outage",
            ));
        }
    }
    steps.sort_by_key(|(t, _)| *t);
    let (mut cf, mut cr) = (fwd.clone(), rev.clone());
    let mut out = Vec::with_capacity(steps.len());
    for (at, step) in steps {
        let (f, r) = match step {
            Step::Set(c) => {
                let fr = link_params(&c, Some((&cf, &cr)))?;
                c.finish()?;
                fr
            }
            Step::Down => {
                let (mut f, mut r) = (cf.clone(), cr.clone());
                f.up = false;
                r.up = false;
                (f, r)
            }
            Step::Up(to) => {
                let (mut f, mut r) = link_params(&to, Some((&cf, &cr)))?;
                to.finish()?;
                f.up = true;
                r.up = true;
                (f, r)
            }
        };
        cf = f.clone();
        cr = r.clone();
        out.push(LinkChange { at, fwd: f, rev: r });
    }
    for (_, _, h) in &windows {
        h.finish()?;
    }
    Ok(out)
}
