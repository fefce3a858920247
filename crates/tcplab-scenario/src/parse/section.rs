//! A TOML table being read: typed getters with unit parsing, and unknown-key detection.

use super::R;
use crate::error::ConfigError;
use std::cell::RefCell;
use tcplab_core::units;
use tcplab_core::Dur;
use toml::{Table, Value};

/// Largest MTU accepted (jumbo frames).
pub(super) const MAX_MTU: u32 = 9000;

/// A flow's packet size when it sets none: a 1500-byte Ethernet MTU.
pub(super) const DEFAULT_PACKET: u64 = 1500;

/// A table being read: remembers which keys were used so leftovers are reported.
pub(super) struct Section<'a> {
    pub(super) file: &'a str,
    pub(super) path: String,
    pub(super) table: &'a Table,
    pub(super) used: RefCell<Vec<String>>,
    /// The largest packet a flow of the scenario sends, in bytes (see
    /// `link::largest_packet`): a queue limit in bytes must hold one.
    pub(super) packet: u64,
}

pub(super) fn show(v: &Value) -> String {
    match v {
        // Control characters escaped, so an error stays one printable line.
        Value::String(s) => format!(
            "\"{}\"",
            s.chars()
                .map(|c| if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                })
                .collect::<String>()
        ),
        other => other.to_string(),
    }
}

impl<'a> Section<'a> {
    pub(super) fn new(file: &'a str, path: String, table: &'a Table) -> Self {
        Section {
            file,
            path,
            table,
            used: RefCell::new(Vec::new()),
            packet: DEFAULT_PACKET,
        }
    }

    /// A table inside this one: same file and scenario-wide facts, its own keys.
    fn child(&self, path: String, table: &'a Table) -> Section<'a> {
        Section {
            packet: self.packet,
            ..Section::new(self.file, path, table)
        }
    }

    pub(super) fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    pub(super) fn err(&self, k: &str, v: Option<&Value>, why: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            key: self.key(k),
            value: v.map(show).unwrap_or_default(),
            why: why.into(),
        }
    }

    pub(super) fn get(&self, k: &str) -> Option<&'a Value> {
        self.used.borrow_mut().push(k.to_string());
        self.table.get(k)
    }

    /// A string-with-units value converted by `f`.
    pub(super) fn unit<T>(&self, k: &str, f: impl Fn(&str) -> Result<T, String>) -> R<Option<T>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::String(s)) => f(s).map(Some).map_err(|why| self.err(k, Some(v), why)),
            Some(v @ (Value::Integer(_) | Value::Float(_))) => f(&v.to_string())
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v) => Err(self.err(k, Some(v), "expected a string with a unit, e.g. \"10ms\"")),
        }
    }

    pub(super) fn duration(&self, k: &str) -> R<Option<Dur>> {
        self.unit(k, units::parse_duration)
    }

    /// A duration that must be > 0 (a zero one would stop or stall the run).
    pub(super) fn positive_duration(&self, k: &str) -> R<Option<Dur>> {
        match self.duration(k)? {
            Some(Dur::ZERO) => Err(self.err(k, self.table.get(k), "must be > 0")),
            d => Ok(d),
        }
    }

    pub(super) fn rate(&self, k: &str) -> R<Option<u64>> {
        self.unit(k, units::parse_rate)
    }

    pub(super) fn bytes(&self, k: &str) -> R<Option<u64>> {
        self.unit(k, units::parse_bytes)
    }

    pub(super) fn probability(&self, k: &str) -> R<Option<f64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::String(s)) => units::parse_probability(s)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v @ Value::Float(f)) => units::check_probability(*f)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v @ Value::Integer(i)) => units::check_probability(*i as f64)
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v) => Err(self.err(
                k,
                Some(v),
                "expected a probability such as \"0.5%\" or 0.005",
            )),
        }
    }

    pub(super) fn string(&self, k: &str) -> R<Option<&'a str>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(k, Some(v), "expected a string")),
        }
    }

    /// A name that prefixes output file names: no path separators, no control characters,
    /// not "." or "..", at most 200 bytes.
    pub(super) fn label(&self, k: &str) -> R<Option<&'a str>> {
        let Some(n) = self.string(k)? else {
            return Ok(None);
        };
        let why = if n.is_empty() || n == "." || n == ".." {
            Some("must be a name, not empty, \".\" or \"..\"")
        } else if n.contains(['/', '\\']) {
            Some("must not contain '/' or '\\'")
        } else if n.chars().any(char::is_control) {
            Some("must not contain control characters (NUL, tab, newline, ...)")
        } else if n.len() > 200 {
            Some("must be at most 200 bytes long")
        } else {
            None
        };
        match why {
            Some(why) => Err(self.err(
                k,
                self.table.get(k),
                format!("{why}: it prefixes output file names"),
            )),
            None => Ok(Some(n)),
        }
    }

    pub(super) fn boolean(&self, k: &str) -> R<Option<bool>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.err(k, Some(v), "expected true or false")),
        }
    }

    pub(super) fn uint(&self, k: &str, min: u64, max: u64) -> R<Option<u64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::Integer(i)) => {
                if *i < min as i64 || (*i as u64) > max {
                    Err(self.err(k, Some(v), format!("must be between {min} and {max}")))
                } else {
                    Ok(Some(*i as u64))
                }
            }
            Some(v) => Err(self.err(k, Some(v), "expected a whole number")),
        }
    }

    pub(super) fn table(&self, k: &str) -> R<Option<Section<'a>>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(self.child(self.key(k), t))),
            Some(v) => Err(self.err(k, Some(v), "expected a table")),
        }
    }

    pub(super) fn tables(&self, k: &str) -> R<Vec<Section<'a>>> {
        match self.get(k) {
            None => Ok(vec![]),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => Ok(self.child(format!("{}[{i}]", self.key(k)), t)),
                    v => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
                })
                .collect(),
            Some(Value::Table(t)) => Ok(vec![self.child(self.key(k), t)]),
            Some(v) => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
        }
    }

    /// Rejects keys nobody asked for, listing the ones that are understood here.
    pub(super) fn finish(&self) -> R<()> {
        let used = self.used.borrow();
        for (k, v) in self.table {
            if !used.iter().any(|u| u == k) {
                let mut known: Vec<&str> = used.iter().map(|s| s.as_str()).collect();
                known.sort_unstable();
                known.dedup();
                return Err(self.err(
                    k,
                    Some(v),
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}
