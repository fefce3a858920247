//! Where packets live while the network carries them.
//!
//! A transport's header ([`Packet`], around 90 bytes and growing with every new transport)
//! is stored once when its endpoint emits it and read once when it reaches the other end;
//! media, queues and events move a 16-byte [`Pkt`] that names its slot. Slots are reused
//! last-freed first, so the store stays as large as the most packets ever in flight and
//! recently used slots are the ones still in cache.

use tcplab_transport::Packet;

/// The packets in flight, by slot (a freed slot keeps its last packet until reused).
#[derive(Debug, Default)]
pub(crate) struct PacketStore {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
}

impl PacketStore {
    /// Stores the packet an endpoint's poll yielded, if any, in `spare` (a slot the caller
    /// is done with, taken) or a free slot, and returns what `handle` makes of the slot
    /// and the packet (the handle the network moves). A poll that yielded nothing (the
    /// last of every drain) writes no slot and leaves `spare`.
    ///
    /// The poll's `Option` is stored as it came (unwrapped first, the packet took a second
    /// stack copy on its way to the slot), and `handle` reads the header before it moves,
    /// not from the slot after. Returning the caller's handle whole, not loose fields the
    /// caller builds it from, keeps the loop's test of the result one register compare:
    /// with the ECT bit as a third loose field, B1 took 0.55 M more instructions.
    #[inline(always)]
    pub fn put_next<H>(
        &mut self,
        spare: &mut Option<u32>,
        polled: Option<Packet>,
        handle: impl FnOnce(u32, &Packet) -> H,
    ) -> Option<H> {
        let packet = polled.as_ref()?;
        let slot = spare.take().or_else(|| self.free.pop()).unwrap_or_else(|| {
            self.slots.push(None);
            (self.slots.len() - 1) as u32
        });
        let h = handle(slot, packet);
        self.slots[slot as usize] = polled;
        Some(h)
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &Packet {
        self.slots[slot as usize]
            .as_ref()
            .expect("a slot handed out holds its packet until freed")
    }

    /// Sets the Congestion Experienced codepoint in the header stored in `slot` (a queue
    /// discipline marked the packet on its way).
    #[cold]
    pub fn mark_ce(&mut self, slot: u32) {
        if let Some(p) = self.slots[slot as usize].as_mut() {
            p.set_ce();
        }
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
        s.put_next(&mut None, Some(p), |slot, _| slot)
            .expect("a packet was given")
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
    fn a_spare_slot_is_used_first_and_kept_when_nothing_comes() {
        let mut s = PacketStore::default();
        let a = put(&mut s, seg(1));
        let b = put(&mut s, seg(2));
        s.free(b);
        // The spare (a) goes before the free list's b.
        let mut spare = Some(a);
        assert_eq!(
            s.put_next(&mut spare, Some(seg(3)), |slot, _| slot)
                .unwrap(),
            a
        );
        assert_eq!(spare, None);
        assert_eq!(s.get(a), &seg(3));
        assert_eq!(put(&mut s, seg(4)), b);
        // A poll that yields nothing leaves the spare with the caller.
        let mut spare = Some(a);
        assert!(s.put_next(&mut spare, None, |slot, _| slot).is_none());
        assert_eq!(spare, Some(a));
        assert_eq!(s.slots.len(), 2);
    }

    #[test]
    fn the_handle_sees_the_packet_stored_and_its_slot() {
        let mut s = PacketStore::default();
        let (a, seen) = s
            .put_next(&mut None, Some(seg(5)), |slot, p| (slot, *p))
            .unwrap();
        assert_eq!(seen, seg(5));
        assert_eq!(s.get(a), &seg(5));
        let mut read = false;
        assert!(s.put_next(&mut None, None, |_, _| read = true).is_none());
        assert!(!read, "nothing polled, nothing read");
    }

    #[test]
    fn nothing_to_store_keeps_the_slot_free() {
        let mut s = PacketStore::default();
        assert!(s.put_next(&mut None, None, |slot, _| slot).is_none());
        let a = put(&mut s, seg(7));
        assert_eq!(s.get(a), &seg(7));
        assert!(s.put_next(&mut None, None, |slot, _| slot).is_none());
        let b = put(&mut s, seg(8));
        assert_ne!(a, b);
        assert_eq!(s.slots.len(), 2);
        assert_eq!(
            std::mem::size_of::<Option<Packet>>(),
            std::mem::size_of::<Packet>()
        );
    }
}
