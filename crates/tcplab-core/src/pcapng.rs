//! A pcapng writer (draft-ietf-opsawg-pcapng): a section header, interface descriptions
//! and enhanced packet blocks, little-endian, nothing else.
//!
//! Per packet it writes one block straight into the output (a `BufWriter` in practice):
//! no allocation, and payload bytes past the given prefix are written as zeros from a
//! static buffer.

use std::io::{self, Write};

/// Bytes kept of each packet unless told otherwise: every header tcplab writes (IPv4,
/// TCP with four SACK blocks: 76 bytes) fits.
pub const DEFAULT_SNAPLEN: u32 = 80;

/// LINKTYPE_RAW: each packet begins with its IPv4 (or IPv6) header.
pub const LINKTYPE_RAW: u16 = 101;

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const EPB: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_TSRESOL: u16 = 9;

const ZEROS: [u8; 512] = [0; 512];

/// Rounds up to a multiple of 4 (blocks and option values are 32-bit aligned).
fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// An option's code and value, the value cut to what its 16-bit length can say.
struct Opt<'a>(u16, &'a [u8]);

impl Opt<'_> {
    fn value(&self) -> &[u8] {
        &self.1[..self.1.len().min(0xfff0)]
    }
    fn size(&self) -> usize {
        4 + pad4(self.value().len())
    }
}

/// Writes blocks to `out`.
pub struct PcapngWriter<W: Write> {
    out: W,
    interfaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Starts a section: `app` names the writer (shb_userappl), `comment` describes it.
    pub fn new(out: W, app: &str, comment: &str) -> io::Result<Self> {
        let mut w = PcapngWriter { out, interfaces: 0 };
        let mut body = Vec::with_capacity(16);
        body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes()); // major version
        body.extend_from_slice(&0u16.to_le_bytes()); // minor version
        body.extend_from_slice(&(-1i64).to_le_bytes()); // section length not given
        w.block(
            SHB,
            &body,
            &[
                Opt(SHB_USERAPPL, app.as_bytes()),
                Opt(OPT_COMMENT, comment.as_bytes()),
            ],
        )?;
        Ok(w)
    }

    /// Describes an interface with nanosecond timestamps (if_tsresol = 9); returns its id.
    pub fn interface(&mut self, name: &str, description: &str, snaplen: u32) -> io::Result<u32> {
        let mut body = Vec::with_capacity(8);
        body.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes()); // reserved
        body.extend_from_slice(&snaplen.to_le_bytes());
        self.block(
            IDB,
            &body,
            &[
                Opt(IF_NAME, name.as_bytes()),
                Opt(IF_DESCRIPTION, description.as_bytes()),
                Opt(IF_TSRESOL, &[9]),
            ],
        )?;
        self.interfaces += 1;
        Ok(self.interfaces - 1)
    }

    /// One packet seen on `interface` at `ts_ns`: `captured` bytes are stored (`prefix`,
    /// then zeros), of a packet `original` bytes long.
    pub fn packet(
        &mut self,
        interface: u32,
        ts_ns: u64,
        prefix: &[u8],
        captured: u32,
        original: u32,
    ) -> io::Result<()> {
        let cap = captured as usize;
        let padded = pad4(cap);
        let total = (32 + padded) as u32;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&interface.to_le_bytes());
        head[12..16].copy_from_slice(&((ts_ns >> 32) as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(ts_ns as u32).to_le_bytes());
        head[20..24].copy_from_slice(&captured.to_le_bytes());
        head[24..28].copy_from_slice(&original.to_le_bytes());
        self.out.write_all(&head)?;
        let written = prefix.len().min(cap);
        self.out.write_all(&prefix[..written])?;
        self.zeros(padded - written)?;
        self.out.write_all(&total.to_le_bytes())
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    fn zeros(&mut self, mut n: usize) -> io::Result<()> {
        while n > 0 {
            let k = n.min(ZEROS.len());
            self.out.write_all(&ZEROS[..k])?;
            n -= k;
        }
        Ok(())
    }

    /// A block with options (once per file, so it may allocate).
    fn block(&mut self, kind: u32, body: &[u8], opts: &[Opt<'_>]) -> io::Result<()> {
        let opts_len: usize = opts.iter().map(Opt::size).sum::<usize>() + 4;
        let total = (12 + body.len() + opts_len) as u32;
        let mut b = Vec::with_capacity(total as usize);
        b.extend_from_slice(&kind.to_le_bytes());
        b.extend_from_slice(&total.to_le_bytes());
        b.extend_from_slice(body);
        for o in opts {
            let v = o.value();
            b.extend_from_slice(&o.0.to_le_bytes());
            b.extend_from_slice(&(v.len() as u16).to_le_bytes());
            b.extend_from_slice(v);
            b.resize(pad4(b.len()), 0);
        }
        b.extend_from_slice(&OPT_END.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&total.to_le_bytes());
        debug_assert_eq!(b.len(), total as usize);
        self.out.write_all(&b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], o: usize) -> u32 {
        u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
    }
    fn u16_at(b: &[u8], o: usize) -> u16 {
        u16::from_le_bytes(b[o..o + 2].try_into().unwrap())
    }

    /// Splits a file into (type, block) pairs, checking both length fields of each block.
    fn blocks(b: &[u8]) -> Vec<(u32, &[u8])> {
        let mut out = vec![];
        let mut o = 0;
        while o < b.len() {
            let len = u32_at(b, o + 4) as usize;
            assert_eq!(len % 4, 0, "block length is 32-bit aligned");
            assert_eq!(u32_at(b, o + len - 4) as usize, len, "trailing length");
            out.push((u32_at(b, o), &b[o..o + len]));
            o += len;
        }
        assert_eq!(o, b.len());
        out
    }

    /// The options of a block from `at`: (code, value).
    fn options(b: &[u8], mut at: usize) -> Vec<(u16, Vec<u8>)> {
        let mut out = vec![];
        loop {
            let (code, len) = (u16_at(b, at), u16_at(b, at + 2) as usize);
            if code == OPT_END {
                assert_eq!(at + 4, b.len() - 4, "end of options ends the block");
                return out;
            }
            out.push((code, b[at + 4..at + 4 + len].to_vec()));
            at += 4 + pad4(len);
        }
    }

    #[test]
    fn block_layout() {
        let mut w = PcapngWriter::new(Vec::new(), "tcplab", "odd-length comment").unwrap();
        assert_eq!(w.interface("l.fwd", "link l", 96).unwrap(), 0);
        assert_eq!(w.interface("l.rev", "link l", 96).unwrap(), 1);
        let ts = (5u64 << 32) + 7;
        w.packet(1, ts, &[0x45, 1, 2, 3, 4], 7, 1500).unwrap();
        w.packet(0, 9, &[0x45; 40], 40, 40).unwrap();
        let file = w.finish().unwrap();
        let bl = blocks(&file);
        assert_eq!(
            bl.iter().map(|b| b.0).collect::<Vec<_>>(),
            [SHB, IDB, IDB, EPB, EPB]
        );

        let shb = bl[0].1;
        assert_eq!(u32_at(shb, 8), BYTE_ORDER_MAGIC);
        assert_eq!((u16_at(shb, 12), u16_at(shb, 14)), (1, 0));
        assert_eq!(&shb[16..24], &[0xff; 8], "section length -1");
        let o = options(shb, 24);
        assert_eq!(o[0], (SHB_USERAPPL, b"tcplab".to_vec()));
        assert_eq!(o[1], (OPT_COMMENT, b"odd-length comment".to_vec()));

        let idb = bl[2].1;
        assert_eq!(u16_at(idb, 8), LINKTYPE_RAW);
        assert_eq!(u32_at(idb, 12), 96, "snaplen");
        let o = options(idb, 16);
        assert_eq!(o[0], (IF_NAME, b"l.rev".to_vec()));
        assert_eq!(o[2], (IF_TSRESOL, vec![9]), "nanoseconds");

        let epb = bl[3].1;
        assert_eq!(epb.len(), 32 + 8, "7 captured bytes padded to 8");
        assert_eq!(u32_at(epb, 8), 1, "interface");
        assert_eq!(
            (u32_at(epb, 12), u32_at(epb, 16)),
            (5, 7),
            "timestamp high, low"
        );
        assert_eq!((u32_at(epb, 20), u32_at(epb, 24)), (7, 1500));
        assert_eq!(
            &epb[28..36],
            &[0x45, 1, 2, 3, 4, 0, 0, 0],
            "prefix, zeros, pad"
        );
        assert_eq!(bl[4].1.len(), 32 + 40);
    }

    #[test]
    fn captured_shorter_than_prefix_cuts_the_prefix() {
        let mut w = PcapngWriter::new(Vec::new(), "a", "").unwrap();
        w.interface("i", "", 2).unwrap();
        let head = w.finish().unwrap().len();
        let mut w = PcapngWriter::new(Vec::new(), "a", "").unwrap();
        w.interface("i", "", 2).unwrap();
        w.packet(0, 0, &[1, 2, 3, 4, 5], 2, 5).unwrap();
        let f = w.finish().unwrap();
        let epb = &f[head..];
        assert_eq!(epb.len(), 36);
        assert_eq!(&epb[28..32], &[1, 2, 0, 0]);
    }

    #[test]
    fn long_payloads_are_zero_filled() {
        let mut w = PcapngWriter::new(Vec::new(), "a", "").unwrap();
        w.interface("i", "", 65535).unwrap();
        let head = w.finish().unwrap().len();
        let mut w = PcapngWriter::new(Vec::new(), "a", "").unwrap();
        w.interface("i", "", 65535).unwrap();
        w.packet(0, 0, &[0x45; 40], 9000, 9000).unwrap();
        let f = w.finish().unwrap();
        let epb = &f[head..];
        assert_eq!(epb.len(), 32 + 9000);
        assert!(epb[28 + 40..28 + 9000].iter().all(|&b| b == 0));
    }
}
