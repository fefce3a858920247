//! `run(..., pcap_link=..., pcap_path=...)`: one link's packets written as pcapng.

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use tcplab_sim::capture::{check_target, CaptureError, Directions, PcapCapture};
use tcplab_sim::Scenario;

pub use tcplab_sim::capture::DEFAULT_SNAPLEN;

/// A capture being written, and what to say about it afterwards.
pub struct OpenCapture {
    pub capture: PcapCapture<BufWriter<File>>,
    path: PathBuf,
    link: String,
    direction: String,
    snaplen: u32,
}

fn to_py(e: CaptureError, path: &std::path::Path) -> PyErr {
    match e {
        CaptureError::Invalid(why) => PyValueError::new_err(why),
        CaptureError::Io(io) => {
            PyOSError::new_err(format!("pcap: cannot write {}: {io}", path.display()))
        }
    }
}

/// Checks the arguments, then creates `path` and writes the capture's headers.
pub fn open(
    sc: &Scenario,
    run: (u64, u32),
    link: &str,
    direction: &str,
    snaplen: u32,
    path: PathBuf,
) -> PyResult<OpenCapture> {
    let dirs = Directions::parse(direction).ok_or_else(|| {
        PyValueError::new_err(format!(
            "pcap: direction must be \"both\", \"fwd\" or \"rev\", got {direction:?}"
        ))
    })?;
    check_target(sc, link, snaplen).map_err(|e| to_py(e, &path))?;
    let file = File::create(&path).map_err(|e| to_py(CaptureError::Io(e), &path))?;
    let capture = PcapCapture::new(
        BufWriter::with_capacity(1 << 16, file),
        sc,
        run,
        link,
        dirs,
        snaplen,
    )
    .map_err(|e| to_py(e, &path))?;
    Ok(OpenCapture {
        capture,
        path,
        link: link.to_string(),
        direction: direction.to_string(),
        snaplen,
    })
}

impl OpenCapture {
    /// Flushes the file; returns {path, link, direction, snaplen, packets, wire_bytes}
    /// (the last two as [fwd, rev]).
    pub fn finish(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let stats = self.capture.finish().map_err(|e| to_py(e, &self.path))?;
        let d = PyDict::new(py);
        d.set_item("path", self.path.to_string_lossy())?;
        d.set_item("link", self.link)?;
        d.set_item("direction", self.direction)?;
        d.set_item("snaplen", self.snaplen)?;
        d.set_item("packets", stats.packets.to_vec())?;
        d.set_item("wire_bytes", stats.wire_bytes.to_vec())?;
        Ok(d)
    }
}
