//! Errors a user can act on: which file, which key, which value, and why.

use std::fmt;

/// A scenario that cannot be run as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// File (or other source label) the scenario came from.
    pub file: String,
    /// Dotted key path, e.g. `flow[0].cc`.
    pub key: String,
    /// The offending value as written ("" when the key is missing).
    pub value: String,
    pub why: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.why)
        } else if self.value.is_empty() {
            write!(f, "{}: {}: {}", self.file, self.key, self.why)
        } else {
            write!(
                f,
                "{}: {} = {}: {}",
                self.file, self.key, self.value, self.why
            )
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<tcplab_core::KeyError> for ConfigError {
    fn from(e: tcplab_core::KeyError) -> ConfigError {
        ConfigError {
            file: e.file().to_string(),
            key: e.key().to_string(),
            value: e.value().to_string(),
            why: e.why(),
        }
    }
}
