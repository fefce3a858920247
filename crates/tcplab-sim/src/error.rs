//! Why a simulation did not produce results (a scenario error is a [`ConfigError`]).

use std::fmt;
pub use tcplab_scenario::ConfigError;
use tcplab_transport::Violation;

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
