//! The simulation loop: wires endpoints and media on a virtual clock.
//!
//! A run is a [`World`]: its flows (two endpoints each), the network they share
//! ([`Net`]: media, routes, packets in flight, the event queue) and the recorder of its
//! results. The loop pops the next event and wakes what it names: a medium (which
//! delivers packets, each going on to its next medium or its endpoint), an endpoint (a
//! timer), or one of the run's other events (a flow's start or stop, a link's scheduled
//! change, a sample). After anything that may make an endpoint send, the loop drains it:
//! every packet it has to send is stored and admitted to its route's first medium.
//!
//! The loop knows nothing of any transport: a flow is a source and a sink
//! ([`tcplab_transport::Endpoint`]), a packet is a [`tcplab_transport::Packet`] with a
//! position on its route, and results are what components publish.

use crate::capture::Tap;
use crate::collect::{check_delivered, collect};
use crate::error::SimError;
use crate::flow::{narrow_medium, Flow, FlowEnd, PacketCount, FAR_MEDIUM, SINK, SOURCE};
use crate::media::{Pkt, Step, Wiring};
use crate::net::{Item, Net, NO_WAKE};
use crate::prefetch::LookAhead;
use crate::sampling::Recorder;
use tcplab_core::{Rng, Time};
use tcplab_link::Delivery;
use tcplab_scenario::{Results, RunInfo};
use tcplab_scenario::{Sampling, Scenario};
use tcplab_transport::coded::PayloadPorts;
use tcplab_transport::{Endpoint, FlowContext, Packet, RxCoalescing, Violation};

/// Asked every few thousand events whether to go on (Ctrl-C, time limits).
pub type Control<'a> = &'a mut dyn FnMut() -> bool;

/// Events processed at one instant before the run is declared stalled.
const STALL_EVENTS: u64 = 20_000_000;

/// The run's events other than wake-ups of endpoints and media (a few per flow and link).
#[derive(Clone, Copy, Debug)]
enum Other {
    Sample,
    Start(u32),
    Stop(u32),
    Change { link: u32, idx: u32 },
}

struct World<'s, 'c> {
    sc: &'s Scenario,
    seed: u64,
    flows: Vec<Flow>,
    net: Net,
    rec: Recorder,
    /// The other events, by number ([`Item::Other`]).
    others: Vec<Other>,
    look_ahead: LookAhead,
    /// Flows that keep the run going: every unlimited one (which never finishes) and
    /// the finite ones not finished yet. One count, so the loop's end test after every
    /// event is one comparison.
    unfinished: usize,
    /// Unlimited flows (all of them active till the end).
    unlimited: usize,
    control: Option<Control<'c>>,
    tap: Option<&'c mut dyn Tap>,
}

/// The master seed of replication `r` of seed `seed`.
fn master_seed(seed: u64, replication: u32) -> u64 {
    let mut r = Rng::named(seed, "replication");
    for _ in 0..replication {
        r.next_u64();
    }
    r.next_u64() ^ seed
}

/// Runs `sc` with `seed` (and replication index) and returns its tables.
pub fn simulate(sc: &Scenario, seed: u64, replication: u32) -> Result<Results, SimError> {
    simulate_with(sc, seed, replication, None)
}

/// [`simulate`], asking `control` every 65,536 events whether to continue; a `false`
/// ends the run with [`SimError::Interrupted`].
pub fn simulate_with(
    sc: &Scenario,
    seed: u64,
    replication: u32,
    control: Option<Control<'_>>,
) -> Result<Results, SimError> {
    simulate_tapped(sc, seed, replication, control, None)
}

/// [`simulate_with`], showing every packet a link carries to `tap` (packet capture).
pub fn simulate_tapped<'c>(
    sc: &Scenario,
    seed: u64,
    replication: u32,
    control: Option<Control<'c>>,
    tap: Option<&'c mut dyn Tap>,
) -> Result<Results, SimError> {
    crate::budget::check_memory(sc)?;
    if sc.flows.len() > Pkt::MAX_FLOWS {
        return Err(SimError::Config(crate::ConfigError {
            file: sc.source.clone(),
            key: "flow".into(),
            value: sc.flows.len().to_string(),
            why: format!("a run has at most {} flows", Pkt::MAX_FLOWS),
        }));
    }
    let master = master_seed(seed, replication);
    let mut net = Net::new(Wiring::new(sc, master), sc.flows.len());
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let ctx = FlowContext {
            flow: i as u32,
            bytes: f.bytes,
            source_rng: Rng::named_parts(master, &["flow.", &f.name, ".source"]),
            sink_rng: Rng::named_parts(master, &["flow.", &f.name, ".sink"]),
            // Bytes packets do not carry (coded symbols' payload) go from source to sink
            // through a store the run owns.
            payload: PayloadPorts::in_process(),
        };
        let ends = f.transport.build(ctx).map_err(|why| {
            SimError::Config(crate::ConfigError {
                file: sc.source.clone(),
                key: format!("flow[{i}].transport"),
                value: f.transport.name().to_string(),
                why,
            })
        })?;
        let route = net.add_routes(&sc.links, &f.path);
        let [source_rx, sink_rx] = f.rx_coalesce;
        flows.push(Flow {
            ends: [
                RxCoalescing::wrap(ends.source, source_rx),
                RxCoalescing::wrap(ends.sink, sink_rx),
            ],
            wake: [NO_WAKE; 2],
            route,
            first_medium: route.map(|r| narrow_medium(net.routes[r.get() as usize].medium)),
            count: [PacketCount::default(); 2],
            reliable: ends.reliable,
            started: false,
            end: if f.bytes.is_some() || f.stop.is_some() {
                FlowEnd::Running
            } else {
                FlowEnd::Unlimited
            },
            source_done: false,
        });
    }
    let info = RunInfo {
        scenario: sc.name.clone(),
        seed,
        replication,
        ..RunInfo::default()
    };
    let world = World {
        sc,
        seed,
        look_ahead: LookAhead::new(flows.len(), &net.routes, net.wiring.media.len()),
        unfinished: flows.len(),
        unlimited: flows.iter().filter(|f| f.end == FlowEnd::Unlimited).count(),
        flows,
        net,
        rec: Recorder::new(
            Results {
                info,
                ..Results::default()
            },
            sc.series_rows,
        ),
        others: Vec::new(),
        control,
        tap,
    };
    world.run()
}

impl World<'_, '_> {
    fn run(mut self) -> Result<Results, SimError> {
        // Below Time::MAX, which marks "no wake-up" (`NO_WAKE`); only a saturated
        // duration of centuries reaches it.
        let end =
            (Time::ZERO + self.sc.duration.unwrap_or(self.sc.max_time)).min(Time(u64::MAX - 1));
        self.schedule_others();
        let mut events = 0u64;
        let mut same_instant = 0u64;
        let mut reason = "completed";
        while let Some((t, item)) = self.net.queue.pop() {
            if t > end {
                self.net.now = end;
                reason = if self.sc.duration.is_some() {
                    "duration"
                } else {
                    "max_time"
                };
                break;
            }
            same_instant = if t == self.net.now {
                same_instant + 1
            } else {
                0
            };
            if same_instant > STALL_EVENTS {
                return Err(SimError::Stalled {
                    scenario: self.sc.name.clone(),
                    at: t.to_string(),
                    events: same_instant,
                });
            }
            self.net.now = t;
            events += 1;
            if events & 0xffff == 0 && !self.control.as_mut().is_none_or(|c| c()) {
                return Err(SimError::Interrupted {
                    scenario: self.sc.name.clone(),
                    at: t.to_string(),
                });
            }
            match self.net.item(item) {
                Item::Medium(m) => self.wake_medium(m, t)?,
                Item::Endpoint { flow, side } => self.wake_endpoint(flow, side, t),
                Item::Other(k) => self.other(self.others[k], t),
            }
            if self.unfinished == 0 {
                break;
            }
        }
        if reason == "completed" && self.unfinished > self.unlimited {
            reason = "stalled";
        }
        check_delivered(&self.flows).map_err(|v| self.violation(v))?;
        let now = self.net.now;
        let res = self
            .rec
            .finish(now, self.sc, &self.flows, &mut self.net.wiring);
        res.info.events = events;
        res.info.packet_hops = self.net.hops;
        res.info.end_time_s = now.as_secs_f64();
        res.info.end_reason = reason;
        collect(res, self.sc, &self.flows, &self.net.wiring, now);
        Ok(self.rec.res)
    }

    /// Numbers the run's other events and schedules them: the first sample (number 0),
    /// every flow's start and stop, every scheduled link change.
    fn schedule_others(&mut self) {
        let mut timed = vec![(Time::ZERO, Other::Sample)];
        for (i, f) in self.sc.flows.iter().enumerate() {
            timed.push((Time::ZERO + f.start, Other::Start(i as u32)));
            if let Some(s) = f.stop {
                timed.push((Time::ZERO + s, Other::Stop(i as u32)));
            }
        }
        for (l, spec) in self.sc.links.iter().enumerate() {
            for (idx, change) in spec.schedule.iter().enumerate() {
                let (link, idx) = (l as u32, idx as u32);
                timed.push((Time::ZERO + change.at, Other::Change { link, idx }));
            }
        }
        self.others = timed.iter().map(|&(_, ev)| ev).collect();
        // Pushed in the order the run always used: starts and stops, changes, sampling.
        for (k, &(t, _)) in timed.iter().enumerate().skip(1) {
            self.net.schedule_other(t, k);
        }
        if let Sampling::Interval(_) = self.sc.sampling {
            self.net.schedule_other(Time::ZERO, 0);
        }
    }

    fn violation(&self, v: Violation) -> SimError {
        SimError::Invariant {
            scenario: self.sc.name.clone(),
            seed: self.seed,
            at: self.net.now.to_string(),
            violation: v,
        }
    }

    /// Medium `m`'s wake-up at `t`, unless a later or earlier one replaced it.
    #[inline(always)]
    fn wake_medium(&mut self, m: usize, t: Time) -> Result<(), SimError> {
        if self.net.medium_wake[m] != t {
            return Ok(());
        }
        self.net.medium_wake[m] = NO_WAKE;
        if self.net.wiring.media[m].as_link().is_some() {
            self.wake_link(m, t)
        } else {
            self.wake_other(m, t)
        }
    }

    /// The wake-up of medium `m`, a link direction: what the general medium path does
    /// (deliveries, then the next wake-up) without the calls that do nothing for a link
    /// (advancing it, collecting drops at a wake-up), one dispatch per delivery and no
    /// [`Delivery`] wrapper. The medium event's common case: one per packet hop.
    #[inline(always)]
    fn wake_link(&mut self, m: usize, t: Time) -> Result<(), SimError> {
        loop {
            let Some(link) = self.net.wiring.media[m].as_link() else {
                unreachable!("medium {m} is a link direction");
            };
            let Some(pkt) = link.poll_transmit(t) else {
                // After every delivery was forwarded.
                let next = link.poll_timeout();
                // A queue discipline's drops after admission.
                let dropped = link.has_dropped();
                if next.is_none() {
                    // Empty (or holding only holes): the next direction to start a FIFO
                    // takes its buffer, still in cache.
                    link.spare_fifo(&mut self.net.spares);
                } else {
                    let net = &self.net;
                    self.look_ahead
                        .after_deliveries(m, &net.wiring.media, &net.routes);
                }
                self.net.schedule_medium_at(m, next);
                if dropped {
                    self.collect_drops(m);
                }
                return Ok(());
            };
            self.net.hops += 1;
            if let Some(tap) = self.tap.as_deref_mut() {
                let packet = self.net.packets.get(pkt.slot);
                let d = Delivery { to: 1, pkt };
                crate::capture::offer(tap, t, &self.net.wiring, m, &d, packet);
            }
            self.forward(pkt)?;
        }
    }

    /// The wake-up of medium `m` when it is not a link direction (a half-duplex link, a
    /// cell). Out of line, so that the loop inlines the packet's way on (`forward`,
    /// `deliver`) once, in the link's path.
    #[inline(never)]
    fn wake_other(&mut self, m: usize, t: Time) -> Result<(), SimError> {
        self.net.wiring.media[m].handle_timeout(t);
        while let Some(d) = self.net.wiring.media[m].poll_transmit(t) {
            self.net.hops += 1;
            if let Some(tap) = self.tap.as_deref_mut() {
                let packet = self.net.packets.get(d.pkt.slot);
                crate::capture::offer(tap, t, &self.net.wiring, m, &d, packet);
            }
            self.forward(d.pkt)?;
        }
        if self.net.wiring.media[m].drops_on_timeout() {
            self.collect_drops(m);
        }
        self.net.schedule_medium(m);
        Ok(())
    }

    /// Moves a packet that reached the end of a step to its next step or its endpoint.
    /// Inlined (with `deliver`) into the link's path of the loop: out of line the call
    /// cost about 45 instructions a hop.
    #[inline(always)]
    fn forward(&mut self, mut p: Pkt) -> Result<(), SimError> {
        // A route ends with `Step::END` long before the index could saturate.
        p.step = p.step.saturating_add(1);
        let m = self.net.routes[p.step.get() as usize].medium;
        if m == Step::END.medium {
            return self.deliver(p);
        }
        if !self.net.admit(m as usize, p) {
            self.flows[p.flow()].count[p.to_source() as usize].dropped += 1;
        }
        Ok(())
    }

    /// Hands `p` to the endpoint at the end of its route, then sends what that endpoint
    /// has to send.
    #[inline(always)]
    fn deliver(&mut self, p: Pkt) -> Result<(), SimError> {
        let (f, side) = (p.flow(), if p.to_source() { SOURCE } else { SINK });
        let now = self.net.now;
        let fl = &mut self.flows[f];
        fl.count[p.to_source() as usize].delivered += 1;
        if p.ce() {
            self.net.packets.mark_ce(p.slot);
        }
        let r = fl.ends[side].handle_packet(now, self.net.packets.get(p.slot));
        r.map_err(|v| self.violation(v))?;
        if side == SOURCE && matches!(self.sc.sampling, Sampling::PerAck) {
            self.rec.after_ack(now, f, &self.flows[f].ends);
        }
        // The delivered packet's slot is the drain's first (what freeing it would give),
        // without a trip through the free list.
        self.drain(f, side, Some(p.slot));
        Ok(())
    }

    /// An endpoint's timer at `t`, unless a later or earlier one replaced it.
    #[inline(always)]
    fn wake_endpoint(&mut self, f: usize, side: usize, t: Time) {
        let fl = &mut self.flows[f];
        if fl.wake[side] != t {
            return;
        }
        fl.wake[side] = NO_WAKE;
        fl.ends[side].handle_timeout(t);
        self.drain(f, side, None);
    }

    /// Sends what endpoint `side` of flow `f` has to send (the first packet stored in
    /// `spare`, a slot done with, if given), then schedules its wake-up. The flow is
    /// held across the loop beside the network, so a round is the endpoint's poll, the
    /// store's put and the admission.
    #[inline(always)]
    fn drain(&mut self, f: usize, side: usize, mut spare: Option<u32>) {
        let net = &mut self.net;
        let fl = &mut self.flows[f];
        let now = net.now;
        let first = fl.route[side]; // the source sends on route 0, the sink on route 1
                                    // Every packet of this direction enters the same first medium.
        let medium = match fl.first_medium[side] {
            FAR_MEDIUM => net.routes[first.get() as usize].medium,
            m => m as u32,
        } as usize;
        let (end, count) = (&mut fl.ends[side], &mut fl.count[side]);
        // The handle the network moves for a packet stored in `slot`.
        let handle = move |slot, p: &Packet| {
            let (len, payload, ect) = (p.wire_len(), p.payload_len() != 0, p.ecn_capable());
            Pkt::new(slot, first, len, f as u32, side == SINK, payload, ect)
        };
        while let Some(pkt) = net
            .packets
            .put_next(&mut spare, end.poll_transmit(now), handle)
        {
            count.sent += 1;
            if !net.admit(medium, pkt) {
                count.dropped += 1;
            }
        }
        if let Some(s) = spare {
            net.packets.free(s);
        }
        // Only the source's own events can make it finish (endpoints share no state), so
        // until it has, the sink's skip the question (a dispatched call on each of them).
        if (side == SOURCE || fl.source_done) && fl.finishes() {
            self.unfinished -= 1;
        }
        if let Some(t) = fl.ends[side].poll_timeout() {
            net.schedule_endpoint(&mut fl.wake[side], f, side, t);
        }
    }

    /// Accounts for packets medium `m` lost after admission (contention, outages).
    fn collect_drops(&mut self, m: usize) {
        while let Some(p) = self.net.poll_dropped(m) {
            let f = p.flow();
            self.flows[f].count[p.to_source() as usize].dropped += 1;
            if self.flows[f].finishes() {
                self.unfinished -= 1;
            }
        }
    }

    fn other(&mut self, ev: Other, t: Time) {
        match ev {
            Other::Start(f) => {
                let f = f as usize;
                let fl = &mut self.flows[f];
                fl.started = true;
                fl.ends[SOURCE].start(t);
                fl.ends[SINK].start(t);
                self.drain(f, SOURCE, None);
                self.drain(f, SINK, None);
            }
            Other::Stop(f) => {
                let f = f as usize;
                self.flows[f].ends[SOURCE].stop(t);
                self.drain(f, SOURCE, None);
            }
            Other::Change { link, idx } => self.change_link(link as usize, idx as usize),
            Other::Sample => {
                let wiring = &mut self.net.wiring;
                let next = self.rec.sample(t, self.sc, &self.flows, wiring);
                if let (Some(n), Sampling::Interval(d)) = (next, self.sc.sampling) {
                    self.net.schedule_other(t + d * n, 0);
                }
            }
        }
    }

    /// Applies change `idx` of link `link`'s schedule.
    fn change_link(&mut self, link: usize, idx: usize) {
        let c = &self.sc.links[link].schedule[idx];
        self.net
            .wiring
            .set_link_params(self.net.now, link, &c.fwd, &c.rev);
        // Re-timed packets may now arrive earlier than the pending wake-up.
        let [f, r] = self.net.wiring.of_link[link];
        for m in [Some(f), (r != f).then_some(r)].into_iter().flatten() {
            let m = m as usize;
            self.collect_drops(m);
            self.net.medium_wake[m] = NO_WAKE;
            self.net.schedule_medium(m);
        }
    }
}
