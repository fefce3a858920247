//! The medium contract: what a driver needs from anything that carries packets between
//! the nodes attached to it.
//!
//! A point-to-point link direction, a half-duplex cable both ends take turns on, and an
//! 802.11 cell whose stations contend for one channel are all media. Each attached node
//! has a [`Port`]. The driver offers a packet at the sender's port addressed to the
//! receiver's port, asks when the medium next needs it (`poll_timeout`), lets it advance
//! (`handle_timeout`: contention, backoff, retries happen here, not at admission), and
//! collects what arrived (`poll_transmit`) and what was lost after admission
//! (`poll_dropped`). Every admitted packet comes back exactly once through one of the two,
//! so a driver can account for every packet it offered.
//!
//! Built-in media are enum-dispatched by the driver; this trait is what they share and
//! what a new model (the 802.11 cell of the TACK work) implements.

use crate::admit::Admit;
use crate::link::Link;
use crate::Packet;
use tcplab_core::{Metrics, Time};

/// A node's attachment to a medium, numbered from 0 in the order the nodes were given.
pub type Port = u16;

/// A packet that reached a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery<P> {
    pub to: Port,
    pub pkt: P,
}

/// A sans-IO medium (see the module docs).
pub trait Medium<P: Packet> {
    /// Number of attached nodes.
    fn ports(&self) -> usize;
    /// Offers `pkt`, sent by the node at `from` to the node at `to`.
    fn handle_packet(&mut self, now: Time, from: Port, to: Port, pkt: P) -> Admit;
    /// Called at (or after) the time `poll_timeout` gave.
    fn handle_timeout(&mut self, _now: Time) {}
    /// The next packet that reached its port by `now`.
    fn poll_transmit(&mut self, now: Time) -> Option<Delivery<P>>;
    /// A packet lost after admission (a retry limit, an outage), once each.
    fn poll_dropped(&mut self) -> Option<P>;
    /// When the medium next needs `handle_timeout` / `poll_transmit`.
    fn poll_timeout(&self) -> Option<Time>;
    /// Results rows: a medium reports one or more channels (e.g. one per station).
    fn channels(&self) -> usize {
        1
    }
    /// The label of channel `i` in the links tables' `direction` column.
    fn channel_label(&self, i: usize) -> &'static str;
    /// Publishes channel `i`'s time-series values at `now`.
    fn sample(&mut self, i: usize, now: Time, out: &mut dyn Metrics);
    /// Publishes channel `i`'s final counters.
    fn summary(&self, i: usize, out: &mut dyn Metrics);
}

/// A link direction is the simplest medium: two ports, packets go from 0 to 1.
impl<P: Packet> Medium<P> for Link<P> {
    fn ports(&self) -> usize {
        2
    }
    #[inline]
    fn handle_packet(&mut self, now: Time, _from: Port, _to: Port, pkt: P) -> Admit {
        Link::handle_packet(self, now, pkt)
    }
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Delivery<P>> {
        Link::poll_transmit(self, now).map(|pkt| Delivery { to: 1, pkt })
    }
    fn poll_dropped(&mut self) -> Option<P> {
        Link::poll_dropped(self)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        Link::poll_timeout(self)
    }
    fn channel_label(&self, _i: usize) -> &'static str {
        "fwd"
    }
    fn sample(&mut self, _i: usize, now: Time, out: &mut dyn Metrics) {
        Link::sample(self, now, out)
    }
    fn summary(&self, _i: usize, out: &mut dyn Metrics) {
        Link::summary(self, out)
    }
}
