//! Results → pyarrow record batches, each row stamped with scenario, seed, replication.
//!
//! Generic over the columns: whatever the endpoints and media published becomes a column,
//! so a new transport needs no change here.

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, RecordBatch, StringArray,
    UInt32Array, UInt64Array,
};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_pyarrow::ToPyArrow;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use tcplab_sim::{Column, Data, Results, RunInfo};

fn nulls(c: &Column, n: usize) -> Option<NullBuffer> {
    if c.nulls.iter().any(|&x| x) {
        let mut valid: Vec<bool> = c.nulls.iter().map(|&x| !x).collect();
        valid.resize(n, true);
        Some(NullBuffer::new(BooleanBuffer::from(valid)))
    } else {
        None
    }
}

/// One column as an Arrow array; integer and float vectors move without copying.
fn array(c: Column, n: usize) -> ArrayRef {
    let nb = nulls(&c, n);
    match c.data {
        Data::Int(v) => Arc::new(UInt64Array::new(v.into(), nb)),
        Data::Float(v) => Arc::new(Float64Array::new(v.into(), nb)),
        Data::Bool(v) => Arc::new(BooleanArray::new(BooleanBuffer::from(v), nb)),
        Data::Text { codes, dict } => {
            // A categorical column: repeated labels cost one index each.
            let keys: Vec<i32> = codes
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    if nb.as_ref().is_some_and(|b| b.is_null(i)) {
                        0
                    } else {
                        k as i32
                    }
                })
                .collect();
            let values = StringArray::from_iter_values(dict.values().iter().map(String::as_str));
            let keys = Int32Array::new(keys.into(), nb);
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values))
                    .expect("codes index the dictionary"),
            )
        }
    }
}

/// Leading columns identifying the run, repeated for `n` rows.
fn stamp(info: &RunInfo, n: usize) -> Vec<(String, ArrayRef)> {
    let keys = Int32Array::from(vec![0; n]);
    let scenario = DictionaryArray::<Int32Type>::try_new(
        keys,
        Arc::new(StringArray::from(vec![info.scenario.as_str()])),
    )
    .expect("one label");
    vec![
        ("scenario".into(), Arc::new(scenario) as ArrayRef),
        (
            "seed".into(),
            Arc::new(UInt64Array::from(vec![info.seed; n])),
        ),
        (
            "replication".into(),
            Arc::new(UInt32Array::from(vec![info.replication; n])),
        ),
    ]
}

pub fn to_pyarrow<'py>(py: Python<'py>, r: Results) -> PyResult<Bound<'py, PyDict>> {
    let info = r.info.clone();
    let out = PyDict::new(py);
    for (name, table) in r.into_tables() {
        let n = table.rows();
        let mut cols = stamp(&info, n);
        for c in table.into_columns() {
            let cname = c.name.to_string();
            cols.push((cname, array(c, n)));
        }
        let batch = RecordBatch::try_from_iter(cols)
            .map_err(|e| PyRuntimeError::new_err(format!("building the {name} table: {e}")))?;
        out.set_item(name, batch.to_pyarrow(py)?)?;
    }
    Ok(out)
}
