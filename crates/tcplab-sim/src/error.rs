//! Errors a user can act on: which file, which key, which value, and why.

use std::fmt;
use tcplab_transport::Violation;

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

/// Why a simulation did not produce results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    Config(ConfigError),
    /// A transport invariant broke: the run is wrong, not merely slow.
    Invariant {
        scenario: String,
        seed: u64,
        at: String,
        violation: Violation,
    },
    /// The driver asked the run to stop (Ctrl-C, a time limit).
    Interrupted {
        scenario: String,
        at: String,
    },
    /// Simulated time stopped advancing: an endpoint or medium keeps asking to be woken at
    /// the same instant (e.g. zero-length timers).
    Stalled {
        scenario: String,
        at: String,
        events: u64,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => e.fmt(f),
            SimError::Invariant {
                scenario,
                seed,
                at,
                violation,
            } => write!(
                f,
                "invariant violated in scenario '{scenario}' (seed {seed}) at t={at}: {violation}"
            ),
            SimError::Interrupted { scenario, at } => {
                write!(f, "scenario '{scenario}' interrupted at t={at}")
            }
            SimError::Stalled {
                scenario,
                at,
                events,
            } => write!(
                f,
                "scenario '{scenario}': simulated time stopped advancing at t={at} \
                 ({events} events at that instant); a timer of zero length is the usual cause"
            ),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}
