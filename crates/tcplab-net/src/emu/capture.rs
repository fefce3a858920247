//! The emulator's pcapng capture: each packet as it leaves the link (CE marks and all,
//! since they are in the packet itself), one interface per direction.

use crate::error::NetError;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use tcplab_core::pcapng::PcapngWriter;

/// Bytes kept of each packet by default: IP and TCP headers with options (the
/// simulator's capture keeps the same).
pub const SNAPLEN: u32 = tcplab_core::pcapng::DEFAULT_SNAPLEN;

pub struct Capture {
    w: PcapngWriter<BufWriter<File>>,
    snaplen: u32,
    path: String,
}

impl Capture {
    /// Creates `path` and describes interface 0 (forward, namespace → host) and 1
    /// (reverse).
    pub fn create(path: &Path, snaplen: u32, scenario: &str) -> Result<Capture, NetError> {
        let shown = path.display().to_string();
        let io = |e| NetError::io(format!("writing the capture {shown}"), e);
        let f = File::create(path).map_err(io)?;
        let mut w = PcapngWriter::new(
            BufWriter::new(f),
            "tcplab emulate",
            &format!("scenario {scenario}: IP packets as they leave the emulated link"),
        )
        .map_err(io)?;
        w.interface("fwd", "namespace -> host, after the link", snaplen)
            .map_err(io)?;
        w.interface("rev", "host -> namespace, after the link", snaplen)
            .map_err(io)?;
        Ok(Capture {
            w,
            snaplen,
            path: shown,
        })
    }

    /// One departing packet of direction `d` at `t_ns` (since the emulator started).
    pub fn packet(&mut self, d: usize, t_ns: u64, p: &[u8]) -> Result<(), NetError> {
        let cap = (p.len() as u32).min(self.snaplen);
        self.w
            .packet(d as u32, t_ns, p, cap, p.len() as u32)
            .map_err(|e| NetError::io(format!("writing the capture {}", self.path), e))
    }

    pub fn finish(self) -> Result<(), NetError> {
        let path = self.path;
        self.w
            .finish()
            .map(|_| ())
            .map_err(|e| NetError::io(format!("writing the capture {path}"), e))
    }
}
