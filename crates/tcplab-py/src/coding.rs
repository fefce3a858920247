//! `tcplab._tcplab` bindings for `tcplab-coding`: LT and RLNC encoders and
//! decoders, bytes in and bytes out. Every `CodingError` becomes a Python
//! `ValueError` carrying the error's message.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tcplab_coding::lt::{DegreeSpec, LtDecoder, LtEncoder, LtParams};
use tcplab_coding::rlnc::{RlncDecoder, RlncEncoder, RlncOutcome};
use tcplab_coding::CodingError;

fn err(e: CodingError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An unsigned integer argument. Out of range (negative, too large) is a `ValueError`, as
/// the module documents, rather than pyo3's `OverflowError`.
struct Whole<T>(T);

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl<'a, 'py> FromPyObject<'a, 'py> for Whole<$t> {
            type Error = PyErr;
            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                match obj.extract::<$t>() {
                    Ok(v) => Ok(Whole(v)),
                    Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                        Err(PyValueError::new_err(format!(
                            "expected a whole number from 0 to {}, got {}",
                            <$t>::MAX,
                            obj.as_any()
                        )))
                    }
                    Err(e) => Err(e),
                }
            }
        }
    )*};
}
whole!(u8, u32, u64, usize);

fn opt<T>(v: Option<Whole<T>>) -> Option<T> {
    v.map(|w| w.0)
}

/// LT parameters from the Python keyword arguments. `window=None` means one
/// generation over the whole object; `stride=None` means TCP-Forward's
/// ⌊window/2⌋.
#[allow(clippy::too_many_arguments)]
fn lt_params(
    data_len: u64,
    symbol_size: usize,
    window: Option<u32>,
    stride: Option<u32>,
    distribution: &str,
    c: f64,
    delta: f64,
    weights: Option<Vec<f64>>,
) -> PyResult<LtParams> {
    let degrees = match (distribution, weights) {
        (_, Some(w)) => DegreeSpec::Custom(w),
        ("robust", None) => DegreeSpec::RobustSoliton { c, delta },
        ("ideal", None) => DegreeSpec::IdealSoliton,
        (other, None) => {
            return Err(PyValueError::new_err(format!(
                "distribution must be 'robust' or 'ideal' (or pass weights), got {other:?}"
            )))
        }
    };
    let symbols = if symbol_size == 0 {
        1
    } else {
        data_len
            .div_ceil(symbol_size as u64)
            .clamp(1, u64::from(u32::MAX)) as u32
    };
    let window = window.unwrap_or(symbols);
    let stride = stride.unwrap_or((window / 2).max(1));
    LtParams::new(symbol_size, window, stride, degrees).map_err(err)
}

/// LT (fountain) encoder over `data` split into `symbol_size`-byte symbols.
#[pyclass(name = "LtEncoder", module = "tcplab._tcplab")]
struct PyLtEncoder {
    inner: LtEncoder,
}

#[pymethods]
impl PyLtEncoder {
    #[new]
    #[pyo3(signature = (data, symbol_size, window=None, stride=None, distribution="robust", c=0.1, delta=0.5, weights=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        data: &[u8],
        symbol_size: Whole<usize>,
        window: Option<Whole<u32>>,
        stride: Option<Whole<u32>>,
        distribution: &str,
        c: f64,
        delta: f64,
        weights: Option<Vec<f64>>,
    ) -> PyResult<Self> {
        let params = lt_params(
            data.len() as u64,
            symbol_size.0,
            opt(window),
            opt(stride),
            distribution,
            c,
            delta,
            weights,
        )?;
        Ok(Self {
            inner: LtEncoder::new(params, data).map_err(err)?,
        })
    }

    #[getter]
    fn num_source_symbols(&self) -> u32 {
        self.inner.num_source_symbols()
    }

    #[getter]
    fn num_generations(&self) -> u32 {
        self.inner.num_generations()
    }

    /// (start, end) absolute source indices of a generation.
    fn generation_range(&self, generation: Whole<u32>) -> PyResult<(u32, u32)> {
        let r = self.inner.generation_range(generation.0).map_err(err)?;
        Ok((r.start, r.end))
    }

    /// Absolute source indices XORed into symbol (generation, seed).
    fn neighbours(&mut self, generation: Whole<u32>, seed: Whole<u32>) -> PyResult<Vec<u32>> {
        self.inner.neighbours(generation.0, seed.0).map_err(err)
    }

    /// Wire bytes of symbol (generation, seed).
    fn encode<'py>(
        &mut self,
        py: Python<'py>,
        generation: Whole<u32>,
        seed: Whole<u32>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        self.inner
            .encode_into(generation.0, seed.0, &mut out)
            .map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Online peeling LT decoder for an object of `data_len` bytes.
#[pyclass(name = "LtDecoder", module = "tcplab._tcplab")]
struct PyLtDecoder {
    inner: LtDecoder,
}

#[pymethods]
impl PyLtDecoder {
    #[new]
    #[pyo3(signature = (data_len, symbol_size, window=None, stride=None, distribution="robust", c=0.1, delta=0.5, weights=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        data_len: Whole<u64>,
        symbol_size: Whole<usize>,
        window: Option<Whole<u32>>,
        stride: Option<Whole<u32>>,
        distribution: &str,
        c: f64,
        delta: f64,
        weights: Option<Vec<f64>>,
    ) -> PyResult<Self> {
        let params = lt_params(
            data_len.0,
            symbol_size.0,
            opt(window),
            opt(stride),
            distribution,
            c,
            delta,
            weights,
        )?;
        Ok(Self {
            inner: LtDecoder::new(params, data_len.0).map_err(err)?,
        })
    }

    /// Consume one symbol; returns the source indices it recovered.
    fn receive(&mut self, symbol: &[u8]) -> PyResult<Vec<u32>> {
        self.inner.receive(symbol).map(<[u32]>::to_vec).map_err(err)
    }

    /// Source symbol `index` (true length) if recovered, else None.
    fn source<'py>(&self, py: Python<'py>, index: Whole<u32>) -> Option<Bound<'py, PyBytes>> {
        self.inner.source(index.0).map(|s| PyBytes::new(py, s))
    }

    /// The whole object once complete, else None.
    fn data<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.data().map(|s| PyBytes::new(py, s))
    }

    fn is_recovered(&self, index: Whole<u32>) -> bool {
        self.inner.is_recovered(index.0)
    }

    #[getter]
    fn is_complete(&self) -> bool {
        self.inner.is_complete()
    }

    #[getter]
    fn recovered_count(&self) -> u32 {
        self.inner.recovered_count()
    }

    #[getter]
    fn num_source_symbols(&self) -> u32 {
        self.inner.num_source_symbols()
    }

    /// Roughly how many more symbols are needed (0 once complete).
    fn symbols_needed_estimate(&self) -> u64 {
        self.inner.symbols_needed_estimate()
    }

    /// Counters: received, redundant, buffered.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.stats();
        let d = PyDict::new(py);
        d.set_item("received", s.received)?;
        d.set_item("redundant", s.redundant)?;
        d.set_item("buffered", s.buffered)?;
        Ok(d)
    }
}

/// RLNC encoder over a sliding window of at most `capacity` packets.
#[pyclass(name = "RlncEncoder", module = "tcplab._tcplab")]
struct PyRlncEncoder {
    inner: RlncEncoder,
}

#[pymethods]
impl PyRlncEncoder {
    #[new]
    fn new(packet_size: Whole<usize>, capacity: Whole<usize>) -> PyResult<Self> {
        Ok(Self {
            inner: RlncEncoder::new(packet_size.0, capacity.0).map_err(err)?,
        })
    }

    /// Append a packet; returns its absolute index.
    fn push(&mut self, packet: &[u8]) -> PyResult<u32> {
        self.inner.push(packet).map_err(err)
    }

    /// Drop packets below `start`.
    fn slide_to(&mut self, start: Whole<u32>) -> PyResult<()> {
        self.inner.slide_to(start.0).map_err(err)
    }

    /// (start, end) of the coding window.
    #[getter]
    fn window(&self) -> (u32, u32) {
        let w = self.inner.window();
        (w.start, w.end)
    }

    /// Wire bytes of a symbol with coefficients drawn from `seed`.
    fn encode<'py>(&mut self, py: Python<'py>, seed: Whole<u32>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        self.inner.encode_into(seed.0, &mut out).map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Wire bytes of a symbol with explicit coefficients (one per packet).
    fn encode_with_coefficients<'py>(
        &mut self,
        py: Python<'py>,
        coefficients: Vec<Whole<u8>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let coefficients: Vec<u8> = coefficients.into_iter().map(|c| c.0).collect();
        let mut out = Vec::new();
        self.inner
            .encode_with_coefficients_into(&coefficients, &mut out)
            .map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Incremental Gauss–Jordan RLNC decoder holding at most `capacity` packets.
#[pyclass(name = "RlncDecoder", module = "tcplab._tcplab")]
struct PyRlncDecoder {
    inner: RlncDecoder,
}

#[pymethods]
impl PyRlncDecoder {
    #[new]
    fn new(packet_size: Whole<usize>, capacity: Whole<usize>) -> PyResult<Self> {
        Ok(Self {
            inner: RlncDecoder::new(packet_size.0, capacity.0).map_err(err)?,
        })
    }

    /// Consume one symbol; returns a dict with `outcome` ("innovative",
    /// "non_innovative" or "stale"), `rank`, `newly_seen` (int or None) and
    /// `newly_decoded` (list of indices).
    fn receive<'py>(&mut self, py: Python<'py>, symbol: &[u8]) -> PyResult<Bound<'py, PyDict>> {
        let r = self.inner.receive(symbol).map_err(err)?;
        let d = PyDict::new(py);
        let outcome = match r.outcome {
            RlncOutcome::Innovative => "innovative",
            RlncOutcome::NonInnovative => "non_innovative",
            RlncOutcome::Stale => "stale",
        };
        d.set_item("outcome", outcome)?;
        d.set_item("rank", r.rank)?;
        d.set_item("newly_seen", r.newly_seen)?;
        d.set_item("newly_decoded", r.newly_decoded.to_vec())?;
        Ok(d)
    }

    /// Packet `index` (original length) once decoded, else None.
    fn packet<'py>(&self, py: Python<'py>, index: Whole<u32>) -> Option<Bound<'py, PyBytes>> {
        self.inner.packet(index.0).map(|p| PyBytes::new(py, p))
    }

    fn is_seen(&self, index: Whole<u32>) -> bool {
        self.inner.is_seen(index.0)
    }

    fn is_decoded(&self, index: Whole<u32>) -> bool {
        self.inner.is_decoded(index.0)
    }

    fn first_unseen(&self) -> u32 {
        self.inner.first_unseen()
    }

    fn first_undecoded(&self) -> u32 {
        self.inner.first_undecoded()
    }

    #[getter]
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    #[getter]
    fn base(&self) -> u32 {
        self.inner.base()
    }

    #[getter]
    fn horizon(&self) -> u32 {
        self.inner.horizon()
    }

    /// Forget packets below `boundary`; returns how many undecoded rows
    /// were discarded.
    fn drop_below(&mut self, boundary: Whole<u32>) -> usize {
        self.inner.drop_below(boundary.0)
    }

    /// Drop the decoded prefix; returns the new boundary.
    fn drop_decoded_prefix(&mut self) -> u32 {
        self.inner.drop_decoded_prefix()
    }

    /// A recoded symbol (random combination of what is held).
    fn recode<'py>(&mut self, py: Python<'py>, seed: Whole<u32>) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        self.inner.recode_into(seed.0, &mut out).map_err(err)?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Adds the coding classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLtEncoder>()?;
    m.add_class::<PyLtDecoder>()?;
    m.add_class::<PyRlncEncoder>()?;
    m.add_class::<PyRlncDecoder>()?;
    Ok(())
}
