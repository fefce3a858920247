//! A results table's columns, gathered from the components that publish into it.
//!
//! Each component declares the [`ColumnDef`]s it publishes beside its code; a driver
//! gathers them per table. A column two components publish (the `acks_sent` of every
//! receiver) is one `const` both name, so it is listed once here; two different
//! definitions of one name are refused, so a column cannot mean two things.

use crate::ColumnDef;

/// The columns of one table, each name once, in the order they were first added.
#[derive(Clone, Debug, PartialEq)]
pub struct TableColumns {
    pub table: &'static str,
    pub columns: Vec<ColumnDef>,
}

impl TableColumns {
    pub fn new(table: &'static str) -> TableColumns {
        TableColumns {
            table,
            columns: Vec::new(),
        }
    }

    /// Adds `columns` (one component's declarations), in order.
    ///
    /// # Panics
    /// When a name is already there with another definition: the declarations are
    /// static data, so this is a programming error a test meets, not a user's.
    pub fn with(mut self, columns: impl IntoIterator<Item = ColumnDef>) -> TableColumns {
        for c in columns {
            self.add(c);
        }
        self
    }

    /// Adds one column (see [`TableColumns::with`] for a name seen before).
    pub fn add(&mut self, c: ColumnDef) {
        match self.columns.iter().find(|d| d.name == c.name) {
            Some(d) => assert!(
                *d == c,
                "{} column `{}` is defined twice, differently ({d:?} and {c:?}): declare \
                 it once and name that const in both places",
                self.table,
                c.name
            ),
            None => self.columns.push(c),
        }
    }

    /// The definition of column `name`.
    pub fn get(&self, name: &str) -> Option<&ColumnDef> {
        self.columns.iter().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ColumnDef = ColumnDef::new("a", "s", "a time");

    #[test]
    fn a_shared_const_is_listed_once() {
        let t = TableColumns::new("t")
            .with([A, ColumnDef::new("b", "", "a count")])
            .with([A]);
        let names: Vec<_> = t.columns.iter().map(|c| c.name).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(t.get("a"), Some(&A));
    }

    #[test]
    #[should_panic(expected = "t column `a` is defined twice, differently")]
    fn two_definitions_of_one_name_are_refused() {
        let _ = TableColumns::new("t")
            .with([A])
            .with([ColumnDef::new("a", "s", "another time")]);
    }
}
