//! RLNC encoder over a growing, sliding coding window (TCP/NC's sender).

use super::symbol::{seeded_coefficients, write_explicit_header, write_seeded_header, RlncSymbol};
use crate::error::{zeroed, CodingError, Result};
use crate::gf256;
use std::ops::Range;

/// Holds the packets of the current coding window and emits random linear
/// combinations of all of them.
///
/// Packets are framed as *units* of `packet_size + 2` bytes — a big-endian
/// length, the data, zero padding — so packets of any length up to
/// `packet_size` come back out of the decoder exactly.
#[derive(Debug, Clone)]
pub struct RlncEncoder {
    packet_size: usize,
    unit: usize,
    capacity: usize,
    start: u32,
    len: usize,
    /// `capacity` units; packet i lives in slot i % capacity.
    ring: Vec<u8>,
    coeffs: Vec<u8>,
}

impl RlncEncoder {
    /// An encoder for packets of at most `packet_size` bytes (1..=65533)
    /// and windows of at most `capacity` packets (1..=65535).
    pub fn new(packet_size: usize, capacity: usize) -> Result<Self> {
        check_sizes(packet_size, capacity)?;
        Ok(Self {
            packet_size,
            unit: packet_size + 2,
            capacity,
            start: 0,
            len: 0,
            ring: zeroed(capacity * (packet_size + 2))?,
            coeffs: Vec::with_capacity(capacity),
        })
    }

    pub fn packet_size(&self) -> usize {
        self.packet_size
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Absolute indices of the packets currently in the coding window.
    pub fn window(&self) -> Range<u32> {
        self.start..self.start + self.len as u32
    }

    /// Append a packet to the window; returns its absolute index.
    pub fn push(&mut self, packet: &[u8]) -> Result<u32> {
        if packet.len() > self.packet_size {
            return Err(CodingError::PacketTooLong {
                len: packet.len(),
                max: self.packet_size,
            });
        }
        if self.len == self.capacity {
            return Err(CodingError::WindowFull {
                capacity: self.capacity,
            });
        }
        let index = self.window().end;
        if index == u32::MAX {
            // Index u32::MAX would make the window end unrepresentable.
            return Err(CodingError::IndexOutOfRange {
                index: u64::from(index),
                start: u64::from(self.start),
                end: u64::from(u32::MAX),
            });
        }
        let unit = self.unit_mut(index);
        unit[..2].copy_from_slice(&(packet.len() as u16).to_be_bytes());
        unit[2..2 + packet.len()].copy_from_slice(packet);
        unit[2 + packet.len()..].fill(0);
        self.len += 1;
        Ok(index)
    }

    /// Drop packets below `new_start` (acknowledged, or seen in TCP/NC).
    pub fn slide_to(&mut self, new_start: u32) -> Result<()> {
        let w = self.window();
        if new_start < w.start || new_start > w.end {
            return Err(CodingError::IndexOutOfRange {
                index: u64::from(new_start),
                start: u64::from(w.start),
                end: u64::from(w.end) + 1,
            });
        }
        self.len -= (new_start - w.start) as usize;
        self.start = new_start;
        Ok(())
    }

    /// A symbol over the whole window with coefficients drawn from `seed`.
    pub fn encode(&mut self, seed: u32) -> Result<RlncSymbol> {
        let mut out = Vec::new();
        self.encode_into(seed, &mut out)?;
        RlncSymbol::from_bytes(&out)
    }

    /// Wire form of the seeded symbol into `out` (replacing its contents;
    /// reuse `out` to avoid allocation).
    pub fn encode_into(&mut self, seed: u32, out: &mut Vec<u8>) -> Result<()> {
        let n = self.non_empty_len()?;
        self.coeffs.resize(n, 0);
        seeded_coefficients(self.start, seed, &mut self.coeffs);
        out.clear();
        write_seeded_header(out, self.start, n as u16, self.unit as u16, seed);
        self.combine_into(out);
        Ok(())
    }

    /// Wire form of a symbol with caller-chosen coefficients, one per
    /// packet of the window (e.g. unit vectors for systematic packets).
    pub fn encode_with_coefficients_into(
        &mut self,
        coefficients: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let n = self.non_empty_len()?;
        if coefficients.len() != n {
            return Err(CodingError::CoefficientCount {
                expected: n,
                found: coefficients.len(),
            });
        }
        self.coeffs.clear();
        self.coeffs.extend_from_slice(coefficients);
        out.clear();
        write_explicit_header(out, self.start, self.unit as u16, coefficients);
        self.combine_into(out);
        Ok(())
    }

    /// Append Σ coeffs[j] · unit(start + j) to `out`. The window occupies
    /// at most two contiguous runs of the ring (before and after the wrap),
    /// each handled by one fused multi-row pass.
    fn combine_into(&self, out: &mut Vec<u8>) {
        let h = out.len();
        out.resize(h + self.unit, 0);
        let payload = &mut out[h..];
        let first = self.start as usize % self.capacity;
        let run = self.len.min(self.capacity - first);
        let (c1, c2) = self.coeffs.split_at(run);
        let u = self.unit;
        gf256::mul_acc_rows(payload, &self.ring[first * u..(first + run) * u], c1);
        gf256::mul_acc_rows(payload, &self.ring[..c2.len() * u], c2);
    }

    fn non_empty_len(&self) -> Result<usize> {
        if self.len == 0 {
            return Err(CodingError::InvalidParameter(
                "coding window is empty; push a packet first".into(),
            ));
        }
        Ok(self.len)
    }

    fn unit_mut(&mut self, index: u32) -> &mut [u8] {
        let s = (index as usize % self.capacity) * self.unit;
        &mut self.ring[s..s + self.unit]
    }
}

/// Shared by encoder and decoder: sizes must fit the u16 header fields.
pub(crate) fn check_sizes(packet_size: usize, capacity: usize) -> Result<()> {
    if !(1..=usize::from(u16::MAX) - 2).contains(&packet_size) {
        return Err(CodingError::InvalidParameter(format!(
            "packet size must be 1..=65533 bytes, got {packet_size}"
        )));
    }
    if !(1..=usize::from(u16::MAX)).contains(&capacity) {
        return Err(CodingError::InvalidParameter(format!(
            "window capacity must be 1..=65535 packets, got {capacity}"
        )));
    }
    Ok(())
}
