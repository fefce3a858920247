//! A scenario table being read: [`Keys`] (typed getters, unit parsing, unknown-key
//! detection; tcplab-core) with the scenario-wide facts its tables share.

use super::R;
use crate::error::ConfigError;
use std::ops::Deref;
use tcplab_core::Keys;
use toml::{Table, Value};

/// A flow's packet size when it sets none: a 1500-byte Ethernet MTU.
pub(super) const DEFAULT_PACKET: u64 = 1500;

/// A table being read, with the facts of the scenario it is part of. Its getters are
/// those of [`Keys`]; their errors become [`ConfigError`]s through `?`.
pub(super) struct Section<'a> {
    keys: Keys<'a>,
    /// The largest packet a flow of the scenario sends, in bytes (see
    /// `link::largest_packet`): a queue limit in bytes must hold one.
    pub(super) packet: u64,
    /// The scenario's top-level `stack`: the profile of a TCP flow that names none.
    pub(super) stack: Option<&'a str>,
}

impl<'a> Deref for Section<'a> {
    type Target = Keys<'a>;

    fn deref(&self) -> &Keys<'a> {
        &self.keys
    }
}

impl<'a> Section<'a> {
    pub(super) fn new(file: &'a str, path: String, table: &'a Table) -> Self {
        Section {
            keys: Keys::new(file, path, table),
            packet: DEFAULT_PACKET,
            stack: None,
        }
    }

    /// A table inside this one: same file and scenario-wide facts, its own keys.
    fn child(&self, path: String, table: &'a Table) -> Section<'a> {
        Section {
            keys: Keys::new(self.file, path, table),
            ..*self
        }
    }

    pub(super) fn err(&self, k: &str, v: Option<&Value>, why: impl Into<String>) -> ConfigError {
        self.keys.err(k, v, why).into()
    }

    pub(super) fn table(&self, k: &str) -> R<Option<Section<'a>>> {
        let Some(t) = self.keys.table(k)? else {
            return Ok(None);
        };
        Ok(Some(self.child(t.path, t.table)))
    }

    pub(super) fn tables(&self, k: &str) -> R<Vec<Section<'a>>> {
        Ok(self
            .keys
            .tables(k)?
            .into_iter()
            .map(|(path, t)| self.child(path, t))
            .collect())
    }

    /// Rejects keys nobody asked for, listing the ones that are understood here.
    pub(super) fn finish(&self) -> R<()> {
        Ok(self.keys.finish()?)
    }
}
