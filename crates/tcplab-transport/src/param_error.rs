//! Why a transport refused its settings, by the key to blame.

use std::fmt;

/// Why a transport's settings were refused; the scenario parser adds the file and the
/// flow, and blames `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// `key` has a value the transport cannot use (`why` says what it needs).
    Invalid { key: &'static str, why: String },
    /// The flow's byte count does not suit the transport (the `bytes` key).
    Bytes(String),
    /// The transport reads its settings with a [`Transport::parse`](crate::Transport::parse)
    /// of its own, not through `params`.
    NoParamsParser(&'static str),
}

impl ParamError {
    /// The flow key to blame (`params` holds the transport's own keys).
    pub fn key(&self) -> &'static str {
        match self {
            ParamError::Invalid { .. } | ParamError::NoParamsParser(_) => "params",
            ParamError::Bytes(_) => "bytes",
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Invalid { key, why } => write!(f, "{key}: {why}"),
            ParamError::Bytes(why) => f.write_str(why),
            ParamError::NoParamsParser(name) => {
                write!(f, "transport '{name}' is not configured through `params`")
            }
        }
    }
}

impl std::error::Error for ParamError {}
