//! Packet buffers for the emulator, recycled so the per-packet path does not allocate.

use super::ip;
use tcplab_core::Time;
use tcplab_link::Packet;

/// One IP packet read from a TUN device.
#[derive(Debug)]
pub struct Buf {
    /// Storage of the pool's fixed size; the packet is `data[..len]`.
    data: Vec<u8>,
    len: u32,
    /// When the emulator read it (its arrival at the link).
    pub arrived: Time,
}

impl Buf {
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.len as usize]
    }
}

impl Packet for Buf {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.len
    }
    /// ECT(0) or ECT(1) in the IP header.
    fn ecn_capable(&self) -> bool {
        matches!(ip::ecn(self.bytes()), Some(ip::ECT0 | ip::ECT1))
    }
    /// CE in the IP header itself (and the IPv4 header checksum fixed).
    fn set_ce(&mut self) {
        ip::set_ce(&mut self.data[..self.len as usize]);
    }
    /// The packet's 5-tuple (as Linux's FQ-CoDel hashes it).
    fn flow_key(&self) -> u64 {
        ip::flow_key(self.bytes())
    }
}

/// A free list of buffers of one size. Buffers the link model drops are freed by it;
/// the pool allocates replacements when it runs dry, so only drops cost an allocation.
pub struct BufPool {
    size: usize,
    free: Vec<Vec<u8>>,
}

impl BufPool {
    pub fn new(size: usize, prealloc: usize) -> BufPool {
        BufPool {
            size,
            free: (0..prealloc).map(|_| vec![0; size]).collect(),
        }
    }

    /// Storage to read a packet into.
    pub fn take(&mut self) -> Vec<u8> {
        self.free.pop().unwrap_or_else(|| vec![0; self.size])
    }

    /// A packet of `len` bytes read into `data` at `arrived`.
    pub fn fill(&self, data: Vec<u8>, len: usize, arrived: Time) -> Buf {
        Buf {
            data,
            len: len as u32,
            arrived,
        }
    }

    pub fn put(&mut self, b: Buf) {
        self.put_raw(b.data);
    }

    pub fn put_raw(&mut self, data: Vec<u8>) {
        debug_assert_eq!(data.len(), self.size);
        self.free.push(data);
    }
}
