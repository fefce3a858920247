//! The network a run's packets cross: the media, the routes through them, the packets in
//! flight, and the event queue that wakes media and endpoints.
//!
//! [`Net`] is everything on a packet's way except the flows, so the loop can hold one
//! flow and the network at once: while an endpoint is polled, the packets it sends are
//! admitted to their first medium.
//!
//! Every component exposes `poll_timeout`; the network keeps one pending wake-up per
//! component and pushes a new one only when the component wants to wake earlier. A
//! wake-up that no longer matches the component's slot is stale and skipped, so timers
//! that move later (an RTO restarted on every ACK) cost no queue operations.

use crate::event::EventQueue;
use crate::media::{Pkt, Step, Wiring};
use crate::packets::PacketStore;
use std::num::NonZeroU32;
use tcplab_core::Time;
use tcplab_link::{Admit, FifoSpares};
use tcplab_scenario::{Hop, LinkSpec};

/// No wake-up pending: a medium's in [`Net::medium_wake`], an endpoint's in its flow.
/// No run reaches `Time::MAX` (its end is earlier), so a wake-up asked for at
/// `Time::MAX` would never run, and is not scheduled.
pub(crate) const NO_WAKE: Time = Time::MAX;

/// What an event queue item wakes. Items are numbered: media first (the item is the
/// medium's index: the loop's common event, told apart with one comparison), then
/// endpoint `2·flow + side`, then the run's other events (starts, stops, link changes,
/// samples), numbered by the run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Item {
    Medium(usize),
    Endpoint { flow: usize, side: usize },
    Other(usize),
}

pub(crate) struct Net {
    pub now: Time,
    pub queue: EventQueue,
    pub wiring: Wiring,
    /// Pending wake-up of each medium, [`NO_WAKE`] if none.
    pub medium_wake: Vec<Time>,
    /// Every flow's two routes, each a run of steps ended by [`Step::END`]. Index 0 is
    /// [`Step::END`] too, never a packet's step: the niche that keeps a link's FIFO entry
    /// (an `Option<Pkt>` inside) at 32 bytes.
    pub routes: Vec<Step>,
    pub packets: PacketStore,
    /// Buffers of emptied link FIFOs, for the next link direction that starts one.
    pub spares: FifoSpares<Pkt>,
    /// Packets delivered across one medium (the run info's `packet_hops`).
    pub hops: u64,
    /// The first endpoint item, and the first of the other events.
    ends_base: u32,
    others_base: u32,
}

impl Net {
    /// The network of `wiring` for `flows` flows (their routes added with
    /// [`Net::add_routes`]).
    pub fn new(wiring: Wiring, flows: usize) -> Net {
        let ends_base = wiring.media.len() as u32;
        Net {
            now: Time::ZERO,
            queue: EventQueue::with_capacity(1024),
            medium_wake: vec![NO_WAKE; wiring.media.len()],
            wiring,
            routes: vec![Step::END],
            packets: PacketStore::default(),
            spares: FifoSpares::default(),
            hops: 0,
            ends_base,
            others_base: ends_base + 2 * flows as u32,
        }
    }

    /// Adds a flow's two routes over `path` (there, then back); returns each one's first
    /// step.
    pub fn add_routes(&mut self, links: &[LinkSpec], path: &[Hop]) -> [NonZeroU32; 2] {
        [false, true].map(|reverse| {
            let first = NonZeroU32::new(self.routes.len() as u32).expect("step 0 is taken");
            let start = self.routes.len();
            let wiring = &self.wiring;
            self.routes
                .extend(path.iter().map(|&h| wiring.step(links, h, reverse)));
            if reverse {
                self.routes[start..].reverse();
            }
            self.routes.push(Step::END);
            first
        })
    }

    /// What queue item `item` wakes.
    #[inline(always)]
    pub fn item(&self, item: u32) -> Item {
        if item < self.ends_base {
            Item::Medium(item as usize)
        } else if item < self.others_base {
            let e = (item - self.ends_base) as usize;
            Item::Endpoint {
                flow: e / 2,
                side: e % 2,
            }
        } else {
            Item::Other((item - self.others_base) as usize)
        }
    }

    /// Schedules the run's other event number `k` at `t`.
    pub fn schedule_other(&mut self, t: Time, k: usize) {
        self.queue.push(t, self.others_base + k as u32);
    }

    /// Schedules medium `m`'s next wake-up (its `poll_timeout`) if that is earlier than
    /// the pending one.
    #[inline(always)]
    pub fn schedule_medium(&mut self, m: usize) {
        self.schedule_medium_at(m, self.wiring.media[m].poll_timeout());
    }

    /// [`Net::schedule_medium`] with the medium's `poll_timeout`, `next`, already asked.
    /// Inlined: it runs twice per packet hop, and out of line the call and its register
    /// saves were about 15 of its 45 instructions.
    #[inline(always)]
    pub fn schedule_medium_at(&mut self, m: usize, next: Option<Time>) {
        if let Some(t) = next {
            if t < self.medium_wake[m] {
                self.medium_wake[m] = t;
                self.queue.push(t, m as u32);
            }
        }
    }

    /// Schedules the wake-up of `side` of `flow` at `next` (its `poll_timeout`, never
    /// before now) if that is earlier than the pending one, `wake`.
    #[inline(always)]
    pub fn schedule_endpoint(&mut self, wake: &mut Time, flow: usize, side: usize, next: Time) {
        let t = next.max(self.now);
        if t < *wake {
            *wake = t;
            self.queue
                .push(t, self.ends_base + (2 * flow + side) as u32);
        }
    }

    /// Offers `p` to medium `m` (the medium of its step). False if the medium dropped
    /// it: its slot is then free, and the caller counts the drop.
    #[inline(always)]
    pub fn admit(&mut self, m: usize, p: Pkt) -> bool {
        let now = self.now;
        let medium = &mut self.wiring.media[m];
        // The pending wake-up is never later than the medium's next one, so when the
        // admission cannot move that, scheduling would do nothing. A link direction
        // (nearly every hop) is matched once, not once per call.
        let (keeps, admit) = match medium.as_link() {
            Some(link) => (
                link.admission_keeps_timeout(),
                link.handle_packet_spared(now, p, &mut self.spares),
            ),
            None => (
                false,
                medium.handle_packet(now, self.routes[p.step.get() as usize], p),
            ),
        };
        if !keeps {
            self.schedule_medium(m);
        }
        if admit == Admit::Queued {
            return true;
        }
        self.packets.free(p.slot);
        false
    }

    /// Frees the packets medium `m` lost after admission (a cell's contention, a link's
    /// outage) and returns them, one by one, for the caller to count.
    pub fn poll_dropped(&mut self, m: usize) -> Option<Pkt> {
        let p = self.wiring.media[m].poll_dropped()?;
        self.packets.free(p.slot);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_has_its_routes_there_and_back_each_ended() {
        let text = include_str!("../../../python/tcplab/data/b2.toml");
        let sc =
            crate::parse_scenario_str(&text.replace("count = 100", "count = 3"), "b2").unwrap();
        let mut net = Net::new(Wiring::new(&sc, 1), sc.flows.len());
        assert_eq!(net.routes[0].medium, Step::END.medium);
        for f in &sc.flows {
            let [there, back] = net.add_routes(&sc.links, &f.path).map(|s| s.get() as usize);
            let hops = f.path.len();
            assert_eq!(back, there + hops + 1);
            assert_eq!(net.routes[there + hops].medium, Step::END.medium);
            assert_eq!(net.routes[back + hops].medium, Step::END.medium);
            for (k, &h) in f.path.iter().enumerate() {
                let fwd = net.wiring.step(&sc.links, h, false).medium;
                let rev = net.wiring.step(&sc.links, h, true).medium;
                assert_eq!(net.routes[there + k].medium, fwd);
                assert_eq!(net.routes[back + hops - 1 - k].medium, rev);
            }
        }
        assert_eq!(net.routes.len(), 1 + sc.flows.len() * 2 * (3 + 1));
    }

    #[test]
    fn items_are_media_then_endpoints_then_other_events() {
        let sc = crate::parse_scenario_str(
            "[link]\nrate = \"1Mbps\"\n[[flow]]\nbytes = \"1MiB\"\n",
            "one",
        )
        .unwrap();
        let net = Net::new(Wiring::new(&sc, 1), 1);
        assert!(matches!(net.item(0), Item::Medium(0)));
        assert!(matches!(net.item(1), Item::Medium(1)));
        assert!(matches!(net.item(2), Item::Endpoint { flow: 0, side: 0 }));
        assert!(matches!(net.item(3), Item::Endpoint { flow: 0, side: 1 }));
        assert!(matches!(net.item(4), Item::Other(0)));
        assert!(matches!(net.item(9), Item::Other(5)));
    }
}
