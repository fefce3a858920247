//! A link's queue discipline: `discipline = "codel"` (its defaults), or a table naming
//! the `kind` and any of its parameters, e.g.
//! `discipline = { kind = "fq_codel", flows = 1024, quantum = "1514B", target = "5ms" }`.

use super::{Section, R};
use crate::scenario::LinkChange;
use tcplab_core::Dur;
use tcplab_link::{
    CoDelParams, Discipline, FqCoDelParams, LinkParams, PieParams, RedParams, StepParams,
    StepThreshold,
};
use toml::Value;

const KINDS: &str = "drop-tail, fifo, codel, fq_codel, pie, red, step";

fn defaults(kind: &str) -> Option<Discipline> {
    Some(match kind {
        "drop-tail" | "droptail" => Discipline::DropTail,
        "fifo" => Discipline::Fifo,
        "codel" => Discipline::CoDel(CoDelParams::default()),
        "fq_codel" | "fq-codel" => Discipline::FqCoDel(FqCoDelParams::default()),
        "pie" => Discipline::Pie(PieParams::default()),
        "red" => Discipline::Red(RedParams::default()),
        // K has no default: read from the table (`step_keys`).
        "step" => Discipline::Step(StepParams {
            k: StepThreshold::Packets(0),
        }),
        _ => return None,
    })
}

/// A number (integer or float) that is finite and within `[lo, hi]`.
fn number(s: &Section<'_>, k: &str, lo: f64, hi: f64, what: &str) -> R<Option<f64>> {
    let x = match s.get(k) {
        None => return Ok(None),
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(v) => return Err(s.err(k, Some(v), format!("expected a number ({what})"))),
    };
    if !x.is_finite() || x < lo || x > hi {
        return Err(s.err(k, s.table.get(k), format!("must be {what}")));
    }
    Ok(Some(x))
}

fn positive(s: &Section<'_>, k: &str, d: &mut Dur) -> R<()> {
    if let Some(v) = s.positive_duration(k)? {
        *d = v;
    }
    Ok(())
}

fn codel_keys(t: &Section<'_>, p: &mut CoDelParams) -> R<()> {
    positive(t, "target", &mut p.target)?;
    positive(t, "interval", &mut p.interval)?;
    if p.target >= p.interval {
        return Err(t.err(
            "target",
            t.table.get("target"),
            format!(
                "must be below interval ({} ms; RFC 8289 suggests 5-10 % of it)",
                p.interval.as_millis_f64()
            ),
        ));
    }
    if let Some(e) = t.boolean("ecn")? {
        p.ecn = e;
    }
    Ok(())
}

/// Reads key `k` of `s` as a queue discipline, if present.
pub(super) fn discipline(s: &Section<'_>, k: &str) -> R<Option<Discipline>> {
    let Some(v) = s.get(k) else { return Ok(None) };
    let t = match v {
        Value::String(name) if name == "step" => {
            return Err(s.err(
                k,
                Some(v),
                "step marking needs its threshold: discipline = { kind = \"step\", k = 20 } \
                 (packets) or k = \"30KB\" (bytes)",
            ));
        }
        Value::String(name) => {
            return defaults(name)
                .map(Some)
                .ok_or_else(|| s.err(k, Some(v), format!("unknown discipline (use {KINDS})")));
        }
        Value::Table(_) => s.table(k)?.expect("present"),
        v => {
            return Err(s.err(
                k,
                Some(v),
                "expected a name like \"codel\" or a table with kind = ...",
            ))
        }
    };
    let kind = t
        .string("kind")?
        .ok_or_else(|| t.err("kind", None, format!("required: one of {KINDS}")))?;
    let mut d = defaults(kind).ok_or_else(|| {
        t.err(
            "kind",
            t.table.get("kind"),
            format!("unknown discipline (use {KINDS})"),
        )
    })?;
    match &mut d {
        Discipline::DropTail | Discipline::Fifo => {}
        Discipline::CoDel(p) => codel_keys(&t, p)?,
        Discipline::FqCoDel(p) => {
            codel_keys(&t, &mut p.codel)?;
            if let Some(n) = t.uint("flows", 1, 65_536)? {
                p.flows = n as u32;
            }
            if let Some(q) = t.bytes("quantum")? {
                if q == 0 || q > 1 << 20 {
                    return Err(t.err(
                        "quantum",
                        t.table.get("quantum"),
                        "must be between 1 byte and 1 MiB (Linux's default is 1514 B)",
                    ));
                }
                p.quantum = q as u32;
            }
        }
        Discipline::Pie(p) => {
            positive(&t, "target", &mut p.target)?;
            positive(&t, "t_update", &mut p.t_update)?;
            if let Some(b) = t.duration("max_burst")? {
                p.max_burst = b;
            }
            if let Some(a) = number(&t, "alpha", 0.0, 1e6, "a weight >= 0 per second")? {
                p.alpha = a;
            }
            if let Some(b) = number(&t, "beta", 0.0, 1e6, "a weight >= 0 per second")? {
                p.beta = b;
            }
            if let Some(e) = t.boolean("ecn")? {
                p.ecn = e;
            }
        }
        Discipline::Step(p) => p.k = step_threshold(&t)?,
        Discipline::Red(p) => {
            let pkts = "a queue length in packets, >= 0";
            if let Some(x) = number(&t, "min_th", 0.0, 1e9, pkts)? {
                p.min_th = x;
            }
            if let Some(x) = number(&t, "max_th", 0.0, 1e9, pkts)? {
                p.max_th = x;
            }
            if p.max_th <= p.min_th {
                return Err(t.err(
                    "max_th",
                    t.table.get("max_th"),
                    format!("must be above min_th ({})", p.min_th),
                ));
            }
            if let Some(x) = number(
                &t,
                "max_p",
                f64::MIN_POSITIVE,
                1.0,
                "a probability in (0, 1]",
            )? {
                p.max_p = x;
            }
            if let Some(x) = number(
                &t,
                "weight",
                f64::MIN_POSITIVE,
                1.0,
                "an averaging weight in (0, 1]",
            )? {
                p.weight = x;
            }
            if let Some(g) = t.boolean("gentle")? {
                p.gentle = g;
            }
            if let Some(e) = t.boolean("ecn")? {
                p.ecn = e;
            }
        }
    }
    t.finish()?;
    Ok(Some(d))
}

/// Step marking's `k`: a whole number of packets, or bytes with a unit ("30KB").
fn step_threshold(t: &Section<'_>) -> R<StepThreshold> {
    let why = "the marking threshold K: a number of packets >= 1 (k = 20) or bytes with a \
               unit (k = \"30KB\")";
    match t.get("k") {
        None => Err(t.err("k", None, format!("required: {why}"))),
        Some(Value::Integer(_)) => Ok(StepThreshold::Packets(
            t.uint("k", 1, 1 << 32)?.expect("present"),
        )),
        Some(Value::String(_)) => match t.bytes("k")? {
            Some(b) if b > 0 => Ok(StepThreshold::Bytes(b)),
            _ => Err(t.err("k", t.table.get("k"), format!("must be {why}"))),
        },
        Some(v) => Err(t.err("k", Some(v), format!("expected {why}"))),
    }
}

/// Refuses a discipline on a half-duplex link (its shared transmitter has no seam yet).
pub(super) fn full_duplex_only(
    s: &Section<'_>,
    fwd: &LinkParams,
    rev: &LinkParams,
    schedule: &[LinkChange],
) -> R<()> {
    let all = [fwd, rev]
        .into_iter()
        .chain(schedule.iter().flat_map(|c| [&c.fwd, &c.rev]));
    for p in all {
        if p.discipline != Discipline::DropTail {
            return Err(s.err(
                "discipline",
                s.table.get("discipline"),
                "queue disciplines are modelled on full-duplex links only (this link is half-duplex)",
            ));
        }
    }
    Ok(())
}
