//! A TOML table being read: typed getters with unit parsing, the key and value to blame
//! when a value is refused ([`KeyError`]), and unknown-key detection.
//!
//! The scenario parser (tcplab-scenario) reads every table of a scenario with it, and
//! each transport reads its own `[[flow]]` keys with it in its folder (tcplab-transport),
//! so a refusal reads the same wherever the key is parsed: file, key, value and why.

use crate::units;
use crate::Dur;
use std::cell::RefCell;
use std::fmt;
use std::path::PathBuf;
use toml::{Table, Value};

/// Why a key of a table was refused: the file, the dotted key path (e.g.
/// `flow[0].cc`), the value as written, and what it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// `key = value` cannot be used; `why` says what it needs.
    Value {
        file: String,
        key: String,
        value: String,
        why: String,
    },
    /// `key` as a whole is refused (a required key that is absent, or a table whose
    /// contents are refused together); there is no one value to show.
    Key {
        file: String,
        key: String,
        why: String,
    },
    /// `key` is not understood in its table; `known` lists the keys that are.
    Unknown {
        file: String,
        key: String,
        value: String,
        known: Vec<String>,
    },
}

impl KeyError {
    /// The file (or other source label) the table came from.
    pub fn file(&self) -> &str {
        match self {
            KeyError::Value { file, .. }
            | KeyError::Key { file, .. }
            | KeyError::Unknown { file, .. } => file,
        }
    }

    /// The dotted key path to blame.
    pub fn key(&self) -> &str {
        match self {
            KeyError::Value { key, .. }
            | KeyError::Key { key, .. }
            | KeyError::Unknown { key, .. } => key,
        }
    }

    /// The value as written ("" when there is none to show).
    pub fn value(&self) -> &str {
        match self {
            KeyError::Value { value, .. } | KeyError::Unknown { value, .. } => value,
            KeyError::Key { .. } => "",
        }
    }

    /// What the key needs.
    pub fn why(&self) -> String {
        match self {
            KeyError::Value { why, .. } | KeyError::Key { why, .. } => why.clone(),
            KeyError::Unknown { known, .. } => {
                format!("unknown key (known here: {})", known.join(", "))
            }
        }
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.key(), self.value()) {
            ("", _) => write!(f, "{}: {}", self.file(), self.why()),
            (key, "") => write!(f, "{}: {key}: {}", self.file(), self.why()),
            (key, value) => write!(f, "{}: {key} = {value}: {}", self.file(), self.why()),
        }
    }
}

impl std::error::Error for KeyError {}

/// A table being read: remembers which keys were used so leftovers are reported.
pub struct Keys<'a> {
    /// The file (or other source label) the table came from.
    pub file: &'a str,
    /// The table's dotted path in the file (`""` for the top level).
    pub path: String,
    pub table: &'a Table,
    /// Keys asked for so far (by any getter, whether present or not).
    pub used: RefCell<Vec<String>>,
}

/// A value as an error message shows it.
pub fn show(v: &Value) -> String {
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

impl<'a> Keys<'a> {
    pub fn new(file: &'a str, path: String, table: &'a Table) -> Self {
        Keys {
            file,
            path,
            table,
            used: RefCell::new(Vec::new()),
        }
    }

    pub fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    /// Key `k` of this table refused, with the value `v` shown when there is one.
    pub fn err(&self, k: &str, v: Option<&Value>, why: impl Into<String>) -> KeyError {
        let (file, key, why) = (self.file.to_string(), self.key(k), why.into());
        match v {
            Some(v) => KeyError::Value {
                file,
                key,
                value: show(v),
                why,
            },
            None => KeyError::Key { file, key, why },
        }
    }

    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.used.borrow_mut().push(k.to_string());
        self.table.get(k)
    }

    /// A string-with-units value converted by `f`.
    pub fn unit<T>(
        &self,
        k: &str,
        f: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, KeyError> {
        match self.get(k) {
            None => Ok(None),
            Some(v @ Value::String(s)) => f(s).map(Some).map_err(|why| self.err(k, Some(v), why)),
            Some(v @ (Value::Integer(_) | Value::Float(_))) => f(&v.to_string())
                .map(Some)
                .map_err(|why| self.err(k, Some(v), why)),
            Some(v) => Err(self.err(k, Some(v), "expected a string with a unit, e.g. \"10ms\"")),
        }
    }

    pub fn duration(&self, k: &str) -> Result<Option<Dur>, KeyError> {
        self.unit(k, units::parse_duration)
    }

    /// A duration that must be > 0 (a zero one would stop or stall the run).
    pub fn positive_duration(&self, k: &str) -> Result<Option<Dur>, KeyError> {
        match self.duration(k)? {
            Some(Dur::ZERO) => Err(self.err(k, self.table.get(k), "must be > 0")),
            d => Ok(d),
        }
    }

    pub fn rate(&self, k: &str) -> Result<Option<u64>, KeyError> {
        self.unit(k, units::parse_rate)
    }

    pub fn bytes(&self, k: &str) -> Result<Option<u64>, KeyError> {
        self.unit(k, units::parse_bytes)
    }

    pub fn probability(&self, k: &str) -> Result<Option<f64>, KeyError> {
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

    pub fn string(&self, k: &str) -> Result<Option<&'a str>, KeyError> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(k, Some(v), "expected a string")),
        }
    }

    /// A string naming one of a key's choices, read by `parse`; a name it does not know is
    /// refused with `why` (which lists the choices).
    pub fn choice<T>(
        &self,
        k: &str,
        parse: impl FnOnce(&str) -> Option<T>,
        why: &str,
    ) -> Result<Option<T>, KeyError> {
        match self.string(k)? {
            None => Ok(None),
            Some(s) => parse(s)
                .map(Some)
                .ok_or_else(|| self.err(k, self.get(k), why)),
        }
    }

    /// A name that prefixes output file names: no path separators, no control characters,
    /// not "." or "..", at most 200 bytes.
    pub fn label(&self, k: &str) -> Result<Option<&'a str>, KeyError> {
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

    pub fn boolean(&self, k: &str) -> Result<Option<bool>, KeyError> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.err(k, Some(v), "expected true or false")),
        }
    }

    pub fn uint(&self, k: &str, min: u64, max: u64) -> Result<Option<u64>, KeyError> {
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

    /// Table `k` inside this one, read with its own keys (same file).
    pub fn table(&self, k: &str) -> Result<Option<Keys<'a>>, KeyError> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Keys::new(self.file, self.key(k), t))),
            Some(v) => Err(self.err(k, Some(v), "expected a table")),
        }
    }

    /// The tables of `k` (an array of tables, or one table), each with its dotted path.
    pub fn tables(&self, k: &str) -> Result<Vec<(String, &'a Table)>, KeyError> {
        match self.get(k) {
            None => Ok(vec![]),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Table(t) => Ok((format!("{}[{i}]", self.key(k)), t)),
                    v => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
                })
                .collect(),
            Some(Value::Table(t)) => Ok(vec![(self.key(k), t)]),
            Some(v) => Err(self.err(k, Some(v), "expected an array of tables ([[...]])")),
        }
    }

    /// The file that key `k` names (`rel`, relative to this table's file), refused unless
    /// it is a regular file or absent (the reader says then): opening a FIFO or a device
    /// would block until something writes to it.
    pub fn file_path(&self, k: &str, rel: &str) -> Result<PathBuf, KeyError> {
        let p = std::path::Path::new(rel);
        let path = if p.is_relative() {
            std::path::Path::new(self.file)
                .parent()
                .map_or_else(|| p.to_path_buf(), |d| d.join(p))
        } else {
            p.to_path_buf()
        };
        match std::fs::metadata(&path) {
            Ok(m) if !m.is_file() => Err(self.err(
                k,
                self.table.get(k),
                format!("{}: not a regular file (a trace is a file)", path.display()),
            )),
            _ => Ok(path),
        }
    }

    /// Rejects keys nobody asked for, listing the ones that are understood here.
    pub fn finish(&self) -> Result<(), KeyError> {
        let used = self.used.borrow();
        for (k, v) in self.table {
            if !used.iter().any(|u| u == k) {
                let mut known: Vec<String> = used.clone();
                known.sort_unstable();
                known.dedup();
                return Err(KeyError::Unknown {
                    file: self.file.to_string(),
                    key: self.key(k),
                    value: show(v),
                    known,
                });
            }
        }
        Ok(())
    }
}
