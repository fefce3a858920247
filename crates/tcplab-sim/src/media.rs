//! The scenario's links as media, and the packet type they carry.
//!
//! A full-duplex link becomes two [`Link`] media (one per direction, each with its own
//! random stream `link.<name>.fwd` / `.rev`); a half-duplex link becomes one
//! [`SharedLink`] whose two ports are the link's ends (stream `link.<name>.shared`); a
//! WLAN cell becomes one [`Wlan`] whose ports are its access point and stations (stream
//! `wlan.<name>`), shared by the links of its associations. A flow's route is a list of
//! [`Step`]s: which medium, entered at which port, left at which.

use std::num::NonZeroU32;
use std::sync::Arc;
use tcplab_core::{Metrics, Rng, Time};
use tcplab_link::{Admit, Delivery, Link, LinkParams, Medium, Port, SharedLink, Wlan};
use tcplab_scenario::{Duplex, Hop, LinkSpec, Scenario};

/// A packet as media carry it: where its header is stored ([`crate::packets`]), its size
/// on the wire, where it is on its route, and (in one word) its flow, direction and
/// whether it carries payload.
///
/// 16 bytes, so that a link's FIFO entry and the event path move a quarter of a cache
/// line per packet: the step and the size are read on every hop, the flow and direction
/// only at delivery and on a drop, the payload flag only by a WLAN cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pkt {
    pub slot: u32,
    /// Index in the network's routes (`Net::routes`) of the step it is on (never 0: the niche
    /// that keeps a link's FIFO entry, which holds an `Option<Pkt>`, at 32 bytes).
    pub step: NonZeroU32,
    pub wire_len: u32,
    /// The flow in the low 28 bits, then [`Pkt::ECT`], [`Pkt::CE`], [`Pkt::TO_SOURCE`]
    /// and [`Pkt::PAYLOAD`].
    tag: u32,
}

impl Pkt {
    /// Set for ECN-capable packets (ECT(0), ECT(1) or CE in their IP header).
    const ECT: u32 = 1 << 28;
    /// Set when a queue discipline marked it Congestion Experienced on the way: the
    /// stored header gets CE when it reaches its endpoint ([`Pkt::ce`]).
    const CE: u32 = 1 << 29;
    /// Set for packets of the sink (towards the source).
    const TO_SOURCE: u32 = 1 << 30;
    /// Set for packets that carry transport payload (clear: a pure acknowledgement).
    const PAYLOAD: u32 = 1 << 31;
    /// Flows a run may have: their indices fit below the flags. The simulator refuses
    /// more (a run that large would need terabytes).
    pub const MAX_FLOWS: usize = 1 << 28;

    /// A packet of `flow` (below [`Pkt::MAX_FLOWS`]) in its store slot `slot`, on step `step`.
    #[inline(always)]
    pub fn new(
        slot: u32,
        step: NonZeroU32,
        wire_len: u32,
        flow: u32,
        to_source: bool,
        payload: bool,
        ect: bool,
    ) -> Pkt {
        debug_assert!((flow as usize) < Pkt::MAX_FLOWS);
        let tag = flow
            | if to_source { Pkt::TO_SOURCE } else { 0 }
            | if payload { Pkt::PAYLOAD } else { 0 }
            | if ect { Pkt::ECT } else { 0 };
        Pkt {
            slot,
            step,
            wire_len,
            tag,
        }
    }

    /// Index of its flow.
    #[inline(always)]
    pub fn flow(self) -> usize {
        (self.tag & (Pkt::MAX_FLOWS as u32 - 1)) as usize
    }

    /// A queue discipline marked it Congestion Experienced.
    #[inline(always)]
    pub fn ce(self) -> bool {
        self.tag & Pkt::CE != 0
    }

    /// True for packets of the sink (towards the source).
    #[inline(always)]
    pub fn to_source(self) -> bool {
        self.tag & Pkt::TO_SOURCE != 0
    }
}

impl tcplab_link::Packet for Pkt {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.wire_len
    }
    #[inline]
    fn carries_payload(&self) -> bool {
        self.tag & Pkt::PAYLOAD != 0
    }
    /// The flow and its direction (FQ-CoDel's hash key).
    #[inline]
    fn flow_key(&self) -> u64 {
        (self.tag & (Pkt::TO_SOURCE | (Pkt::MAX_FLOWS as u32 - 1))) as u64
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        self.tag & Pkt::ECT != 0
    }
    #[inline]
    fn set_ce(&mut self) {
        self.tag |= Pkt::CE;
    }
}

/// One hop as the simulator takes it. Each route ends with [`Step::END`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub medium: u32,
    pub from: Port,
    pub to: Port,
}

impl Step {
    /// The end of a route: the packet has reached its endpoint.
    pub const END: Step = Step {
        medium: u32::MAX,
        from: 0,
        to: 0,
    };
}

/// The built-in media, dispatched statically.
///
/// Everything but the plain link direction is boxed, so the enum needs no tag of its
/// own (it lives in a niche of the link) and is exactly as large as a [`Link`]: a tag
/// beside the cache-line-aligned link would take a line of its own, and one more cache
/// miss per packet hop once thousands of links no longer fit in cache.
#[allow(clippy::large_enum_variant)] // on purpose: the links are the media that matter
pub(crate) enum AnyMedium {
    Link(Link<Pkt>),
    /// Boxed: half-duplex links are few.
    Shared(Box<SharedLink<Pkt>>),
    /// Boxed: a cell is larger than a plain link direction, and there are few cells.
    Wlan(Box<Wlan<Pkt>>),
}

impl AnyMedium {
    /// The link direction, if this medium is one: the loop's fast path for the medium
    /// nearly every packet hop wakes.
    #[inline(always)]
    pub fn as_link(&mut self) -> Option<&mut Link<Pkt>> {
        match self {
            AnyMedium::Link(l) => Some(l),
            AnyMedium::Shared(_) | AnyMedium::Wlan(_) => None,
        }
    }
    #[inline]
    pub fn handle_packet(&mut self, now: Time, step: Step, pkt: Pkt) -> Admit {
        match self {
            AnyMedium::Link(m) => Medium::handle_packet(m, now, step.from, step.to, pkt),
            AnyMedium::Shared(m) => Medium::handle_packet(m.as_mut(), now, step.from, step.to, pkt),
            AnyMedium::Wlan(m) => Medium::handle_packet(m.as_mut(), now, step.from, step.to, pkt),
        }
    }
    #[inline]
    pub fn handle_timeout(&mut self, now: Time) {
        match self {
            AnyMedium::Link(m) => Medium::handle_timeout(m, now),
            AnyMedium::Shared(m) => Medium::handle_timeout(m.as_mut(), now),
            AnyMedium::Wlan(m) => Medium::handle_timeout(m.as_mut(), now),
        }
    }
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Delivery<Pkt>> {
        match self {
            AnyMedium::Link(m) => Medium::poll_transmit(m, now),
            AnyMedium::Shared(m) => Medium::poll_transmit(m.as_mut(), now),
            AnyMedium::Wlan(m) => Medium::poll_transmit(m.as_mut(), now),
        }
    }
    /// Whether the medium may lose admitted packets at a wake-up (contention, retries);
    /// link directions and the shared link only lose them when their parameters change.
    #[inline]
    pub fn drops_on_timeout(&self) -> bool {
        match self {
            AnyMedium::Link(_) | AnyMedium::Shared(_) => false,
            AnyMedium::Wlan(_) => true,
        }
    }

    pub fn poll_dropped(&mut self) -> Option<Pkt> {
        match self {
            AnyMedium::Link(m) => Medium::poll_dropped(m),
            AnyMedium::Shared(m) => Medium::poll_dropped(m.as_mut()),
            AnyMedium::Wlan(m) => Medium::poll_dropped(m.as_mut()),
        }
    }
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            AnyMedium::Link(m) => Medium::poll_timeout(m),
            AnyMedium::Shared(m) => Medium::poll_timeout(m.as_ref()),
            AnyMedium::Wlan(m) => Medium::poll_timeout(m.as_ref()),
        }
    }
    /// Applies a scheduled change (links only: cells have no schedules).
    pub fn set_params(&mut self, now: Time, p: LinkParams) {
        match self {
            AnyMedium::Link(m) => m.set_params(now, p),
            AnyMedium::Shared(m) => m.set_params(now, p),
            AnyMedium::Wlan(_) => unreachable!("WLAN links have no schedule"),
        }
    }
    pub fn sample(&mut self, channel: usize, now: Time, out: &mut dyn Metrics) {
        match self {
            AnyMedium::Link(m) => Medium::sample(m, channel, now, out),
            AnyMedium::Shared(m) => Medium::sample(m.as_mut(), channel, now, out),
            AnyMedium::Wlan(m) => Medium::sample(m.as_mut(), channel, now, out),
        }
    }
    pub fn summary(&self, channel: usize, out: &mut dyn Metrics) {
        match self {
            AnyMedium::Link(m) => Medium::summary(m, channel, out),
            AnyMedium::Shared(m) => Medium::summary(m.as_ref(), channel, out),
            AnyMedium::Wlan(m) => Medium::summary(m.as_ref(), channel, out),
        }
    }
}

/// The last few distinct link parameters made into `Arc`s, so link directions with equal
/// parameters (a generated topology's access links) share one copy. Only the last few:
/// a topology of all-different links costs no quadratic search.
#[derive(Default)]
struct RecentParams(Vec<Arc<LinkParams>>);

impl RecentParams {
    const KEEP: usize = 4;

    fn share(&mut self, p: &LinkParams) -> Arc<LinkParams> {
        if let Some(a) = self.0.iter().find(|a| ***a == *p) {
            return a.clone();
        }
        if self.0.len() == Self::KEEP {
            self.0.remove(0);
        }
        let a = Arc::new(p.clone());
        self.0.push(a.clone());
        a
    }
}

/// One row of the links tables: a channel of a medium.
///
/// Its names are looked up in the scenario when a row is written ([`Channel::names`]),
/// not copied into strings here: four link directions per flow made these copies a few
/// hundred bytes of every flow's memory.
pub(crate) struct Channel {
    pub medium: u32,
    pub channel: u16,
    name: ChannelName,
}

/// Where a channel's `link` and `direction` columns come from.
enum ChannelName {
    /// A link (index in `Scenario::links`) and its direction (`fwd`, `rev`, `shared`).
    Link(u32, &'static str),
    /// A cell (index in `Scenario::wlans`) and the node (index in `Scenario::nodes`)
    /// the channel belongs to.
    Cell(u32, u32),
}

impl Channel {
    /// The `link` column (the link's or the cell's name) and the `direction` column
    /// (`fwd`, `rev`, `shared`, or the node a cell's channel belongs to).
    pub fn names<'s>(&self, sc: &'s Scenario) -> (&'s str, &'s str) {
        match self.name {
            ChannelName::Link(k, dir) => (&sc.links[k as usize].name, dir),
            ChannelName::Cell(c, n) => (&sc.wlans[c as usize].name, &sc.nodes[n as usize].name),
        }
    }
}

/// The media of the scenario's links and cells, and how to find them.
pub(crate) struct Wiring {
    pub media: Vec<AnyMedium>,
    /// The links tables' rows, in medium order.
    pub rows: Vec<Channel>,
    /// Per link: the medium of each direction (one shared medium for half-duplex links and
    /// WLAN associations).
    pub of_link: Vec<[u32; 2]>,
    /// Per medium: its link and direction (`usize::MAX` for a WLAN cell, which serves
    /// several links).
    pub label: Vec<(usize, &'static str)>,
    /// Per link: the ports of its `a` and `b` ends on that medium.
    ports: Vec<[Port; 2]>,
}

impl Wiring {
    pub fn new(sc: &Scenario, master: u64) -> Wiring {
        let links = &sc.links;
        let mut w = Wiring {
            media: Vec::with_capacity(links.len() * 2),
            rows: Vec::with_capacity(links.len() * 2),
            of_link: Vec::with_capacity(links.len()),
            label: Vec::with_capacity(links.len() * 2),
            ports: vec![[0, 1]; links.len()],
        };
        let row = |medium: usize, channel: u16, name: ChannelName| Channel {
            medium: medium as u32,
            channel,
            name,
        };
        let mut recent = RecentParams::default();
        for (k, l) in links.iter().enumerate() {
            let id = w.media.len() as u32;
            match l.duplex {
                Duplex::Full => {
                    for (p, dir) in [(&l.fwd, "fwd"), (&l.rev, "rev")] {
                        let rng = Rng::named_parts(master, &["link.", &l.name, ".", dir]);
                        w.rows
                            .push(row(w.media.len(), 0, ChannelName::Link(k as u32, dir)));
                        w.label.push((k, dir));
                        w.media
                            .push(AnyMedium::Link(Link::new(recent.share(p), rng)));
                    }
                    w.of_link.push([id, id + 1]);
                }
                Duplex::Half => {
                    let rng = Rng::named_parts(master, &["link.", &l.name, ".shared"]);
                    w.rows
                        .push(row(w.media.len(), 0, ChannelName::Link(k as u32, "shared")));
                    w.label.push((k, "shared"));
                    w.media.push(AnyMedium::Shared(Box::new(SharedLink::new(
                        l.fwd.clone(),
                        2,
                        rng,
                    ))));
                    w.of_link.push([id, id]);
                }
                // Filled in below, once the cells have media.
                Duplex::Wlan(_) => w.of_link.push([u32::MAX; 2]),
            }
        }
        let mut cell_medium = Vec::with_capacity(sc.wlans.len());
        for (ci, c) in sc.wlans.iter().enumerate() {
            let id = w.media.len();
            let rng = Rng::named_parts(master, &["wlan.", &c.name]);
            let mut m = Wlan::new(c.params.clone(), c.nodes.len(), rng);
            for (port, &per) in c.per.iter().enumerate() {
                m.set_per(port as Port, per);
            }
            for (port, &node) in c.nodes.iter().enumerate() {
                let name = ChannelName::Cell(ci as u32, node as u32);
                w.rows.push(row(id, port as u16, name));
            }
            w.media.push(AnyMedium::Wlan(Box::new(m)));
            w.label.push((usize::MAX, "wlan"));
            cell_medium.push(id as u32);
        }
        for (k, l) in links.iter().enumerate() {
            if let Duplex::Wlan(c) = l.duplex {
                let port = |n: usize| {
                    sc.wlans[c]
                        .nodes
                        .iter()
                        .position(|&x| x == n)
                        .expect("a cell node") as Port
                };
                w.of_link[k] = [cell_medium[c]; 2];
                w.ports[k] = [port(l.a), port(l.b)];
            }
        }
        w
    }

    /// The step that crosses `hop` (`reverse`: in the opposite direction).
    pub fn step(&self, links: &[LinkSpec], hop: Hop, reverse: bool) -> Step {
        let forward = hop.forward != reverse;
        let [f, r] = self.of_link[hop.link];
        let [pa, pb] = self.ports[hop.link];
        match links[hop.link].duplex {
            Duplex::Full => Step {
                medium: if forward { f } else { r },
                from: 0,
                to: 1,
            },
            Duplex::Half | Duplex::Wlan(_) => Step {
                medium: f,
                from: if forward { pa } else { pb },
                to: if forward { pb } else { pa },
            },
        }
    }

    /// Applies a scheduled change of link `k`.
    pub fn set_link_params(&mut self, now: Time, k: usize, fwd: &LinkParams, rev: &LinkParams) {
        let [f, r] = self.of_link[k];
        self.media[f as usize].set_params(now, fwd.clone());
        if r != f {
            self.media[r as usize].set_params(now, rev.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_link_parameters_are_stored_once() {
        let mut r = RecentParams::default();
        let a = LinkParams::new(1_000_000, tcplab_core::Dur::from_millis(1));
        let b = LinkParams::new(2_000_000, tcplab_core::Dur::from_millis(1));
        let (a1, b1, a2) = (r.share(&a), r.share(&b), r.share(&a.clone()));
        assert!(Arc::ptr_eq(&a1, &a2));
        assert!(!Arc::ptr_eq(&a1, &b1));
        assert_eq!(*b1, b);
    }

    #[test]
    fn a_packet_handle_is_16_bytes_and_keeps_its_flow_and_flags() {
        use tcplab_link::Packet;
        assert_eq!(std::mem::size_of::<Pkt>(), 16);
        assert_eq!(std::mem::size_of::<Option<Pkt>>(), 16);
        let last = (Pkt::MAX_FLOWS - 1) as u32;
        for (flow, to_source, payload, ect) in [
            (0, false, false, false),
            (7, true, false, true),
            (last, true, true, false),
            (last, false, true, true),
        ] {
            let step = NonZeroU32::new(4).unwrap();
            let mut p = Pkt::new(3, step, 1500, flow, to_source, payload, ect);
            assert_eq!((p.slot, p.step.get(), p.wire_len()), (3, 4, 1500));
            assert_eq!(p.flow(), flow as usize);
            assert_eq!(p.to_source(), to_source);
            assert_eq!(p.carries_payload(), payload);
            assert_eq!((p.ecn_capable(), p.ce()), (ect, false));
            let key = p.flow_key();
            p.set_ce();
            assert_eq!((p.flow(), p.ce(), p.flow_key()), (flow as usize, true, key));
        }
    }

    #[test]
    fn a_medium_is_as_large_as_a_link_direction() {
        assert_eq!(
            std::mem::size_of::<AnyMedium>(),
            std::mem::size_of::<Link<Pkt>>()
        );
    }
}
