//! A results column's definition: its name, unit, meaning and valid range, declared
//! beside the code that publishes it. This is the one source of the tables' reference
//! (Python's `tcplab.columns` reads it through the binding; docs/results.md and the
//! Parquet field metadata come from there).

/// One column of a results table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColumnDef {
    pub name: &'static str,
    /// "" for labels and counts of things.
    pub unit: &'static str,
    pub description: &'static str,
    /// The range its values (and so their confidence intervals) lie in.
    pub low: f64,
    pub high: f64,
}

impl ColumnDef {
    /// A column of any value. A column without a description is refused: in a `const`
    /// (where columns are declared) that fails the build.
    pub const fn new(
        name: &'static str,
        unit: &'static str,
        description: &'static str,
    ) -> ColumnDef {
        assert!(!name.is_empty(), "a column needs a name");
        assert!(!description.is_empty(), "a column needs a description");
        ColumnDef {
            name,
            unit,
            description,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        }
    }

    /// The same column, its values at least `low`.
    pub const fn at_least(self, low: f64) -> ColumnDef {
        ColumnDef { low, ..self }
    }

    /// The same column, its values within `[low, high]`.
    pub const fn within(self, low: f64, high: f64) -> ColumnDef {
        ColumnDef { low, high, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "a column needs a description")]
    fn a_column_without_a_description_is_refused() {
        let _ = std::hint::black_box(ColumnDef::new("x", "s", ""));
    }

    #[test]
    fn ranges() {
        const C: ColumnDef = ColumnDef::new("x", "s", "a time").at_least(0.0);
        assert_eq!((C.low, C.high), (0.0, f64::INFINITY));
        let f = ColumnDef::new("f", "", "a share").within(0.0, 1.0);
        assert_eq!((f.low, f.high), (0.0, 1.0));
    }
}
