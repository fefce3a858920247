//! The scenario's links as media, and the packet type they carry.
//!
//! A full-duplex link becomes two [`Link`] media (one per direction, each with its own
//! random stream `link.<name>.fwd` / `.rev`); a half-duplex link becomes one
//! [`SharedLink`] whose two ports are the link's ends (stream `link.<name>.shared`). A
//! flow's route is a list of [`Step`]s: which medium, entered at which port, left at which.

use crate::scenario::{Duplex, Hop, LinkSpec};
use tcplab_core::{Metrics, Rng, Time};
use tcplab_link::{Admit, Delivery, Link, LinkParams, Medium, Port, SharedLink};
use tcplab_transport::Packet;

/// A packet in the simulator: the transport's header and where it is on its route.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pkt {
    pub body: Packet,
    pub flow: u32,
    /// Index of the step it is on, along its direction's route.
    pub hop: u16,
    /// True for packets of the sink (towards the source).
    pub to_source: bool,
}

impl tcplab_link::Packet for Pkt {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.body.wire_len()
    }
}

/// One hop as the simulator takes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub medium: u32,
    pub from: Port,
    pub to: Port,
}

/// The built-in media, dispatched statically.
pub(crate) enum AnyMedium {
    Link(Link<Pkt>),
    Shared(SharedLink<Pkt>),
}

macro_rules! dispatch {
    ($self:ident, $m:ident => $e:expr) => {
        match $self {
            AnyMedium::Link($m) => $e,
            AnyMedium::Shared($m) => $e,
        }
    };
}

impl AnyMedium {
    #[inline]
    pub fn handle_packet(&mut self, now: Time, step: Step, pkt: Pkt) -> Admit {
        dispatch!(self, m => Medium::handle_packet(m, now, step.from, step.to, pkt))
    }
    #[inline]
    pub fn handle_timeout(&mut self, now: Time) {
        dispatch!(self, m => Medium::handle_timeout(m, now))
    }
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Delivery<Pkt>> {
        dispatch!(self, m => Medium::poll_transmit(m, now))
    }
    /// Whether the medium may lose admitted packets at a wake-up (contention, retries);
    /// link directions and the shared link only lose them when their parameters change.
    #[inline]
    pub fn drops_on_timeout(&self) -> bool {
        match self {
            AnyMedium::Link(_) | AnyMedium::Shared(_) => false,
        }
    }

    pub fn poll_dropped(&mut self) -> Option<Pkt> {
        dispatch!(self, m => Medium::poll_dropped(m))
    }
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        dispatch!(self, m => Medium::poll_timeout(m))
    }
    pub fn set_params(&mut self, now: Time, p: LinkParams) {
        dispatch!(self, m => m.set_params(now, p))
    }
    pub fn sample(&mut self, now: Time, out: &mut dyn Metrics) {
        dispatch!(self, m => Medium::sample(m, 0, now, out))
    }
    pub fn summary(&self, out: &mut dyn Metrics) {
        dispatch!(self, m => Medium::summary(m, 0, out))
    }
}

/// The media of the scenario's links, and how to find them.
pub(crate) struct Wiring {
    pub media: Vec<AnyMedium>,
    /// Per medium: its link and the `direction` label of its results rows.
    pub label: Vec<(usize, &'static str)>,
    /// Per link: the medium of each direction (both the same for a half-duplex link).
    pub of_link: Vec<[u32; 2]>,
}

impl Wiring {
    pub fn new(links: &[LinkSpec], master: u64) -> Wiring {
        let mut w = Wiring {
            media: Vec::with_capacity(links.len() * 2),
            label: Vec::with_capacity(links.len() * 2),
            of_link: Vec::with_capacity(links.len()),
        };
        for (k, l) in links.iter().enumerate() {
            let id = w.media.len() as u32;
            match l.duplex {
                Duplex::Full => {
                    for (p, dir) in [(&l.fwd, "fwd"), (&l.rev, "rev")] {
                        let rng = Rng::named(master, &format!("link.{}.{dir}", l.name));
                        w.media.push(AnyMedium::Link(Link::new(p.clone(), rng)));
                        w.label.push((k, dir));
                    }
                    w.of_link.push([id, id + 1]);
                }
                Duplex::Half => {
                    let rng = Rng::named(master, &format!("link.{}.shared", l.name));
                    w.media
                        .push(AnyMedium::Shared(SharedLink::new(l.fwd.clone(), 2, rng)));
                    w.label.push((k, "shared"));
                    w.of_link.push([id, id]);
                }
            }
        }
        w
    }

    /// The step that crosses `hop` (`reverse`: in the opposite direction).
    pub fn step(&self, links: &[LinkSpec], hop: Hop, reverse: bool) -> Step {
        let forward = hop.forward != reverse;
        let [f, r] = self.of_link[hop.link];
        match links[hop.link].duplex {
            Duplex::Full => Step {
                medium: if forward { f } else { r },
                from: 0,
                to: 1,
            },
            Duplex::Half => Step {
                medium: f,
                from: if forward { 0 } else { 1 },
                to: if forward { 1 } else { 0 },
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
