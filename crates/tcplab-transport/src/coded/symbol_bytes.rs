//! `payload = true`: where a coded symbol's bytes travel, owned by the driver.
//!
//! Packets are small `Copy` headers that every transport shares, so a symbol's bytes
//! (a segment long) do not ride in them. The driver gives a flow's ends a capability in
//! their `FlowContext` ([`PayloadPorts`]): the source leaves each symbol's bytes in its
//! port under the symbol's seed (unique within a flow), the sink finds there the bytes
//! that arrived with a symbol's header. Over UDP the sender's driver takes them from the
//! source's port into the datagram and the receiver's driver puts the datagram's bytes
//! into the sink's port: two stores, one per process, nothing shared. The simulator
//! carries both ends in one process and hands them one store (`in_process`), which
//! plays the path: the sink takes a symbol's bytes when its header arrives, and bytes
//! whose header was lost are dropped once symbols far newer have been taken.
//!
//! Symbols are put in seed order (each source numbers them consecutively), so the store
//! is a queue indexed by seed: no map, no allocation once its buffers exist.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Most symbols held at once (a source that puts without anything taking them).
const CAPACITY: usize = 1 << 14;
/// A symbol this many seeds older than one just taken is taken to be lost (its bytes
/// are dropped): more than any path reorders.
const REORDER: i32 = 1024;

#[derive(Debug, Default)]
struct Entry {
    bytes: Vec<u8>,
    live: bool,
}

#[derive(Debug, Default)]
struct Queue {
    /// Seed of `entries[0]`.
    first: u32,
    entries: VecDeque<Entry>,
    spare: Vec<Vec<u8>>,
}

impl Queue {
    fn pop_front(&mut self) {
        if let Some(e) = self.entries.pop_front() {
            self.spare.push(e.bytes);
            self.first = self.first.wrapping_add(1);
        }
    }
}

/// One store of symbol bytes (a handle: the driver keeps one, an endpoint another).
#[derive(Clone, Debug, Default)]
pub struct SymbolBytes(Arc<Mutex<Queue>>);

impl SymbolBytes {
    pub fn new() -> SymbolBytes {
        SymbolBytes::default()
    }

    /// Stores the bytes of symbol `seed` (`fill` writes them into a reused buffer).
    pub fn put(&self, seed: u32, fill: impl FnOnce(&mut Vec<u8>)) {
        let mut q = self.0.lock().expect("symbol bytes poisoned");
        let next = q.first.wrapping_add(q.entries.len() as u32);
        if q.entries.is_empty() || seed != next {
            // Not the next seed (a new run of seeds): start over.
            while !q.entries.is_empty() {
                q.pop_front();
            }
            q.first = seed;
        }
        if q.entries.len() == CAPACITY {
            q.pop_front();
        }
        let mut bytes = q.spare.pop().unwrap_or_default();
        bytes.clear();
        fill(&mut bytes);
        q.entries.push_back(Entry { bytes, live: true });
    }

    /// Hands the bytes of symbol `seed` to `read` and drops them; `None` if they are not
    /// held (never put, taken already, or dropped).
    pub fn take<T>(&self, seed: u32, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut q = self.0.lock().expect("symbol bytes poisoned");
        let o = seed.wrapping_sub(q.first) as usize;
        let e = q.entries.get_mut(o).filter(|e| e.live)?;
        e.live = false;
        let r = read(&e.bytes);
        // Drop what was taken, and what is so much older than this symbol that it was
        // lost (seeds compared as a signed distance: they wrap).
        while q
            .entries
            .front()
            .is_some_and(|e| !e.live || seed.wrapping_sub(q.first) as i32 > REORDER)
        {
            q.pop_front();
        }
        Some(r)
    }

    /// Copies the bytes of symbol `seed` into `out` (replacing its contents) and drops
    /// them; false if they are not held.
    pub fn take_into(&self, seed: u32, out: &mut Vec<u8>) -> bool {
        self.take(seed, |b| {
            out.clear();
            out.extend_from_slice(b);
        })
        .is_some()
    }

    /// Symbols held.
    pub fn len(&self) -> usize {
        self.0.lock().expect("symbol bytes poisoned").entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The driver's capability for symbol bytes, given to a flow's ends in their
/// `FlowContext`. A `payload = true` flow refuses to build without its ports.
#[derive(Clone, Debug, Default)]
pub struct PayloadPorts {
    /// Where the source leaves each symbol's bytes for the driver to send.
    pub source: Option<SymbolBytes>,
    /// Where the driver leaves the bytes that arrived with a symbol, for the sink.
    pub sink: Option<SymbolBytes>,
}

impl PayloadPorts {
    /// Both ends in one process (the simulator): one store carries the bytes from the
    /// source to the sink beside the packets.
    pub fn in_process() -> PayloadPorts {
        let s = SymbolBytes::new();
        PayloadPorts {
            source: Some(s.clone()),
            sink: Some(s),
        }
    }

    /// Each end its own store (a driver that moves the bytes itself, as over UDP).
    pub fn separate() -> PayloadPorts {
        PayloadPorts {
            source: Some(SymbolBytes::new()),
            sink: Some(SymbolBytes::new()),
        }
    }
}

pub(crate) const NO_PORT: &str = "payload = true needs a driver that carries symbol bytes \
    (the simulator, or tcplab send/recv): this one gave the flow no payload port";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_taken_once_and_lost_ones_are_dropped() {
        let s = SymbolBytes::new();
        s.put(7, |b| b.extend_from_slice(b"abc"));
        s.put(8, |b| b.push(1));
        s.put(9, |b| b.push(2));
        assert_eq!(s.take(7, |b| b.to_vec()), Some(b"abc".to_vec()));
        assert_eq!(s.take(7, |b| b.len()), None, "taken already");
        assert_eq!(s.take(10, |b| b.len()), None, "never put");
        // Taken out of order: the older one is still there.
        assert_eq!(s.take(9, |b| b[0]), Some(2));
        assert_eq!(s.len(), 2);
        // Symbol 8 is lost; far newer ones are taken: it is dropped.
        for seed in 10..10 + 2 * REORDER as u32 {
            s.put(seed, |b| b.push(seed as u8));
            assert_eq!(s.take(seed, |b| b[0]), Some(seed as u8));
        }
        assert_eq!(s.len(), 0, "the lost symbol's bytes are gone too");
        assert_eq!(s.take(8, |b| b.len()), None);
        // Seeds wrap.
        s.put(u32::MAX, |b| b.push(1));
        s.put(0, |b| b.push(2));
        assert_eq!(s.take(0, |b| b[0]), Some(2));
        assert_eq!(s.take(u32::MAX, |b| b[0]), Some(1));
        assert!(s.is_empty());
    }
}
