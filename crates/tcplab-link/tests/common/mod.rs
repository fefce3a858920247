//! Shared by the link integration tests: a numbered packet and a driver loop.

use tcplab_core::Time;
use tcplab_link::{Link, Packet};

/// Packet `(id, wire length)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pkt(pub u32, pub u32);
impl Packet for Pkt {
    fn wire_len(&self) -> u32 {
        self.1
    }
}

/// Collects everything as a driver would: wake at `poll_timeout`, take all that is due.
pub fn drain(l: &mut Link<Pkt>) -> Vec<(Time, u32)> {
    let mut out = vec![];
    while let Some(t) = l.poll_timeout() {
        while let Some(p) = l.poll_transmit(t) {
            out.push((t, p.0));
        }
    }
    out
}
