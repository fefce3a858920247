//! Named numeric parameters for controllers, checked for typos.

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

/// Parameters given to a controller by name; each controller takes the ones it knows,
/// and anything left over is reported as unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcParams {
    items: Vec<(String, f64)>,
    taken: Vec<&'static str>,
}

impl CcParams {
    pub fn new() -> CcParams {
        CcParams::default()
    }

    pub fn with(mut self, name: &str, v: f64) -> Self {
        self.set(name, v);
        self
    }

    pub fn set(&mut self, name: &str, v: f64) {
        match self.items.iter_mut().find(|(n, _)| n == name) {
            Some(item) => item.1 = v,
            None => self.items.push((name.to_string(), v)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Takes `name`, or its default; the value must satisfy `ok` (described by `what`).
    pub fn take(
        &mut self,
        name: &'static str,
        default: f64,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, String> {
        self.taken.push(name);
        match self.items.iter().find(|(n, _)| n == name) {
            None => Ok(default),
            Some(&(_, v)) if v.is_finite() && ok(v) => Ok(v),
            Some(&(_, v)) => Err(format!("parameter '{name}' = {v}: must be {what}")),
        }
    }

    /// Errors on any parameter the controller (or transport) did not take; `owner` names
    /// it in the message, e.g. "congestion control 'cubic'".
    pub fn finish(&self, owner: &str) -> Result<(), String> {
        for (n, _) in &self.items {
            if !self.taken.iter().any(|t| t == n) {
                let known = if self.taken.is_empty() {
                    "none".to_string()
                } else {
                    self.taken.join(", ")
                };
                return Err(format!(
                    "unknown parameter '{n}' for {owner} (known: {known})"
                ));
            }
        }
        Ok(())
    }
}
