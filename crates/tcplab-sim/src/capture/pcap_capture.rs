//! The tap that writes one link's packets as pcapng: one interface per captured
//! direction (`<link>.fwd`: from the link's `a` end to its `b` end, `<link>.rev`: back).

use super::addresses::{flow_ports, node_ip, Endpoints};
use super::headers::{encode, WINDOW_SHIFT};
use super::pcapng::PcapngWriter;
use super::{Carried, Tap};
use std::fmt::{self, Write as _};
use std::io::{self, Write};
use tcplab_scenario::{Duplex, Scenario};

pub use tcplab_core::pcapng::DEFAULT_SNAPLEN;
/// Largest snapshot length (Wireshark's limit).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Longest section comment written (a pcapng option holds at most 64 KiB).
const MAX_COMMENT: usize = 60_000;

/// Which directions of the link to capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directions {
    Both,
    /// `a` → `b` only.
    Forward,
    /// `b` → `a` only.
    Reverse,
}

impl Directions {
    /// `"both"`, `"fwd"` or `"rev"`.
    pub fn parse(s: &str) -> Option<Directions> {
        match s {
            "both" => Some(Directions::Both),
            "fwd" => Some(Directions::Forward),
            "rev" => Some(Directions::Reverse),
            _ => None,
        }
    }
}

/// Why a capture cannot be made.
#[derive(Debug)]
pub enum CaptureError {
    /// A bad argument (unknown link, snapshot length out of range): a clear message.
    Invalid(String),
    /// Writing the file failed.
    Io(io::Error),
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::Invalid(why) => f.write_str(why),
            CaptureError::Io(e) => write!(f, "writing the capture failed: {e}"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// What a capture wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcapStats {
    /// Packets written per direction: `[fwd, rev]`.
    pub packets: [u64; 2],
    /// Their bytes on the wire (IPv4 total lengths) per direction.
    pub wire_bytes: [u64; 2],
}

/// The index of link `link` in `sc`, or why it cannot be captured (checked before
/// anything is written, so a caller can validate before creating a file).
pub fn check_target(sc: &Scenario, link: &str, snaplen: u32) -> Result<usize, CaptureError> {
    let Some(k) = sc.links.iter().position(|l| l.name == link) else {
        let names: Vec<&str> = sc.links.iter().map(|l| l.name.as_str()).collect();
        return Err(CaptureError::Invalid(format!(
            "pcap: scenario '{}' has no link named '{link}' (its links: {})",
            sc.name,
            names.join(", ")
        )));
    };
    if !(1..=MAX_SNAPLEN).contains(&snaplen) {
        return Err(CaptureError::Invalid(format!(
            "pcap: snaplen = {snaplen}: must be from 1 to {MAX_SNAPLEN} bytes"
        )));
    }
    if matches!(sc.links[k].duplex, Duplex::Wlan(_)) {
        return Err(CaptureError::Invalid(format!(
            "pcap: link '{link}' is an 802.11 cell association; capturing a WLAN cell is not \
             supported yet (capture a wired link on the path)"
        )));
    }
    Ok(k)
}

/// Writes the packets one link carries to `W` as pcapng.
pub struct PcapCapture<W: Write> {
    out: Option<PcapngWriter<W>>,
    link: usize,
    /// Interface of each direction `[fwd, rev]`, if captured.
    iface: [Option<u32>; 2],
    snaplen: u32,
    /// Each flow's addresses, source → sink.
    ends: Vec<Endpoints>,
    stats: PcapStats,
    error: Option<io::Error>,
}

impl<W: Write> PcapCapture<W> {
    /// A capture of link `link` of `sc` (directions `dirs`, `snaplen` bytes of each
    /// packet kept); writes the section and interface headers now.
    pub fn new(
        out: W,
        sc: &Scenario,
        run: (u64, u32),
        link: &str,
        dirs: Directions,
        snaplen: u32,
    ) -> Result<Self, CaptureError> {
        let k = check_target(sc, link, snaplen)?;
        let spec = &sc.links[k];
        let (a, b) = (&sc.nodes[spec.a].name, &sc.nodes[spec.b].name);
        let mut w = PcapngWriter::new(
            out,
            concat!("tcplab ", env!("CARGO_PKG_VERSION")),
            &section_comment(sc, run, link),
        )
        .map_err(CaptureError::Io)?;
        let duplex = match spec.duplex {
            Duplex::Full => "full duplex",
            Duplex::Half => "half duplex (one shared transmitter)",
            Duplex::Wlan(_) => unreachable!("check_target rejects WLAN links"),
        };
        let mut iface = [None; 2];
        for (i, dir, from, to) in [(0, "fwd", a, b), (1, "rev", b, a)] {
            let wanted = match dirs {
                Directions::Both => true,
                Directions::Forward => i == 0,
                Directions::Reverse => i == 1,
            };
            if wanted {
                let desc = format!(
                    "tcplab link '{link}' ({duplex}) from node '{from}' to node '{to}', \
                     packets stamped as they leave the link at '{to}'"
                );
                let id = w
                    .interface(&format!("{link}.{dir}"), &desc, snaplen)
                    .map_err(CaptureError::Io)?;
                iface[i] = Some(id);
            }
        }
        let ends = sc
            .flows
            .iter()
            .enumerate()
            .map(|(f, s)| Endpoints::of_flow(f as u32, s.src, s.dst))
            .collect();
        Ok(PcapCapture {
            out: Some(w),
            link: k,
            iface,
            snaplen,
            ends,
            stats: PcapStats::default(),
            error: None,
        })
    }

    /// Flushes the file; the first write error of the run, if any, is returned here.
    pub fn finish(mut self) -> Result<PcapStats, CaptureError> {
        if let Some(e) = self.error.take() {
            return Err(CaptureError::Io(e));
        }
        if let Some(w) = self.out.take() {
            w.finish().map_err(CaptureError::Io)?;
        }
        Ok(self.stats)
    }
}

impl<W: Write> Tap for PcapCapture<W> {
    #[inline]
    fn carried(&mut self, p: &Carried<'_>) {
        if p.link != self.link {
            return;
        }
        let dir = usize::from(!p.forward);
        let (Some(id), Some(out)) = (self.iface[dir], self.out.as_mut()) else {
            return;
        };
        let ends = self.ends[p.flow as usize];
        let ends = if p.from_sink { ends.reversed() } else { ends };
        let wire = encode(p.packet, ends, p.from_sink);
        let captured = wire.len.min(self.snaplen);
        let r = out.packet(id, p.at.as_nanos(), wire.prefix(), captured, wire.len);
        if let Err(e) = r {
            // Stop writing; the error is reported when the run ends.
            self.error = Some(e);
            self.out = None;
            return;
        }
        self.stats.packets[dir] += 1;
        self.stats.wire_bytes[dir] += u64::from(wire.len);
    }
}

/// What the file is and how its addresses map to the scenario.
fn section_comment(sc: &Scenario, (seed, replication): (u64, u32), link: &str) -> String {
    let mut c = format!(
        "tcplab scenario '{}' seed {seed} replication {replication}: the packets link \
         '{link}' carried, each stamped when it left the link (arrival at the far end; \
         packets lost on the link are absent). Times start at 0 (the Unix epoch). Node i \
         is 10.0.0.0 + i + 1; flow f sends from port 10000 + f % 50000 to port \
         5001 + f / 50000. Payload bytes are zeros (datagrams: sequence number and send \
         time in the first 16). TCP windows use scale {WINDOW_SHIFT} (no SYN is \
         simulated: tshark -o tcp.default_window_scaling:{WINDOW_SHIFT}).\nnodes:",
        sc.name
    );
    for (i, n) in sc.nodes.iter().enumerate() {
        let [a, b, c3, d] = node_ip(i);
        let _ = write!(c, " {}={a}.{b}.{c3}.{d}", n.name);
    }
    c.push_str("\nflows:");
    for (f, s) in sc.flows.iter().enumerate() {
        let (sp, dp) = flow_ports(f as u32);
        let _ = write!(
            c,
            "\n{f} {} ({}): {}:{sp} -> {}:{dp}",
            s.name,
            s.transport.name(),
            sc.nodes[s.src].name,
            sc.nodes[s.dst].name
        );
        if c.len() > MAX_COMMENT {
            let mut cut = MAX_COMMENT;
            while !c.is_char_boundary(cut) {
                cut -= 1;
            }
            c.truncate(cut);
            c.push_str("\n(more flows not listed)");
            break;
        }
    }
    c
}
