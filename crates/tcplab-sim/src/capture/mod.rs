//! Packet capture: a tap that is shown every packet a link carries to its far end.
//!
//! The run loop hands each delivered packet to the [`Tap`] (if one is given) at the
//! moment it leaves the link: after queueing, serialisation and propagation, so the time
//! is its arrival at the next node and packets the link lost (queue overflow, random loss,
//! outages) never appear. [`PcapCapture`] is the tap that writes one link's packets as
//! pcapng; the encoder pieces are [`addresses`], [`headers`] and [`pcapng`].

pub use tcplab_transport::pcap::addresses;
pub mod headers;
mod pcap_capture;
pub use tcplab_core::pcapng;

pub use pcap_capture::{
    check_target, CaptureError, Directions, PcapCapture, PcapStats, DEFAULT_SNAPLEN,
};

use crate::media::{Pkt, Wiring};
use tcplab_core::Time;
use tcplab_link::Delivery;
use tcplab_transport::Packet;

/// A packet a link carried, as a tap sees it.
#[derive(Clone, Copy, Debug)]
pub struct Carried<'a> {
    /// When it left the link (arrived at the link's far end).
    pub at: Time,
    /// Index into [`crate::Scenario::links`].
    pub link: usize,
    /// True when it crossed from the link's `a` to its `b`.
    pub forward: bool,
    /// Index into [`crate::Scenario::flows`].
    pub flow: u32,
    /// True for packets of the flow's sink (travelling towards its source).
    pub from_sink: bool,
    pub packet: &'a Packet,
}

/// Sees the packets links carry. Sans-IO: it is handed packets and times, it reads no
/// clock; what it does with them (write a file, count) is its own affair.
pub trait Tap {
    fn carried(&mut self, p: &Carried<'_>);
}

/// The run loop's hook: shows `d`, just delivered by medium `medium`, to `tap`.
#[inline]
pub(crate) fn offer(
    tap: &mut dyn Tap,
    at: Time,
    wiring: &Wiring,
    medium: usize,
    d: &Delivery<Pkt>,
    packet: &Packet,
) {
    let (link, label) = wiring.label[medium];
    if link == usize::MAX {
        return; // a WLAN cell: not capturable (check_target refuses its links)
    }
    let forward = match label {
        "fwd" => true,
        "rev" => false,
        // A shared (half-duplex) link: port 0 is its `a` end, port 1 its `b` end.
        _ => d.to == 1,
    };
    // A discipline's CE mark travels in the handle until the endpoint's header gets it.
    let marked;
    let packet = if d.pkt.ce() {
        marked = {
            let mut p = *packet;
            p.set_ce();
            p
        };
        &marked
    } else {
        packet
    };
    tap.carried(&Carried {
        at,
        link,
        forward,
        flow: d.pkt.flow() as u32,
        from_sink: d.pkt.to_source(),
        packet,
    });
}
