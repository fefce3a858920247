//! Readers the coding tables of TCP/NC (`nc/coding.rs`) and TCP-Forward
//! (`forward/coding.rs`) share: a flag, a whole number in a range, and the CPU cost
//! model's scale. docs/coded-transports.md lists the parameters with the seed's words.

use super::cost::CostModel;
use crate::cc::CcParams;

pub(crate) fn flag(p: &mut CcParams, name: &'static str, default: bool) -> Result<bool, String> {
    let v = p.take(
        name,
        f64::from(u8::from(default)),
        |v| v == 0.0 || v == 1.0,
        "true or false",
    )?;
    Ok(v == 1.0)
}

pub(crate) fn whole(
    p: &mut CcParams,
    name: &'static str,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, String> {
    let what = format!("a whole number in [{min}, {max}]");
    let v = p.take(
        name,
        f64::from(default),
        |v| v.fract() == 0.0 && v >= f64::from(min) && v <= f64::from(max),
        &what,
    )?;
    Ok(v as u32)
}

pub(crate) fn cpu(p: &mut CcParams) -> Result<CostModel, String> {
    let scale = p.take(
        "cpu_scale",
        1.0,
        |v| v >= 0.0,
        ">= 0 (0: coding takes no time)",
    )?;
    Ok(CostModel::REFERENCE.with_scale(scale))
}
