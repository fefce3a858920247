//! Where packets live while the network carries them.
//!
//! A transport's header ([`Packet`], around 90 bytes and growing with every new transport)
//! is stored once when its endpoint emits it and read once when it reaches the other end;
//! media, queues and events move a 16-byte [`Pkt`] that names its slot. Slots are reused
//! last-freed first, so the store stays as large as the most packets ever in flight and
//! recently used slots are the ones still in cache.

use tcplab_transport::Packet;

/// The packets in flight, by slot. A slot holds an `Option` (no larger: the header enum
/// has a niche) so that [`PacketStore::put_next`] can have an endpoint's `poll_transmit`
/// write its result straight into the slot, without a copy of the header through the
/// stack on every packet sent.
#[derive(Debug, Default)]
pub(crate) struct PacketStore {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
}

impl PacketStore {
    /// Stores what `next` yields, if anything, in a free slot; returns the slot.
    #[inline(always)]
    pub fn put_next(&mut self, next: impl FnOnce() -> Option<Packet>) -> Option<u32> {
        let s = match self.free.last() {
            Some(&s) => s,
            None => {
                self.slots.push(None);
                self.free.push((self.slots.len() - 1) as u32);
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[s as usize];
        *slot = next();
        slot.is_some().then(|| {
            self.free.pop();
            s
        })
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &Packet {
        self.slots[slot as usize]
            .as_ref()
            .expect("a slot handed out holds its packet until freed")
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

    fn put(s: &mut PacketStore, p: Packet) -> u32 {
        s.put_next(|| Some(p)).expect("a packet was given")
    }

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
        let a = put(&mut s, seg(1));
        let b = put(&mut s, seg(2));
        assert_eq!(s.get(a), &seg(1));
        assert_eq!(s.get(b), &seg(2));
        s.free(a);
        s.free(b);
        assert_eq!(put(&mut s, seg(3)), b);
        assert_eq!(put(&mut s, seg(4)), a);
        assert_eq!(s.get(a), &seg(4));
        assert_eq!(s.slots.len(), 2);
    }

    #[test]
    fn nothing_to_store_keeps_the_slot_free() {
        let mut s = PacketStore::default();
        assert_eq!(s.put_next(|| None), None);
        let a = s.put_next(|| Some(seg(7))).unwrap();
        assert_eq!(s.get(a), &seg(7));
        assert_eq!(s.put_next(|| None), None);
        let b = put(&mut s, seg(8));
        assert_ne!(a, b);
        assert_eq!(s.slots.len(), 2);
        assert_eq!(
            std::mem::size_of::<Option<Packet>>(),
            std::mem::size_of::<Packet>()
        );
    }
}
