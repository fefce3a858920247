//! Variable-delay link keys: `jitter` (its distribution) and `reorder`.
//!
//! - `jitter = "2ms"`: uniform in [0, 2 ms] (same as `{ dist = "uniform", max = "2ms" }`);
//! - `jitter = { dist = "normal", mean = "5ms", sd = "2ms" }`: Gaussian, negative draws
//!   clamped to 0 (`mean` defaults to 0);
//! - `reorder = true`: packets may overtake each other (default false: order kept).
//!
//! Both apply to both directions, and like any link key may change in a schedule entry or
//! a handover's `to`.

use super::{Section, R};
use tcplab_core::Dur;
use tcplab_link::{Jitter, LinkParams};
use toml::Value;

fn distribution(s: &Section<'_>) -> R<Option<Jitter>> {
    let Some(v) = s.table.get("jitter") else {
        s.get("jitter");
        return Ok(None);
    };
    if !matches!(v, Value::Table(_)) {
        return Ok(s.duration("jitter")?.map(Jitter::from));
    }
    let t = s.table("jitter")?.expect("present");
    let Some(dist) = t.string("dist")? else {
        return Err(t.err(
            "dist",
            None,
            "required: \"uniform\" (with max) or \"normal\" (with mean, sd)",
        ));
    };
    let j = match dist {
        "uniform" => Jitter::Uniform {
            max: t
                .duration("max")?
                .ok_or_else(|| t.err("max", None, "the uniform jitter needs max = \"<time>\""))?,
        },
        "normal" => Jitter::Normal {
            mean: t.duration("mean")?.unwrap_or(Dur::ZERO),
            sd: t.duration("sd")?.ok_or_else(|| {
                t.err(
                    "sd",
                    None,
                    "the normal jitter needs sd = \"<time>\" (standard deviation)",
                )
            })?,
        },
        other => {
            return Err(t.err(
                "dist",
                Some(&Value::String(other.into())),
                "unknown jitter distribution (use \"uniform\" or \"normal\")",
            ))
        }
    };
    t.finish()?;
    Ok(Some(j))
}

/// Reads `jitter` and `reorder` into both directions.
pub(super) fn jitter_keys(s: &Section<'_>, fwd: &mut LinkParams, rev: &mut LinkParams) -> R<()> {
    if let Some(j) = distribution(s)? {
        fwd.jitter = j;
        rev.jitter = j;
    }
    if let Some(r) = s.boolean("reorder")? {
        fwd.reorder = r;
        rev.reorder = r;
    }
    Ok(())
}
