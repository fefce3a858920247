//! TACK flow keys (`transport = "tack"`): controller, β, L, feedback richness, buffers,
//! the receiver's filters and the sender's timers.

use super::{LossResponse, TackConfig, TackSpec, TACK_DATA_HEADER_BYTES};
use crate::flow_keys::{check_controller, number_params, MAX_MTU};
use tcplab_core::{Dur, KeyError, Keys};
use toml::Value;

type R<T> = Result<T, KeyError>;

fn positive(f: &Keys<'_>, k: &str) -> R<Option<Dur>> {
    let d = f.duration(k)?;
    if d == Some(Dur::ZERO) {
        return Err(f.err(k, f.table.get(k), "must be > 0"));
    }
    Ok(d)
}

/// Keys of a flow with `transport = "tack"`; `bytes` comes from the caller.
pub(super) fn tack_spec(f: &Keys<'_>, bytes: Option<u64>) -> R<TackSpec> {
    let cc_name = f.string("cc")?.unwrap_or("bbr").to_string();
    let cc_params = number_params(f, "cc_params")?;
    check_controller(f, &cc_name, &cc_params)?;
    let mut c = TackConfig {
        total_bytes: bytes,
        ..TackConfig::default()
    };
    let mtu = f.uint("mtu", 68, MAX_MTU as u64)?.unwrap_or(1500) as u32;
    c.mss = match f.uint("mss", 1, u32::MAX as u64)? {
        Some(m) => m as u32,
        None => mtu - TACK_DATA_HEADER_BYTES,
    };
    if c.mss + TACK_DATA_HEADER_BYTES > mtu {
        return Err(f.err(
            "mss",
            f.table.get("mss"),
            format!(
                "MSS plus {TACK_DATA_HEADER_BYTES} bytes of headers exceeds the MTU of {mtu} bytes"
            ),
        ));
    }
    if let Some(b) = f.uint("beta", 2, 1000)? {
        c.beta = b as u32;
    }
    if let Some(l) = f.uint("l", 1, 1 << 16)? {
        c.l = l as u32;
    }
    match f.string("feedback")? {
        None | Some("rich") => c.rich = true,
        Some("poor") => c.rich = false,
        Some(other) => {
            return Err(f.err(
                "feedback",
                Some(&Value::String(other.into())),
                "use \"rich\" (as many loss blocks as fit) or \"poor\" (Q = 1: the first only)",
            ))
        }
    }
    if let Some(b) = f.bytes("rcv_buf")? {
        if b < 4 * c.mss as u64 {
            return Err(f.err(
                "rcv_buf",
                f.table.get("rcv_buf"),
                "must hold at least 4 MSS",
            ));
        }
        c.rcv_buf = b.min(u32::MAX as u64);
    }
    if let Some(n) = f.uint("bw_window_rtts", 1, 1000)? {
        c.bw_window_rtts = n as u32;
    }
    match f.get("owd_gain") {
        None => {}
        Some(v @ (Value::Float(_) | Value::Integer(_))) => {
            let g = v
                .as_float()
                .or(v.as_integer().map(|i| i as f64))
                .unwrap_or(0.0);
            if !(g > 0.0 && g <= 1.0) {
                return Err(f.err("owd_gain", Some(v), "an EWMA gain in (0, 1]"));
            }
            c.owd_gain = g;
        }
        Some(v) => return Err(f.err("owd_gain", Some(v), "expected a number in (0, 1]")),
    }
    if let Some(d) = positive(f, "max_interval")? {
        c.max_interval = d;
    }
    if let Some(d) = positive(f, "initial_delay")? {
        c.initial_delay = d;
    }
    if let Some(d) = positive(f, "rtt_window")? {
        c.rtt_window = d;
    }
    if let Some(v) = f.uint("iack_delay_div", 0, 1000)? {
        c.iack_delay_div = v as u32;
    }
    if let Some(d) = f.duration("iack_delay_initial")? {
        c.iack_delay_initial = d;
    }
    if let Some(on) = f.boolean("loss_iack")? {
        c.loss_iack = on;
    }
    match f.string("loss_response")? {
        None => {}
        Some("rate") => c.loss_response = LossResponse::Rate,
        Some("conservation") => c.loss_response = LossResponse::Conservation,
        Some(other) => {
            return Err(f.err(
                "loss_response",
                Some(&Value::String(other.into())),
                "use \"rate\" (the paper's co-designed BBR: a reported loss is only \
                 retransmitted) or \"conservation\" (the controller's recovery, as TCP's)",
            ))
        }
    }
    if let Some(v) = f.uint("initial_cwnd", 1, 1 << 20)? {
        c.initial_cwnd = v as u32;
    }
    if let Some(d) = f.duration("min_rto")? {
        c.min_rto = d;
    }
    if let Some(d) = positive(f, "initial_rto")? {
        c.initial_rto = d;
    }
    Ok(TackSpec {
        cc: cc_name,
        cc_params,
        cfg: c,
    })
}
