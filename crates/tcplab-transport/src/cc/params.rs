//! Named parameters for controllers (numbers, or names for choices), checked for typos.

/// `Default` for a controller = `from_params` with no parameters: its documented defaults.
macro_rules! default_from_params {
    ($t:ty) => {
        impl Default for $t {
            fn default() -> Self {
                <$t>::from_params(&mut $crate::cc::CcParams::new()).expect("defaults are valid")
            }
        }
    };
}
pub(crate) use default_from_params;

/// One parameter value: a number, or a name that selects a variant (`hystart = "classic"`).
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Number(f64),
    Name(String),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Number(v) => write!(f, "{v}"),
            ParamValue::Name(s) => write!(f, "\"{s}\""),
        }
    }
}

/// Parameters given to a controller by name; each controller takes the ones it knows,
/// and anything left over is reported as unknown.
///
/// Besides explicit parameters it holds *soft defaults* (e.g. from a stack profile):
/// a controller that takes the name uses them unless the parameter was given explicitly,
/// and one that does not take the name ignores them instead of reporting it unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcParams {
    items: Vec<(String, ParamValue)>,
    soft: Vec<(String, ParamValue)>,
    taken: Vec<&'static str>,
}

fn put(list: &mut Vec<(String, ParamValue)>, name: &str, v: ParamValue) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(item) => item.1 = v,
        None => list.push((name.to_string(), v)),
    }
}

impl CcParams {
    pub fn new() -> CcParams {
        CcParams::default()
    }

    pub fn with(mut self, name: &str, v: f64) -> Self {
        self.set(name, v);
        self
    }

    /// Builder form of [`set_name`](Self::set_name).
    pub fn with_name(mut self, name: &str, v: &str) -> Self {
        self.set_name(name, v);
        self
    }

    pub fn set(&mut self, name: &str, v: f64) {
        put(&mut self.items, name, ParamValue::Number(v));
    }

    /// Sets a named choice, e.g. `set_name("hystart", "classic")`.
    pub fn set_name(&mut self, name: &str, v: &str) {
        put(&mut self.items, name, ParamValue::Name(v.to_string()));
    }

    /// A soft default: used by a controller that takes `name` unless the parameter is set
    /// explicitly; ignored by controllers that do not take it (see the type docs).
    pub fn set_soft(&mut self, name: &str, v: ParamValue) {
        put(&mut self.soft, name, v);
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The value for `name`: explicit, else soft default, else none.
    fn lookup(&mut self, name: &'static str) -> Option<&ParamValue> {
        self.taken.push(name);
        self.items
            .iter()
            .chain(self.soft.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Takes `name`, or its default; the value must satisfy `ok` (described by `what`).
    pub fn take(
        &mut self,
        name: &'static str,
        default: f64,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, String> {
        match self.lookup(name) {
            None => Ok(default),
            Some(&ParamValue::Number(v)) if v.is_finite() && ok(v) => Ok(v),
            Some(v) => Err(format!("parameter '{name}' = {v}: must be {what}")),
        }
    }

    /// Takes a named choice: one of `choices`, or `default`. A number `n` is accepted as
    /// `numeric[n]` (so `hystart = 1`, written before the choice had names, keeps working).
    pub fn take_choice(
        &mut self,
        name: &'static str,
        default: &'static str,
        choices: &[&'static str],
        numeric: &[&'static str],
    ) -> Result<&'static str, String> {
        let found = match self.lookup(name) {
            None => return Ok(default),
            Some(ParamValue::Name(s)) => choices.iter().find(|c| **c == s.as_str()).copied(),
            Some(&ParamValue::Number(v)) => (v >= 0.0 && v.fract() == 0.0)
                .then(|| numeric.get(v as usize).copied())
                .flatten(),
        };
        found.ok_or_else(|| {
            let v = self.lookup(name).expect("present").clone();
            let list: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
            format!(
                "parameter '{name}' = {v}: must be one of {}",
                list.join(", ")
            )
        })
    }

    /// Errors on any parameter the controller (or transport) did not take; `owner` names
    /// it in the message, e.g. "congestion control 'cubic'". Soft defaults are exempt.
    pub fn finish(&self, owner: &str) -> Result<(), String> {
        for (n, _) in &self.items {
            if !self.taken.iter().any(|t| t == n) {
                let known = if self.taken.is_empty() {
                    "none".to_string()
                } else {
                    let mut k: Vec<&str> = Vec::new();
                    for t in &self.taken {
                        if !k.contains(t) {
                            k.push(t);
                        }
                    }
                    k.join(", ")
                };
                return Err(format!(
                    "unknown parameter '{n}' for {owner} (known: {known})"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_take_names_and_legacy_numbers() {
        let ch = ["off", "hystartpp", "classic"];
        let num = ["off", "hystartpp"];
        let mut p = CcParams::new().with_name("hystart", "classic");
        assert_eq!(p.take_choice("hystart", "off", &ch, &num), Ok("classic"));
        let mut p = CcParams::new().with("hystart", 1.0);
        assert_eq!(p.take_choice("hystart", "off", &ch, &num), Ok("hystartpp"));
        let mut p = CcParams::new();
        assert_eq!(p.take_choice("hystart", "off", &ch, &num), Ok("off"));
        let mut p = CcParams::new().with("hystart", 2.0);
        let e = p.take_choice("hystart", "off", &ch, &num).unwrap_err();
        assert!(
            e.contains("'hystart' = 2") && e.contains("\"classic\""),
            "{e}"
        );
        let mut p = CcParams::new().with_name("hystart", "clasic");
        let e = p.take_choice("hystart", "off", &ch, &num).unwrap_err();
        assert!(e.contains("\"clasic\""), "{e}");
        let mut p = CcParams::new().with_name("beta", "big");
        let e = p.take("beta", 0.7, |_| true, "a number").unwrap_err();
        assert!(e.contains("'beta' = \"big\": must be a number"), "{e}");
    }

    #[test]
    fn soft_defaults_yield_to_explicit_values_and_are_never_unknown() {
        let mut p = CcParams::new().with("abc_limit", 3.0);
        p.set_soft("abc_limit", ParamValue::Number(1.0));
        p.set_soft("ca_growth", ParamValue::Name("per-ack".into()));
        p.set_soft("hystart", ParamValue::Name("classic".into()));
        assert_eq!(p.take("abc_limit", 2.0, |_| true, ""), Ok(3.0));
        assert_eq!(
            p.take_choice("ca_growth", "abc", &["abc", "per-ack"], &[]),
            Ok("per-ack")
        );
        p.finish("newreno")
            .expect("an untaken soft default is not an error");
        let q = CcParams::new().with("hystart", 1.0);
        assert!(q.finish("newreno").unwrap_err().contains("'hystart'"));
    }
}
