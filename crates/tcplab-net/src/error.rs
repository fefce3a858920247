//! Errors of the real-network drivers, each saying what failed and what to do about it.

use std::fmt;
use std::io;
use tcplab_scenario::ConfigError;

#[derive(Debug)]
pub enum NetError {
    /// The scenario cannot be run by this driver (file, key, value, why).
    Config(ConfigError),
    /// Namespaces and TUN devices need root (or CAP_NET_ADMIN).
    NotRoot { what: &'static str },
    /// `/dev/net/tun` is missing (no tun module, or a container without the device).
    NoTun,
    /// A system call or socket operation failed; `context` says which.
    Io { context: String, source: io::Error },
    /// The command to run under emulation could not be started.
    Command { command: String, source: io::Error },
    /// A peer or a transfer broke the protocol (e.g. bytes delivered != bytes sent).
    Protocol(String),
    /// Stopped by its stop flag (Ctrl-C) before there was anything to report.
    Interrupted,
}

impl NetError {
    pub fn io(context: impl Into<String>, source: io::Error) -> NetError {
        NetError::Io {
            context: context.into(),
            source,
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Config(c) => write!(f, "{c}"),
            NetError::NotRoot { what } => write!(
                f,
                "{what} needs root (network namespaces and /dev/net/tun): run it as root or \
                 with CAP_NET_ADMIN"
            ),
            NetError::NoTun => write!(
                f,
                "/dev/net/tun is missing: load the tun module (modprobe tun) or give the \
                 container the device"
            ),
            NetError::Io { context, source } => write!(f, "{context}: {source}"),
            NetError::Command { command, source } => {
                write!(f, "cannot start the command {command:?}: {source}")
            }
            NetError::Protocol(m) => write!(f, "{m}"),
            NetError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for NetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NetError::Io { source, .. } | NetError::Command { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<ConfigError> for NetError {
    fn from(c: ConfigError) -> NetError {
        NetError::Config(c)
    }
}
