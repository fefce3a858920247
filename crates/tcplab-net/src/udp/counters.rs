//! Every datagram a session receives is counted once: accepted, or rejected for a reason.

use crate::wire::mac::{self, Key};
use crate::wire::WireError;

/// Per-cause counts of received datagrams (bounded: counters, never buffers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputCounters {
    /// Valid, from the peer, for this connection, and used.
    pub accepted: u64,
    /// From an address other than the peer's.
    pub wrong_source: u64,
    /// With a key: no MAC, or one that does not verify. Without a key: a datagram that
    /// carries a MAC (its sender has a key this side lacks).
    pub bad_mac: u64,
    /// Not a decodable wire-format datagram (see the `malformed_*` causes).
    pub malformed_truncated: u64,
    pub malformed_magic: u64,
    pub malformed_version: u64,
    pub malformed_type: u64,
    pub malformed_option: u64,
    pub malformed_field: u64,
    /// Valid, from the peer's address, but for another connection id.
    pub unknown_conn: u64,
    /// Valid, but not a message this side expects now (e.g. DATA at a sender).
    pub unexpected: u64,
    /// A HELLO refused: its flow table is unreadable, disagrees with the HELLO, asks
    /// for more state than a session may hold, or its connection was served before.
    pub refused_hello: u64,
    /// Sequence or acknowledgement numbers outside what the connection allows
    /// (beyond the window or the data sent, misaligned, wrong length).
    pub out_of_window: u64,
    /// Older than the newest timestamp already accepted (PAWS, RFC 7323): replays.
    pub replayed: u64,
    /// Data whose payload bytes are not the transfer's.
    pub corrupt_payload: u64,
}

impl InputCounters {
    /// The first receiving rules (docs/wire-format.md): the datagram must come from
    /// `peer` (when one is known), verify under `key` with the session nonce `nonce`
    /// (with a key; without one it must carry no MAC), and decode. Counts the rejection
    /// and returns `None`.
    pub fn screen<'a>(
        &mut self,
        peer: Option<std::net::SocketAddr>,
        from: std::net::SocketAddr,
        bytes: &'a [u8],
        key: Option<&Key>,
        nonce: u64,
    ) -> Option<crate::wire::Message<'a>> {
        if peer.is_some_and(|p| p != from) {
            self.wrong_source += 1;
            return None;
        }
        let body = match key {
            Some(k) => {
                let ty = bytes.get(3).copied().unwrap_or(0);
                k.open(mac::nonce_for(ty, nonce), bytes)
            }
            None => (!mac::is_sealed(bytes)).then_some(bytes),
        };
        let Some(bytes) = body else {
            self.bad_mac += 1;
            return None;
        };
        match crate::wire::decode(bytes) {
            Ok(m) => Some(m),
            Err(e) => {
                self.malformed(&e);
                None
            }
        }
    }

    pub fn malformed(&mut self, e: &WireError) {
        match e {
            WireError::Truncated { .. } => self.malformed_truncated += 1,
            WireError::BadMagic(_) => self.malformed_magic += 1,
            WireError::UnsupportedVersion(_) => self.malformed_version += 1,
            WireError::UnknownType(_) => self.malformed_type += 1,
            WireError::BadOption { .. } => self.malformed_option += 1,
            WireError::Invalid(_) | WireError::BufferTooSmall { .. } => self.malformed_field += 1,
        }
    }

    /// "12 accepted, 3 wrong_source": the non-zero counts, for error messages.
    pub fn summary(&self) -> String {
        let v: Vec<String> = self
            .pairs()
            .iter()
            .filter(|(k, n)| *n > 0 || *k == "accepted")
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        v.join(", ")
    }

    pub fn rejected(&self) -> u64 {
        self.total() - self.accepted
    }

    pub fn total(&self) -> u64 {
        self.pairs().iter().map(|(_, v)| v).sum()
    }

    /// (name, count) for reports.
    pub fn pairs(&self) -> [(&'static str, u64); 15] {
        [
            ("accepted", self.accepted),
            ("wrong_source", self.wrong_source),
            ("bad_mac", self.bad_mac),
            ("malformed_truncated", self.malformed_truncated),
            ("malformed_magic", self.malformed_magic),
            ("malformed_version", self.malformed_version),
            ("malformed_type", self.malformed_type),
            ("malformed_option", self.malformed_option),
            ("malformed_field", self.malformed_field),
            ("unknown_conn", self.unknown_conn),
            ("unexpected", self.unexpected),
            ("refused_hello", self.refused_hello),
            ("out_of_window", self.out_of_window),
            ("replayed", self.replayed),
            ("corrupt_payload", self.corrupt_payload),
        ]
    }
}

/// PAWS (RFC 7323): a timestamp older than the newest accepted one marks a replay or a
/// stale duplicate. Timestamps are each peer's nanosecond clock, strictly increasing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Paws {
    recent: Option<u64>,
}

impl Paws {
    /// True if `tsval` is acceptable (not older than, nor equal to, the newest seen).
    pub fn fresh(&self, tsval: u64) -> bool {
        self.recent.is_none_or(|r| tsval > r)
    }

    pub fn update(&mut self, tsval: u64) {
        self.recent = Some(self.recent.map_or(tsval, |r| r.max(tsval)));
    }

    pub fn recent(&self) -> Option<u64> {
        self.recent
    }
}

/// Strictly increasing timestamps from a clock that may return the same value twice.
#[derive(Clone, Copy, Debug, Default)]
pub struct TsClock {
    last: u64,
}

impl TsClock {
    pub fn stamp(&mut self, now_ns: u64) -> u64 {
        self.last = now_ns.max(self.last + 1);
        self.last
    }
}

/// Which of the last [`SeenWindow::SPAN`] datagram sequence numbers arrived: a repeat
/// is a replay, and anything older than the window is treated as one (bounded memory).
#[derive(Clone, Debug)]
pub struct SeenWindow {
    /// Highest sequence number seen plus one (0: none yet).
    top: u64,
    bits: [u64; SeenWindow::SPAN as usize / 64],
}

impl Default for SeenWindow {
    fn default() -> Self {
        SeenWindow {
            top: 0,
            bits: [0; SeenWindow::SPAN as usize / 64],
        }
    }
}

impl SeenWindow {
    pub const SPAN: u64 = 4096;

    fn slot(seq: u64) -> (usize, u64) {
        (((seq / 64) % (Self::SPAN / 64)) as usize, 1 << (seq % 64))
    }

    /// True if `seq` has not been seen and is not older than the window.
    pub fn fresh(&self, seq: u64) -> bool {
        if seq >= self.top {
            return true;
        }
        if self.top - seq > Self::SPAN {
            return false;
        }
        let (w, b) = Self::slot(seq);
        self.bits[w] & b == 0
    }

    pub fn insert(&mut self, seq: u64) {
        if seq >= self.top {
            // Clear the slots the window slides over.
            let from = self.top.max(seq.saturating_sub(Self::SPAN - 1));
            for s in from..seq {
                let (w, b) = Self::slot(s);
                self.bits[w] &= !b;
            }
            self.top = seq + 1;
        }
        let (w, b) = Self::slot(seq);
        self.bits[w] |= b;
    }
}

#[cfg(test)]
mod tests {
    use super::SeenWindow;

    #[test]
    fn seen_window_flags_repeats_and_old_numbers() {
        let mut s = SeenWindow::default();
        for q in [0, 1, 5, 3] {
            assert!(s.fresh(q));
            s.insert(q);
        }
        assert!(!s.fresh(5) && !s.fresh(0));
        assert!(s.fresh(2) && s.fresh(4) && s.fresh(6));
        s.insert(10_000);
        assert!(!s.fresh(3), "older than the window");
        assert!(s.fresh(9_999) && !s.fresh(10_000));
        s.insert(9_999);
        assert!(!s.fresh(9_999));
        // Slots reused after the slide start empty.
        assert!(s.fresh(10_000 + SeenWindow::SPAN - 1));
    }
}
