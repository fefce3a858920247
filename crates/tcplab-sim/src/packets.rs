//! Where packets live while the network carries them.
//!
//! A transport's header ([`Packet`], around 90 bytes and growing with every new transport)
//! is stored once when its endpoint emits it and read once when it reaches the other end;
//! media, queues and events move a 24-byte [`Pkt`] that names its slot. Slots are reused
//! last-freed first, so the store stays as large as the most packets ever in flight and
//! recently used slots are the ones still in cache.

use tcplab_transport::Packet;

/// The packets in flight, by slot.
#[derive(Debug, Default)]
pub(crate) struct PacketStore {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketStore {
    /// Stores `p`; returns its slot.
    #[inline]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = p;
                s
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &Packet {
        &self.slots[slot as usize]
    }

    /// Frees `slot` (its packet was delivered or lost).
    #[inline]
    pub fn free(&mut self, slot: u32) {
        self.free.push(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_transport::tcp::Segment;

    fn seg(seq: u64) -> Packet {
        Packet::Tcp(Segment {
            seq,
            len: 1,
            ..Segment::default()
        })
    }

    #[test]
    fn slots_are_reused_last_freed_first() {
        let mut s = PacketStore::default();
        let a = s.put(seg(1));
        let b = s.put(seg(2));
        assert_eq!(s.get(a), &seg(1));
        assert_eq!(s.get(b), &seg(2));
        s.free(a);
        s.free(b);
        assert_eq!(s.put(seg(3)), b);
        assert_eq!(s.put(seg(4)), a);
        assert_eq!(s.get(a), &seg(4));
        assert_eq!(s.slots.len(), 2);
    }
}
