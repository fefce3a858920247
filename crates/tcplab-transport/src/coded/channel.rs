//! `payload = true`: the bytes of each symbol, carried beside its header.
//!
//! Packets are small `Copy` headers, so a symbol's real bytes cannot ride in them. The
//! source writes each encoded symbol into a ring shared with its sink, under the symbol's
//! seed (unique within a flow); the sink takes it when the header arrives. A lost header
//! just leaves its slot to be overwritten. The ring is sized far beyond what a path holds
//! in flight; a sink that finds another symbol in the slot reports it (the run fails)
//! rather than decoding wrong bytes.

use std::sync::{Arc, Mutex};
use tcplab_coding::rng::{mix64, SplitMix64};

/// Slots in the ring: symbols that may be in flight at once.
const SLOTS: usize = 1 << 14;

#[derive(Debug, Default)]
struct Ring {
    slots: Vec<(Option<u32>, Vec<u8>)>,
}

/// The shared ring of one flow (cheap to clone: both ends hold one).
#[derive(Clone, Debug, Default)]
pub struct PayloadChannel(Arc<Mutex<Ring>>);

impl PayloadChannel {
    pub fn new() -> PayloadChannel {
        PayloadChannel::default()
    }

    /// Stores the bytes of symbol `seed` (`fill` writes them into a reused buffer).
    pub fn put(&self, seed: u32, fill: impl FnOnce(&mut Vec<u8>)) {
        let mut ring = self.0.lock().expect("payload channel poisoned");
        if ring.slots.is_empty() {
            ring.slots.resize_with(SLOTS, Default::default);
        }
        let slot = &mut ring.slots[seed as usize % SLOTS];
        slot.0 = Some(seed);
        slot.1.clear();
        fill(&mut slot.1);
    }

    /// Hands the bytes of symbol `seed` to `read`; `None` if they were overwritten.
    pub fn take<T>(&self, seed: u32, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut ring = self.0.lock().expect("payload channel poisoned");
        let slot = ring.slots.get_mut(seed as usize % SLOTS)?;
        if slot.0 != Some(seed) {
            return None;
        }
        slot.0 = None;
        Some(read(&slot.1))
    }
}

/// The application's bytes of segment `index` of flow `flow` (`out.len()` of them): a
/// fixed pseudo-random function of the position, so a sink can check every byte it
/// delivers without a copy of the data.
pub fn segment_bytes(flow: u32, index: u32, out: &mut [u8]) {
    SplitMix64::new(mix64((u64::from(flow) << 32) | u64::from(index))).fill_bytes(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_taken_once_and_overwritten_slots_are_reported() {
        let ch = PayloadChannel::new();
        ch.put(7, |b| b.extend_from_slice(b"abc"));
        assert_eq!(ch.take(7, |b| b.to_vec()), Some(b"abc".to_vec()));
        assert_eq!(ch.take(7, |b| b.len()), None, "taken already");
        ch.put(1, |b| b.push(1));
        ch.put(1 + SLOTS as u32, |b| b.push(2));
        assert_eq!(ch.take(1, |b| b.len()), None, "overwritten");
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        segment_bytes(0, 3, &mut a);
        segment_bytes(0, 3, &mut b);
        assert_eq!(a, b);
        segment_bytes(0, 4, &mut b);
        assert_ne!(a, b);
    }
}
