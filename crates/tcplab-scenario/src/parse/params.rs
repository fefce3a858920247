//! Named-parameter tables (`cc_params`, a registered transport's `params`): the one
//! reader the TCP, TACK, coded and user-transport flow parsers share, and the check of a
//! controller with its parameters.

use super::{Section, R};
use tcplab_transport::cc::{self, BuildError, CcParams};
use toml::Value;

/// Builds controller `name` with `params` once, so an unknown name is reported against
/// the flow's `cc` and a bad parameter against its `cc_params`, in this file.
pub(super) fn check_controller(f: &Section<'_>, name: &str, params: &CcParams) -> R<()> {
    match cc::build(name, params) {
        Ok(_) => Ok(()),
        Err(BuildError::Name(why)) => Err(f.err("cc", f.table.get("cc"), why)),
        Err(BuildError::Params(why)) => Err(f.err("cc_params", None, why)),
    }
}

/// A table of numbers or names (`cc_params`, `params`) as named parameters; a string
/// selects a variant (`hystart = "classic"`).
pub(super) fn number_params(f: &Section<'_>, key: &str) -> R<CcParams> {
    let mut out = CcParams::new();
    if let Some(p) = f.table(key)? {
        for (k, v) in p.table {
            let x = match v {
                Value::Integer(i) => *i as f64,
                Value::Float(x) => *x,
                Value::Boolean(b) => f64::from(u8::from(*b)),
                Value::String(s) => {
                    out.set_name(k, s);
                    continue;
                }
                v => {
                    return Err(p.err(
                        k,
                        Some(v),
                        "parameters are numbers, booleans or names (strings)",
                    ))
                }
            };
            out.set(k, x);
        }
    }
    Ok(out)
}
