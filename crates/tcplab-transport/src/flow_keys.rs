//! A `[[flow]]` table as a transport reads it ([`FlowKeys`]), and the readers the
//! transports' key parsers share: named-parameter tables (`cc_params`, `coding`,
//! `params`), the check of a controller with its parameters, and the MTU bound.

use crate::cc::{self, BuildError, CcParams};
use crate::param_error::ParamError;
use std::ops::Deref;
use tcplab_core::{KeyError, Keys};
use toml::{Table, Value};

/// Largest MTU a flow accepts (jumbo frames).
pub const MAX_MTU: u32 = 9000;

/// A flow's MTU when it sets none: a 1500-byte Ethernet MTU.
pub const DEFAULT_MTU: u32 = 1500;

/// The largest packet a flow sends by its `mtu` key as written ([`DEFAULT_MTU`] without
/// one, or with a value the parser will refuse): the default of
/// [`Transport::largest_packet`](crate::Transport::largest_packet), and the rule for a
/// registered transport.
pub fn mtu_packet(table: &Table) -> u64 {
    match table.get("mtu") {
        Some(Value::Integer(i)) if *i > 0 => *i as u64,
        _ => u64::from(DEFAULT_MTU),
    }
}

/// A `[[flow]]` table given to [`Transport::parse`](crate::Transport::parse): its keys
/// (the getters of [`Keys`]; take the ones you use, the scenario parser reports the rest
/// as unknown) and what the scenario parser read around them.
pub struct FlowKeys<'a> {
    pub keys: &'a Keys<'a>,
    /// The flow's byte count (`bytes`; `None`: unlimited), read by the scenario parser.
    pub bytes: Option<u64>,
    /// The scenario's top-level `stack`, if it names one: the profile of a TCP flow
    /// that names none (`tcp/stack.rs`).
    pub stack: Option<&'a str>,
}

impl<'a> Deref for FlowKeys<'a> {
    type Target = Keys<'a>;

    fn deref(&self) -> &Keys<'a> {
        self.keys
    }
}

impl FlowKeys<'_> {
    /// Reads the `params` table with `from_params` (a transport configured through
    /// `params`, as [`Transport::from_params`](crate::Transport::from_params)); keys
    /// it leaves unused are refused, naming `owner`.
    pub fn params_spec<T>(
        &self,
        owner: &str,
        from_params: impl FnOnce(&mut CcParams, Option<u64>) -> Result<T, ParamError>,
    ) -> Result<T, KeyError> {
        let mut params = number_params(self, "params")?;
        let spec = from_params(&mut params, self.bytes).map_err(|e| self.param_error(&e))?;
        params
            .finish(&format!("transport '{owner}'"))
            .map_err(|why| self.err("params", self.table.get("params"), why))?;
        Ok(spec)
    }

    /// `e` against the key it blames: `params.<key>` for one of the transport's own keys.
    fn param_error(&self, e: &ParamError) -> KeyError {
        match e {
            ParamError::Invalid { key, why } => {
                let value = self.table.get("params").and_then(|p| p.get(*key));
                self.err(&format!("params.{key}"), value, why.clone())
            }
            other => self.err(other.key(), self.table.get(other.key()), other.to_string()),
        }
    }
}

/// Builds controller `name` with `params` once, so an unknown name is reported against
/// the flow's `cc` and a bad parameter against its `cc_params`, in this file.
pub fn check_controller(f: &Keys<'_>, name: &str, params: &CcParams) -> Result<(), KeyError> {
    match cc::build(name, params) {
        Ok(_) => Ok(()),
        Err(BuildError::Name(why)) => Err(f.err("cc", f.table.get("cc"), why)),
        Err(BuildError::Params(why)) => Err(f.err("cc_params", None, why)),
    }
}

/// A table of numbers or names (`cc_params`, `params`, `coding`) as named parameters; a
/// string selects a variant (`hystart = "classic"`).
pub fn number_params(f: &Keys<'_>, key: &str) -> Result<CcParams, KeyError> {
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
