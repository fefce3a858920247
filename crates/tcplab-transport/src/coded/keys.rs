//! Keys of the coded transports: `transport = "tcp-nc"` (TCP's keys plus `coding`) and
//! `transport = "tcp-forward"` (`cc`, `cc_params`, `mss`/`mtu`, `initial_cwnd`, `coding`).

use super::{
    ForwardParams, ForwardSpec, NcParams, NcSpec, FORWARD_HEADER_BYTES, FORWARD_IP_UDP_BYTES,
    NC_FRAMING_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES,
};
use crate::cc::CcParams;
use crate::flow_keys::{check_controller, number_params, MAX_MTU};
use crate::tcp;
use crate::RecoveryMode;
use tcplab_core::{KeyError, Keys};

type R<T> = Result<T, KeyError>;

/// Reads the `coding` table with `build`, naming the transport in errors.
fn coding<T>(
    f: &Keys<'_>,
    transport: &str,
    build: impl Fn(&mut CcParams) -> Result<T, String>,
) -> R<T> {
    let mut p = number_params(f, "coding")?;
    let v = build(&mut p).map_err(|why| f.err("coding", None, why))?;
    p.finish(&format!("the coding of transport '{transport}'"))
        .map_err(|why| f.err("coding", None, why))?;
    Ok(v)
}

/// The MSS that fits a symbol of `overhead` header bytes (plus `framing`) into the MTU,
/// or the one given, checked.
fn mss(f: &Keys<'_>, overhead: u32) -> R<u32> {
    let mtu = f.uint("mtu", 68, MAX_MTU as u64)?.unwrap_or(1500) as u32;
    match f.uint("mss", 1, u32::MAX as u64)? {
        None if mtu > overhead => Ok(mtu - overhead),
        None => Err(f.err(
            "mtu",
            f.table.get("mtu"),
            "too small for the coding headers",
        )),
        Some(m) if m + u64::from(overhead) <= u64::from(mtu) => Ok(m as u32),
        Some(_) => Err(f.err(
            "mss",
            f.table.get("mss"),
            format!("the MSS plus {overhead} bytes of headers exceeds the MTU of {mtu} bytes"),
        )),
    }
}

pub(super) fn nc_spec(f: &Keys<'_>, bytes: Option<u64>) -> R<NcSpec> {
    // The receiver is the coding layer: TCP's receiver keys would be ignored.
    for k in ["ack", "ack_every", "ack_delay", "sack", "rcv_buf"] {
        if let Some(v) = f.table.get(k) {
            return Err(f.err(
                k,
                Some(v),
                "not used by tcp-nc: its receiver is the coding layer, which ACKs every \
                 innovative combination (coding.ack_redundant) and advertises coding.buffer",
            ));
        }
    }
    let explicit_recovery = f.table.contains_key("recovery");
    if let Some(v @ toml::Value::Boolean(true)) = f.table.get("handshake") {
        return Err(f.err(
            "handshake",
            Some(v),
            "tcp-nc has no handshake: its coding layer answers no SYN",
        ));
    }
    let mut spec = tcp::tcp_spec(f, bytes, None)?;
    spec.sender.handshake = false;
    spec.sender.mss = mss(f, NC_IP_TCP_BYTES + NC_HEADER_BYTES + NC_FRAMING_BYTES)?;
    spec.receiver.mss = spec.sender.mss;
    if spec.sender.recovery == RecoveryMode::Sack {
        if explicit_recovery {
            return Err(f.err(
                "recovery",
                f.table.get("recovery"),
                "tcp-nc's ACKs carry no SACK blocks: use \"reno\" or \"newreno\"",
            ));
        }
        spec.sender.recovery = RecoveryMode::NewReno;
    }
    let coding = coding(f, "tcp-nc", NcParams::from_params)?;
    Ok(NcSpec { tcp: spec, coding })
}

pub(super) fn forward_spec(f: &Keys<'_>, bytes: Option<u64>) -> R<ForwardSpec> {
    if bytes.is_none() {
        return Err(f.err(
            "bytes",
            f.table.get("bytes"),
            "tcp-forward needs a byte count: its LT decoder works on an object of known length",
        ));
    }
    let cc_name = f.string("cc")?.unwrap_or("vegas").to_string();
    let cc_params = number_params(f, "cc_params")?;
    check_controller(f, &cc_name, &cc_params)?;
    let mss = mss(f, FORWARD_IP_UDP_BYTES + FORWARD_HEADER_BYTES)?;
    let initial_cwnd = f.uint("initial_cwnd", 1, 1 << 20)?.unwrap_or(10) as u32;
    let coding = coding(f, "tcp-forward", ForwardParams::from_params)?;
    Ok(ForwardSpec {
        cc: cc_name,
        cc_params,
        mss,
        initial_cwnd,
        coding,
    })
}
