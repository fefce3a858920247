//! Tidy, columnar results: one row per flow, per link direction, per sample.
//!
//! Tables are built from what components publish through [`tcplab_core::Metrics`]: a
//! column appears the first time a component publishes into it, with nulls in the rows of
//! components that do not have it. The Python layer moves the column vectors into Arrow
//! arrays without copying. The scenario name, seed and replication are kept once in
//! [`RunInfo`] and broadcast to every row when tables are exported.

use crate::row_labels::{FLOW, KEY, T_S, VALUE};
use std::borrow::Cow;
use std::collections::HashMap;
use tcplab_core::{ColumnDef, Metrics, Value};

/// Identifies a run; stamped on every row of every table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    pub scenario: String,
    pub seed: u64,
    pub replication: u32,
    /// Simulated time at the end of the run, seconds.
    pub end_time_s: f64,
    /// Why the run ended: `"completed"` (every finite flow finished), `"duration"` (the
    /// scenario's duration elapsed) or `"max_time"` (the safety cap cut the run short:
    /// some flows did not finish).
    pub end_reason: &'static str,
    /// Events processed (including stale wake-ups skipped).
    pub events: u64,
    /// Packets delivered across one link direction (a packet crossing 3 links counts 3).
    pub packet_hops: u64,
    /// 1 when every sample was kept; n when the series budget (`series_rows`) thinned
    /// the series to every n-th sample (the simulator's `budget.rs`).
    pub series_stride: u64,
}

/// A column's values. Integers are unsigned 64-bit (counts, sizes, indices), floats are
/// SI quantities, text is dictionary-encoded (labels repeat).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Int(Vec<u64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    Text { codes: Vec<u32>, dict: Labels },
}

/// The distinct strings of a text column, each stored once.
#[derive(Clone, Debug)]
pub struct Labels {
    values: Vec<String>,
    index: HashMap<String, u32, std::hash::BuildHasherDefault<WordHash>>,
    /// The last code given and, per code, the other code that came after it last time:
    /// a column's text mostly repeats in sequence (every sample writes the links' names
    /// in the same order, each twice for its two directions), so the last code or the
    /// guess is checked by comparing bytes before a hash and a probe. A wrong guess just
    /// falls back to the index.
    follows: Vec<u32>,
    last: u32,
}

impl Default for Labels {
    fn default() -> Labels {
        Labels {
            values: Vec::new(),
            index: HashMap::default(),
            follows: Vec::new(),
            last: NONE,
        }
    }
}

impl PartialEq for Labels {
    fn eq(&self, o: &Self) -> bool {
        self.values == o.values
    }
}

impl Labels {
    pub fn values(&self) -> &[String] {
        &self.values
    }
    pub fn get(&self, code: usize) -> Option<&String> {
        self.values.get(code)
    }
    fn code(&mut self, s: &str) -> u32 {
        let is = |c: u32| self.values.get(c as usize).is_some_and(|v| v == s);
        let last = self.last;
        let c = if is(last) {
            return last; // a link's two directions: its name twice
        } else {
            match self.follows.get(last as usize) {
                Some(&g) if is(g) => g,
                _ => self.lookup(s),
            }
        };
        if let Some(f) = self.follows.get_mut(last as usize) {
            *f = c;
        }
        self.last = c;
        c
    }

    fn lookup(&mut self, s: &str) -> u32 {
        if let Some(&c) = self.index.get(s) {
            return c;
        }
        let c = self.values.len() as u32;
        self.values.push(s.to_string());
        self.index.insert(s.to_string(), c);
        self.follows.push(NONE);
        c
    }
}

/// No code (a label without a successor yet; before the first label).
const NONE: u32 = u32::MAX;

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::Int(v) => v.len(),
            Data::Float(v) => v.len(),
            Data::Bool(v) => v.len(),
            Data::Text { codes, .. } => codes.len(),
        }
    }

    fn for_value(v: &Value<'_>) -> Data {
        match v {
            Value::Int(_) => Data::Int(Vec::new()),
            Value::Float(_) => Data::Float(Vec::new()),
            Value::Bool(_) => Data::Bool(Vec::new()),
            Value::Text(_) => Data::Text {
                codes: Vec::new(),
                dict: Labels::default(),
            },
        }
    }

    /// Keeps the values whose `keep` entry is true (rows beyond `keep` are dropped).
    fn retain(&mut self, keep: &[bool]) {
        match self {
            Data::Int(v) => sieve(v, keep),
            Data::Float(v) => sieve(v, keep),
            Data::Bool(v) => sieve(v, keep),
            Data::Text { codes, .. } => sieve(codes, keep),
        }
    }

    /// Appends a placeholder (its row is marked null).
    fn push_null(&mut self) {
        match self {
            Data::Int(v) => v.push(0),
            Data::Float(v) => v.push(0.0),
            Data::Bool(v) => v.push(false),
            Data::Text { codes, .. } => codes.push(u32::MAX),
        }
    }

    /// Appends `v`; returns false if it is null or of another type (then a placeholder).
    fn push(&mut self, v: &Value<'_>) -> bool {
        let pushed = self.push_as(self.len(), v);
        if !pushed {
            self.push_null();
        }
        pushed
    }

    /// Appends `v` if it is row `row`'s value (the column holds `row` values), not null
    /// and of the column's type; otherwise changes nothing and returns false.
    #[inline(always)]
    fn push_as(&mut self, row: usize, v: &Value<'_>) -> bool {
        match (self, v) {
            (Data::Int(c), Value::Int(Some(x))) if c.len() == row => c.push(*x),
            (Data::Float(c), Value::Float(Some(x))) if c.len() == row => c.push(*x),
            (Data::Float(c), Value::Int(Some(x))) if c.len() == row => c.push(*x as f64),
            (Data::Bool(c), Value::Bool(x)) if c.len() == row => c.push(*x),
            (Data::Text { codes, dict }, Value::Text(s)) if codes.len() == row => {
                codes.push(dict.code(s))
            }
            _ => return false,
        }
        true
    }
}

/// One named column; `nulls[i]` marks row `i` as missing (the vector is empty while no
/// row is).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: Cow<'static, str>,
    pub data: Data,
    pub nulls: Vec<bool>,
}

impl Column {
    pub fn is_null(&self, i: usize) -> bool {
        self.nulls.get(i).copied().unwrap_or(false)
    }

    fn mark_null(&mut self, row: usize) {
        if self.nulls.len() < row + 1 {
            self.nulls.resize(row + 1, false);
        }
        self.nulls[row] = true;
    }

    /// Canonical digest of the values (see [`Results::column_digests`]).
    pub fn digest(&self) -> u64 {
        let mut h = Fnv::new();
        for i in 0..self.data.len() {
            self.fold(i, &mut h);
        }
        h.0
    }

    /// Folds row `i`'s canonical encoding into `h`.
    #[inline]
    fn fold(&self, i: usize, h: &mut Fnv) {
        if self.is_null(i) {
            h.write(&[0]);
            return;
        }
        match &self.data {
            Data::Int(v) => {
                h.write(&[1]);
                h.write(&v[i].to_le_bytes());
            }
            Data::Float(v) => {
                h.write(&[2]);
                h.write(&v[i].to_bits().to_le_bytes());
            }
            Data::Bool(v) => h.write(&[3, v[i] as u8]),
            Data::Text { codes, dict } => {
                let s = dict.values[codes[i] as usize].as_bytes();
                h.write(&[4]);
                h.write(&(s.len() as u64).to_le_bytes());
                h.write(s);
            }
        }
    }
}

/// Each column's [`Column::digest`], computed row by row across the columns: FNV-1a is
/// one chain of dependent multiplies per column, so interleaving columns lets the core
/// run several chains at once instead of waiting on one.
fn digests(columns: &[Column]) -> Vec<u64> {
    let mut h: Vec<Fnv> = columns.iter().map(|_| Fnv::new()).collect();
    let rows = columns.iter().map(|c| c.data.len()).max().unwrap_or(0);
    for i in 0..rows {
        for (c, h) in columns.iter().zip(&mut h) {
            if i < c.data.len() {
                c.fold(i, h);
            }
        }
    }
    h.into_iter().map(|h| h.0).collect()
}

/// A table of equally long columns, built row by row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    rows: usize,
    columns: Vec<Column>,
    /// Where the last `put` matched: components publish in the same order every row, so
    /// the next key is almost always the next column.
    cursor: usize,
    /// While set, rows only declare their columns (see [`Table::declaring`]).
    declaring: bool,
    /// Columns that have a value in the row being written: when all do, closing the row
    /// has no gaps to look for.
    filled: usize,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn into_columns(self) -> Vec<Column> {
        self.columns
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Integer column `name` (nulls read as 0); `None` if absent or not integers.
    pub fn ints(&self, name: &str) -> Option<&[u64]> {
        match &self.column(name)?.data {
            Data::Int(v) => Some(v),
            _ => None,
        }
    }

    /// Float column `name` (nulls read as 0.0).
    pub fn floats(&self, name: &str) -> Option<&[f64]> {
        match &self.column(name)?.data {
            Data::Float(v) => Some(v),
            _ => None,
        }
    }

    pub fn bools(&self, name: &str) -> Option<&[bool]> {
        match &self.column(name)?.data {
            Data::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// Float column `name` with its nulls.
    pub fn opt_floats(&self, name: &str) -> Option<Vec<Option<f64>>> {
        let c = self.column(name)?;
        let Data::Float(v) = &c.data else { return None };
        Some(
            v.iter()
                .enumerate()
                .map(|(i, x)| (!c.is_null(i)).then_some(*x))
                .collect(),
        )
    }

    /// Integer column `name` with its nulls.
    pub fn opt_ints(&self, name: &str) -> Option<Vec<Option<u64>>> {
        let c = self.column(name)?;
        let Data::Int(v) = &c.data else { return None };
        Some(
            v.iter()
                .enumerate()
                .map(|(i, x)| (!c.is_null(i)).then_some(*x))
                .collect(),
        )
    }

    /// Text column `name` (nulls read as "").
    pub fn texts(&self, name: &str) -> Option<Vec<&str>> {
        let c = self.column(name)?;
        let Data::Text { codes, dict } = &c.data else {
            return None;
        };
        Some(
            codes
                .iter()
                .map(|&k| dict.get(k as usize).map_or("", String::as_str))
                .collect(),
        )
    }

    /// While `on`, rows opened with [`Table::row`] add the columns they name (typed by
    /// the value, in order of first appearance, as a real row would) but store no value
    /// and count no row: how a table with no samples gets its schema without paying for
    /// rows it would drop (1000 flows: 4,002 link rows and 1,000 flow rows per run).
    pub fn declaring(&mut self, on: bool) {
        self.declaring = on;
    }

    /// Keeps the rows whose `keep` entry is true, in order (how a series is thinned).
    pub fn retain_rows(&mut self, keep: &[bool]) {
        for c in &mut self.columns {
            c.data.retain(keep);
            sieve(&mut c.nulls, keep);
        }
        self.rows = keep[..self.rows.min(keep.len())]
            .iter()
            .filter(|&&k| k)
            .count();
    }

    /// Opens a row; publish into the returned sink, then drop it to close the row.
    pub fn row(&mut self) -> Row<'_> {
        Row { t: self }
    }

    fn find(&mut self, key: &str) -> Option<usize> {
        // Names come from declarations (static), so usually the very same bytes: compare
        // the pointers before the contents. The cursor's column is the usual answer.
        let same = |c: &Column| {
            let name: &str = &c.name;
            std::ptr::eq(name, key) || name == key
        };
        let n = self.columns.len();
        let start = self.cursor.min(n);
        let i = match self.columns.get(start) {
            Some(c) if std::ptr::eq(&*c.name, key) => start,
            _ => (start..n)
                .chain(0..start)
                .find(|&i| same(&self.columns[i]))?,
        };
        self.cursor = if i + 1 == n { 0 } else { i + 1 };
        Some(i)
    }

    /// Publishes `v` under `key` in the open row. Inline, the usual case: the cursor is
    /// at `key`'s column, which takes `v` as this row's value.
    #[inline]
    fn put(&mut self, key: &'static str, v: &Value<'_>) {
        let (i, row) = (self.cursor, self.rows);
        if let Some(c) = self.columns.get_mut(i) {
            if std::ptr::eq(&*c.name, key) && !self.declaring && c.data.push_as(row, v) {
                self.cursor = if i + 1 == self.columns.len() {
                    0
                } else {
                    i + 1
                };
                self.filled += 1;
                return;
            }
        }
        self.put_any(key, v);
    }

    /// [`Table::put`] in every case: a new column, a null, a value of another type, a
    /// second value for the row, a declaration.
    #[inline(never)]
    fn put_any(&mut self, key: &'static str, v: &Value<'_>) {
        let row = self.rows;
        let i = match self.find(key) {
            Some(i) => i,
            None => {
                let mut c = Column {
                    name: Cow::Borrowed(key),
                    data: Data::for_value(v),
                    nulls: Vec::new(),
                };
                for r in 0..row {
                    c.data.push_null();
                    c.mark_null(r);
                }
                self.columns.push(c);
                self.cursor = 0;
                self.columns.len() - 1
            }
        };
        if self.declaring {
            return;
        }
        let c = &mut self.columns[i];
        if c.data.len() > row {
            return; // published twice in one row: the first value stands
        }
        if !c.data.push(v) {
            c.mark_null(row);
        }
        self.filled += 1;
    }

    fn close_row(&mut self) {
        if self.declaring {
            return;
        }
        let row = self.rows;
        if self.filled < self.columns.len() {
            for c in &mut self.columns {
                if c.data.len() <= row {
                    c.data.push_null();
                    c.mark_null(row);
                }
            }
        }
        self.filled = 0;
        self.rows += 1;
    }
}

/// The sink of one table row (see [`Table::row`]).
pub struct Row<'a> {
    t: &'a mut Table,
}

impl Row<'_> {
    /// A value under a column name read from another table (a driver copying rows
    /// between tables). Components publish through [`Metrics::put`], naming the
    /// column's declaration.
    pub fn put_named(&mut self, name: &'static str, v: Value<'_>) {
        self.t.put(name, &v);
    }
}

impl Metrics for Row<'_> {
    #[inline]
    fn put(&mut self, column: &'static ColumnDef, v: Value<'_>) {
        self.t.put(column.name, &v);
    }
}

impl Drop for Row<'_> {
    fn drop(&mut self) {
        self.t.close_row();
    }
}

/// Long-form records of variables only some components have: (t, flow, key, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub key: Vec<&'static str>,
    pub value: Vec<f64>,
}

impl Trace {
    /// Keeps the records whose `keep` entry is true, in order.
    pub fn retain(&mut self, keep: &[bool]) {
        sieve(&mut self.t_s, keep);
        sieve(&mut self.flow, keep);
        sieve(&mut self.key, keep);
        sieve(&mut self.value, keep);
    }

    fn as_table(&self) -> Table {
        let mut key = Data::Text {
            codes: Vec::with_capacity(self.key.len()),
            dict: Labels::default(),
        };
        for k in &self.key {
            key.push(&Value::Text(k));
        }
        let col = |c: &'static ColumnDef, data| Column {
            name: Cow::Borrowed(c.name),
            data,
            nulls: Vec::new(),
        };
        Table {
            rows: self.t_s.len(),
            columns: vec![
                col(&T_S, Data::Float(self.t_s.clone())),
                col(
                    &FLOW,
                    Data::Int(self.flow.iter().map(|&f| f as u64).collect()),
                ),
                col(&KEY, key),
                col(&VALUE, Data::Float(self.value.clone())),
            ],
            cursor: 0,
            declaring: false,
            filled: 0,
        }
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub info: RunInfo,
    /// One row per flow: common columns, then each transport's own.
    pub flows: Table,
    /// One row per link direction (or shared medium): final counters.
    pub links: Table,
    /// Per-flow samples: `t_s`, `flow`, then what the endpoints publish.
    pub flow_series: Table,
    /// Per-link-direction samples: `t_s`, `link`, `direction`, then the medium's values.
    pub link_series: Table,
    /// Controller-specific variables in long form.
    pub cc_trace: Trace,
}

impl Results {
    /// The tables by name, in export order, borrowed (`trace` is `cc_trace` as a table).
    fn named<'a>(&'a self, trace: &'a Table) -> [(&'static str, &'a Table); 5] {
        let t = [
            &self.flows,
            &self.links,
            &self.flow_series,
            &self.link_series,
            trace,
        ];
        std::array::from_fn(|i| (TABLE_NAMES[i], t[i]))
    }

    /// Consumes the results into named tables (no copies of the column vectors).
    pub fn into_tables(self) -> Vec<(&'static str, Table)> {
        let trace = self.cc_trace.as_table();
        let t = [
            self.flows,
            self.links,
            self.flow_series,
            self.link_series,
            trace,
        ];
        TABLE_NAMES.into_iter().zip(t).collect()
    }

    /// Digest of every column of every table, by (table, column): FNV-1a over a canonical
    /// encoding of logical values (integers as 64-bit little-endian, floats by their bits,
    /// text by its bytes, a tag per null). It depends on values only, not on Rust's
    /// formatting or the column order, so it is stable across versions and refactors.
    pub fn column_digests(&self) -> Vec<(&'static str, String, u64)> {
        // Borrowed, not cloned: the series tables can be most of a run's memory.
        let trace = self.cc_trace.as_table();
        let mut out = Vec::new();
        for (t, table) in self.named(&trace) {
            let d = digests(table.columns());
            for (c, d) in table.columns().iter().zip(d) {
                out.push((t, c.name.to_string(), d));
            }
        }
        out
    }

    /// One 64-bit digest of every table and the run info: same scenario and seed, same
    /// digest, on every machine.
    pub fn digest(&self) -> u64 {
        let mut h = Fnv::new();
        for (t, c, d) in self.column_digests() {
            h.write(t.as_bytes());
            h.write(c.as_bytes());
            h.write(&d.to_le_bytes());
        }
        let i = &self.info;
        h.write(i.scenario.as_bytes());
        for x in [i.seed, i.replication as u64, i.events, i.packet_hops] {
            h.write(&x.to_le_bytes());
        }
        h.write(&i.end_time_s.to_bits().to_le_bytes());
        h.write(i.end_reason.as_bytes());
        h.0
    }
}

/// The tables' names, in export order.
const TABLE_NAMES: [&str; 5] = ["flows", "links", "flow_series", "link_series", "cc_trace"];

/// Keeps `v[i]` where `keep[i]` is true (entries beyond `keep` are dropped), in order.
fn sieve<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep.get(i - 1).copied().unwrap_or(false)
    });
}

struct Fnv(u64);
impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

/// The labels' hash: their keys are the scenario's own names (flows, links) and the
/// components' fixed words, where SipHash's resistance to chosen keys buys nothing. It
/// takes eight bytes per step (FNV-1a took one, a chain of dependent multiplies per byte,
/// most of a text value's put when every sample writes a link's name). Codes are given in
/// order of first appearance, so the hash never shows in a result.
#[derive(Default)]
struct WordHash(u64);

impl std::hash::Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, b: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // Byte by byte: a `copy_from_slice` of a variable length is a `memcpy` call.
            let last = rest.iter().rev().fold(0u64, |w, &x| (w << 8) | x as u64);
            h = (h.rotate_left(5) ^ last).wrapping_mul(K);
        }
        // The length tells "a" from "a\0"; a str's hash also appends a 0xff byte.
        self.0 = (h.rotate_left(5) ^ b.len() as u64).wrapping_mul(K);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column of a table under test.
    fn col(name: &'static str) -> &'static ColumnDef {
        Box::leak(Box::new(ColumnDef::new(name, "", "a test column")))
    }

    #[test]
    fn a_label_is_known_by_its_bytes_not_by_the_guess() {
        let mut l = Labels::default();
        let names: Vec<String> = (0..500).map(|i| format!("link{i}")).collect();
        // In sequence twice (the second time every guess is right), then backwards
        // (every guess is wrong): the same codes each time.
        let first: Vec<u32> = names.iter().map(|n| l.code(n)).collect();
        let again: Vec<u32> = names.iter().map(|n| l.code(n)).collect();
        let back: Vec<u32> = names.iter().rev().map(|n| l.code(n)).collect();
        assert_eq!(first, (0..500).collect::<Vec<u32>>());
        assert_eq!(again, first);
        assert!(back.iter().eq(first.iter().rev()));
        // Each name twice in a row (a link's two directions), twice over.
        for _ in 0..2 {
            let twice: Vec<u32> = names.iter().flat_map(|n| [l.code(n), l.code(n)]).collect();
            assert!(twice.chunks(2).map(|p| p[0]).eq(first.iter().copied()));
            assert!(twice.chunks(2).all(|p| p[0] == p[1]));
        }
        // The guess after "link0" is "link1"; other text is not taken for it.
        l.code("link0");
        assert_eq!(l.code("other"), 500);
        l.code("link0");
        assert_eq!(l.code("link1"), 1);
        assert_eq!(l.values().len(), 501);
    }

    #[test]
    fn digests_across_columns_are_each_columns_digest() {
        let mut t = Table::default();
        for i in 0..50u64 {
            let mut r = t.row();
            r.put(col("i"), i.into());
            if i % 3 != 0 {
                r.put(col("f"), (i as f64 / 7.0).into());
            }
            r.put(col("b"), (i % 2 == 0).into());
            let s = format!("n{}", i % 5);
            r.put(col("s"), s.as_str().into());
            r.put(col("o"), Value::Int((i % 4 != 1).then_some(i * i)));
        }
        let want: Vec<u64> = t.columns().iter().map(Column::digest).collect();
        assert_eq!(want.len(), 5);
        assert_eq!(digests(t.columns()), want);
        // Every column hashes something of its own.
        let mut distinct = want.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5);
    }

    #[test]
    fn columns_appear_when_first_published_with_nulls_elsewhere() {
        let mut t = Table::default();
        {
            let mut r = t.row();
            r.put(col("a"), 1u64.into());
        }
        {
            let mut r = t.row();
            r.put(col("a"), 2u64.into());
            r.put(col("b"), 0.5.into());
            r.put(col("s"), "x".into());
        }
        {
            let mut r = t.row();
            r.put(col("s"), "y".into());
            r.put(col("a"), Value::Int(None));
        }
        assert_eq!(t.rows(), 3);
        assert_eq!(t.opt_ints("a").unwrap(), vec![Some(1), Some(2), None]);
        assert_eq!(t.opt_floats("b").unwrap(), vec![None, Some(0.5), None]);
        assert_eq!(t.texts("s").unwrap(), vec!["", "x", "y"]);
        assert!(t.column("s").unwrap().is_null(0));
    }

    /// `put` recognises a column by its declaration's address, and by its name when
    /// another declaration (or a name alone) publishes into it.
    #[test]
    fn a_column_is_one_column_whatever_names_it() {
        const A: ColumnDef = ColumnDef::new("a", "", "a test column");
        const B: ColumnDef = ColumnDef::new("b", "", "a test column");
        let mut t = Table::default();
        for i in 0..6u64 {
            let mut r = t.row();
            match i % 3 {
                0 => r.put(&A, i.into()),
                1 => r.put(col("a"), i.into()),
                _ => r.put_named("a", Value::Int(Some(i))),
            }
            r.put(&B, (10 * i).into());
        }
        let names: Vec<&str> = t.columns().iter().map(|c| &*c.name).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(t.ints("a").unwrap(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(t.ints("b").unwrap(), [0, 10, 20, 30, 40, 50]);
    }

    #[test]
    fn digest_depends_on_values_not_on_widths() {
        let mut a = Table::default();
        a.row().put(col("n"), 7u32.into());
        let mut b = Table::default();
        b.row().put(col("n"), 7u64.into());
        assert_eq!(a.columns()[0].digest(), b.columns()[0].digest());
        let mut c = Table::default();
        c.row().put(col("n"), Value::Int(None));
        assert_ne!(a.columns()[0].digest(), c.columns()[0].digest());
    }
}
