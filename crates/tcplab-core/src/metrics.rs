//! The one route by which components publish what they measure.
//!
//! Endpoints and link models never build result tables themselves: they publish values
//! into a [`Metrics`] sink, each under its column's declaration ([`ColumnDef`], beside the
//! publishing code), and the driver (the simulator, a real-network driver) turns them into
//! rows. A new transport therefore gets its time series and its row in the flows table
//! without any change to the results code.

use crate::ColumnDef;

/// One published value. Text must be `'static` or short-lived: sinks intern it, so a
/// repeated label (a controller state) costs no allocation after its first appearance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// A count or size; `None` when undefined (a null in the table).
    Int(Option<u64>),
    /// A measurement in SI units (seconds, bit/s, ...); `None` when undefined.
    Float(Option<f64>),
    Bool(bool),
    /// A label, such as a state name.
    Text(&'a str),
}

impl From<u64> for Value<'_> {
    fn from(v: u64) -> Self {
        Value::Int(Some(v))
    }
}
impl From<u32> for Value<'_> {
    fn from(v: u32) -> Self {
        Value::Int(Some(v as u64))
    }
}
impl From<Option<u64>> for Value<'_> {
    fn from(v: Option<u64>) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Float(Some(v))
    }
}
impl From<Option<f64>> for Value<'_> {
    fn from(v: Option<f64>) -> Self {
        Value::Float(v)
    }
}
impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(v)
    }
}

/// Where a component publishes its values.
///
/// `put` fills one column of the current row (a time-series sample, or a component's
/// summary row): the column is named by its declaration, a `const` (`out.put(&CWND,
/// v.into())`), so its name is written once, where it is declared. The reference is
/// `'static`, so a table can recognise the column by its address. `trace` adds a long-form (key, value)
/// record for variables that only some components have, such as a congestion
/// controller's internals.
///
/// A name alone is not a column, so a publishing site cannot write one:
///
/// ```compile_fail
/// use tcplab_core::{metrics::Collected, Metrics};
/// Collected::default().put("cwnd", 10u64.into());
/// ```
///
/// ```
/// use tcplab_core::{metrics::Collected, ColumnDef, Metrics};
/// const CWND: ColumnDef = ColumnDef::new("cwnd", "B", "congestion window").at_least(0.0);
/// let mut out = Collected::default();
/// out.put(&CWND, 10u64.into());
/// assert_eq!(out.get("cwnd"), Some("10"));
/// ```
pub trait Metrics {
    fn put(&mut self, column: &'static ColumnDef, value: Value<'_>);
    fn trace(&mut self, _key: &'static str, _value: f64) {}
}

/// A sink that keeps what it is given, in order; for tests and small tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collected {
    pub values: Vec<(&'static str, String)>,
    pub traces: Vec<(&'static str, f64)>,
}

impl Collected {
    /// The last value published under `key`, rendered as text.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl Metrics for Collected {
    fn put(&mut self, column: &'static ColumnDef, value: Value<'_>) {
        let s = match value {
            Value::Int(Some(v)) => v.to_string(),
            Value::Float(Some(v)) => v.to_string(),
            Value::Int(None) | Value::Float(None) => "null".to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Text(t) => t.to_string(),
        };
        self.values.push((column.name, s));
    }
    fn trace(&mut self, key: &'static str, value: f64) {
        self.traces.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collected_keeps_the_latest_value() {
        const CWND: ColumnDef = ColumnDef::new("cwnd", "B", "a window");
        const SRTT: ColumnDef = ColumnDef::new("srtt_s", "s", "a time");
        let mut c = Collected::default();
        c.put(&CWND, 10u64.into());
        c.put(&SRTT, Value::Float(None));
        c.put(&CWND, 12u64.into());
        c.trace("wave.txtime", 0.5);
        assert_eq!(c.get("cwnd"), Some("12"));
        assert_eq!(c.get("srtt_s"), Some("null"));
        assert_eq!(c.get("nope"), None);
        assert_eq!(c.traces, vec![("wave.txtime", 0.5)]);
    }
}
