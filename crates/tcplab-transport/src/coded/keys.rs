//! Flow keys both coded transports read (`nc/keys.rs`, `forward/keys.rs`): the
//! `coding` table and the MSS a symbol's headers leave in the MTU.

use crate::cc::CcParams;
use crate::flow_keys::{number_params, MAX_MTU};
use tcplab_core::{KeyError, Keys};

type R<T> = Result<T, KeyError>;

/// Reads the `coding` table with `build`, naming the transport in errors.
pub(crate) fn coding<T>(
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
pub(crate) fn mss(f: &Keys<'_>, overhead: u32) -> R<u32> {
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
