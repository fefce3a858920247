//! Datagram (cross-traffic) flow keys.
//!
//! `pattern = "cbr"` (default) sends at `rate`; `"onoff"` sends at `rate` during on
//! periods (`on_time`, `off_time`: means; `on_dist`/`off_dist`: "exponential" (default),
//! "constant" or "pareto" with `pareto_shape`); `"trace"` sends one datagram at each
//! millisecond timestamp of the Mahimahi-format file `trace`. `packet_size` is the UDP
//! payload (default 1472: a 1500-byte IP packet).

use super::{DatagramSpec, Pattern, Period, UDP_HEADER_BYTES};
use tcplab_core::{KeyError, Keys};
use tcplab_link::DeliveryTrace;
use toml::{Table, Value};

type R<T> = Result<T, KeyError>;

/// Largest payload: a 64 KiB IP packet less its headers.
const MAX_PAYLOAD: u64 = 65_535 - UDP_HEADER_BYTES as u64;

/// The payload of a 1500-byte IP packet (the Ethernet MTU).
const DEFAULT_PAYLOAD: u64 = 1500 - UDP_HEADER_BYTES as u64;

fn rate(f: &Keys<'_>) -> R<u64> {
    match f.rate("rate")? {
        Some(0) => Err(f.err("rate", f.table.get("rate"), "must be > 0")),
        Some(r) => Ok(r),
        None => Err(f.err(
            "rate",
            None,
            "required: the sending rate, e.g. rate = \"5Mbps\" (IP packet bytes, as link rates)",
        )),
    }
}

fn period(f: &Keys<'_>, time_key: &str, dist_key: &str) -> R<Period> {
    let mean = f.duration(time_key)?.ok_or_else(|| {
        f.err(
            time_key,
            None,
            "required for pattern = \"onoff\": the mean period, e.g. \"500ms\"",
        )
    })?;
    if mean.as_nanos() == 0 {
        return Err(f.err(time_key, f.table.get(time_key), "must be > 0"));
    }
    Ok(match f.string(dist_key)?.unwrap_or("exponential") {
        "constant" => Period::Constant(mean),
        "exponential" => Period::Exponential { mean },
        "pareto" => {
            let shape = match f.get("pareto_shape") {
                None => 1.5,
                Some(Value::Float(x)) => *x,
                Some(Value::Integer(i)) => *i as f64,
                Some(v) => return Err(f.err("pareto_shape", Some(v), "expected a number")),
            };
            if !(shape > 1.0 && shape.is_finite()) {
                return Err(f.err(
                    "pareto_shape",
                    f.table.get("pareto_shape"),
                    "must be > 1 (the mean is infinite otherwise)",
                ));
            }
            Period::Pareto { mean, shape }
        }
        other => {
            return Err(f.err(
                dist_key,
                Some(&Value::String(other.into())),
                "use \"exponential\", \"constant\" or \"pareto\"",
            ))
        }
    })
}

/// The IP packet of a flow's `packet_size` as written (the default's, 1500 bytes, for a
/// value [`datagram_spec`] will refuse).
pub(super) fn largest_packet(t: &Table) -> u64 {
    let payload = match t.get("packet_size") {
        Some(Value::Integer(i)) if *i > 0 => *i as u64,
        _ => DEFAULT_PAYLOAD,
    };
    payload + u64::from(UDP_HEADER_BYTES)
}

/// Keys of a flow with `transport = "datagram"`.
pub(super) fn datagram_spec(f: &Keys<'_>) -> R<DatagramSpec> {
    let payload = f
        .uint("packet_size", 1, MAX_PAYLOAD)?
        .unwrap_or(DEFAULT_PAYLOAD) as u32;
    let pattern = match f.string("pattern")?.unwrap_or("cbr") {
        "cbr" => Pattern::Cbr { rate_bps: rate(f)? },
        "onoff" => Pattern::OnOff {
            rate_bps: rate(f)?,
            on: period(f, "on_time", "on_dist")?,
            off: period(f, "off_time", "off_dist")?,
        },
        "trace" => {
            let file = f.string("trace")?.ok_or_else(|| {
                f.err(
                    "trace",
                    None,
                    "required for pattern = \"trace\": a file of millisecond timestamps",
                )
            })?;
            // A Mahimahi trace file, read as a link's `trace` is (relative to the file).
            let path = f.file_path("trace", file)?;
            let t = DeliveryTrace::read(&path).map_err(|e| {
                f.err(
                    "trace",
                    f.table.get("trace"),
                    format!("{}: {e}", path.display()),
                )
            })?;
            Pattern::Trace {
                ms: t.timestamps().into(),
            }
        }
        other => {
            return Err(f.err(
                "pattern",
                Some(&Value::String(other.into())),
                "use \"cbr\", \"onoff\" or \"trace\"",
            ))
        }
    };
    Ok(DatagramSpec { pattern, payload })
}
