//! A trivially shared medium: one FIFO transmitter serving every attached node.
//!
//! A half-duplex link is the two-port case: data and ACKs take turns on one wire, so each
//! ACK delays the data behind it by its serialisation time (the effect that, with channel
//! access on top, makes ACKs expensive on 802.11). With more ports it is a hub: whatever
//! any node sends waits in the one queue and is delivered to the addressed port.

use crate::admit::Admit;
use crate::link::Link;
use crate::medium::{Delivery, Medium, Port};
use crate::params::LinkParams;
use crate::Packet;
use tcplab_core::{Metrics, Rng, Time};

/// A packet with the port it is addressed to.
#[derive(Clone, Copy, Debug)]
struct Addressed<P> {
    to: Port,
    pkt: P,
}

impl<P: Packet> Packet for Addressed<P> {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.pkt.wire_len()
    }
}

/// One FIFO, one rate, one loss process for every node attached (see the module docs).
#[derive(Debug)]
pub struct SharedLink<P> {
    link: Link<Addressed<P>>,
    ports: usize,
}

impl<P: Packet> SharedLink<P> {
    /// `ports` nodes (at least 2) share one transmitter with `params`.
    pub fn new(params: LinkParams, ports: usize, rng: Rng) -> Self {
        assert!(ports >= 2, "a shared medium connects at least two nodes");
        SharedLink {
            link: Link::new(params, rng),
            ports,
        }
    }

    pub fn params(&self) -> &LinkParams {
        self.link.params()
    }

    pub fn set_params(&mut self, now: Time, params: LinkParams) {
        self.link.set_params(now, params);
    }
}

impl<P: Packet> Medium<P> for SharedLink<P> {
    fn ports(&self) -> usize {
        self.ports
    }
    fn handle_packet(&mut self, now: Time, from: Port, to: Port, pkt: P) -> Admit {
        debug_assert!(from != to && (to as usize) < self.ports, "bad addressing");
        self.link.handle_packet(now, Addressed { to, pkt })
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Delivery<P>> {
        self.link.poll_transmit(now).map(|a| Delivery {
            to: a.to,
            pkt: a.pkt,
        })
    }
    fn poll_dropped(&mut self) -> Option<P> {
        self.link.poll_dropped().map(|a| a.pkt)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.link.poll_timeout()
    }
    fn channel_label(&self, _i: usize) -> &'static str {
        "shared"
    }
    fn sample(&mut self, _i: usize, now: Time, out: &mut dyn Metrics) {
        self.link.sample(now, out)
    }
    fn summary(&self, _i: usize, out: &mut dyn Metrics) {
        self.link.summary(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::QueueLimit;
    use tcplab_core::Dur;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct P(u32, u32);
    impl Packet for P {
        fn wire_len(&self) -> u32 {
            self.1
        }
    }

    fn drain(m: &mut SharedLink<P>) -> Vec<(Time, Port, P)> {
        let mut out = vec![];
        while let Some(t) = m.poll_timeout() {
            m.handle_timeout(t);
            while let Some(d) = m.poll_transmit(t) {
                out.push((t, d.to, d.pkt));
            }
        }
        out
    }

    /// Both directions wait in one FIFO: a packet sent the other way while the wire is
    /// busy is serialised after the one in service, not in parallel as on a duplex link.
    #[test]
    fn both_directions_take_turns_on_one_transmitter() {
        // 8 Mbit/s: 1000 bytes take 1 ms; 2 ms propagation.
        let params = LinkParams::new(8_000_000, Dur::from_millis(2));
        let mut m = SharedLink::new(params, 2, Rng::from_seed(1));
        assert_eq!(m.handle_packet(Time::ZERO, 0, 1, P(1, 1000)), Admit::Queued);
        // The reverse direction offers a 500-byte packet 0.2 ms later: it waits for the wire.
        let t = Time::ZERO + Dur::from_micros(200);
        assert_eq!(m.handle_packet(t, 1, 0, P(2, 500)), Admit::Queued);
        let got = drain(&mut m);
        assert_eq!(
            got,
            vec![
                (Time::ZERO + Dur::from_millis(3), 1, P(1, 1000)),
                // Starts at 1 ms (end of the first), 0.5 ms on the wire, 2 ms propagation.
                (Time::ZERO + Dur::from_micros(3500), 0, P(2, 500)),
            ]
        );
        // A duplex link would have delivered the second at 0.2 + 0.5 + 2 = 2.7 ms.
    }

    #[test]
    fn a_hub_delivers_to_the_addressed_port_and_shares_the_queue_limit() {
        let params = LinkParams::new(8_000_000, Dur::ZERO).with_queue(QueueLimit::Packets(1));
        let mut m = SharedLink::new(params, 3, Rng::from_seed(1));
        assert_eq!(m.handle_packet(Time::ZERO, 0, 2, P(1, 1000)), Admit::Queued);
        assert_eq!(m.handle_packet(Time::ZERO, 1, 0, P(2, 1000)), Admit::Queued);
        // One waiting already (the first is in service): a third sender is tail-dropped.
        assert_eq!(
            m.handle_packet(Time::ZERO, 2, 1, P(3, 1000)),
            Admit::DroppedQueue
        );
        let got: Vec<(Port, u32)> = drain(&mut m).iter().map(|x| (x.1, x.2 .0)).collect();
        assert_eq!(got, vec![(2, 1), (0, 2)]);
    }

    #[test]
    fn packets_in_flight_at_an_outage_come_back_as_drops() {
        let params = LinkParams::new(8_000_000, Dur::from_millis(10));
        let mut m = SharedLink::new(params.clone(), 2, Rng::from_seed(1));
        m.handle_packet(Time::ZERO, 0, 1, P(1, 1000));
        m.handle_packet(Time::ZERO, 1, 0, P(2, 1000));
        let mut down = params;
        down.up = false;
        m.set_params(Time::ZERO + Dur::from_millis(5), down);
        let mut lost = vec![];
        while let Some(p) = m.poll_dropped() {
            lost.push(p.0);
        }
        lost.sort();
        assert_eq!(lost, vec![1, 2]);
        assert!(drain(&mut m).is_empty());
    }
}
