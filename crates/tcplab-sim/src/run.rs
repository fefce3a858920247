//! The simulation loop: wires endpoints and media on a virtual clock.
//!
//! Every component exposes `poll_timeout`; the loop keeps one pending wake-up per
//! component and pushes a new one only when the component wants to wake earlier. A
//! wake-up that no longer matches the component's slot is stale and skipped, so timers
//! that move later (an RTO restarted on every ACK) cost no queue operations.
//!
//! The loop knows nothing of any transport: a flow is a source and a sink
//! ([`tcplab_transport::Endpoint`]), a packet is a [`tcplab_transport::Packet`] with a
//! position on its route, and results are what components publish.

use crate::budget::{SeriesBudget, FINAL};
use crate::capture::Tap;
use crate::error::SimError;
use crate::event::EventQueue;
use crate::media::{AnyMedium, Pkt, Step, Wiring};
use crate::packets::PacketStore;
use crate::results::{Results, RunInfo, Table, Trace};
use crate::scenario::{Hop, LinkSpec, Sampling, Scenario};
use std::num::NonZeroU32;
use tcplab_core::{Metrics, Rng, Time, Value};
use tcplab_link::{Admit, Delivery, FifoSpares};
use tcplab_transport::{AnyEndpoint, Endpoint, FlowContext, Violation};

const SOURCE: usize = 0;
const SINK: usize = 1;

/// Events other than wake-ups of endpoints and media (a few per flow and link).
#[derive(Clone, Copy, Debug)]
enum Rare {
    Sample,
    Start(u32),
    Stop(u32),
    Change { link: u32, idx: u32 },
}

/// What an event queue item means. Items are numbered: media first (an item below
/// `World::ends_base` is the medium's index), then endpoint `2·flow + side`, then the
/// entries of `World::rare`.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Endpoint(usize),
    Medium(usize),
    Rare(Rare),
}

/// Packets of one direction of a flow, as the network handled them.
#[derive(Clone, Copy, Debug, Default)]
struct PacketCount {
    sent: u64,
    delivered: u64,
    dropped: u64,
}

impl PacketCount {
    fn in_network(&self) -> u64 {
        self.sent - self.delivered - self.dropped
    }
}

/// A [`Flow::first_medium`] that says "read the step".
const FAR_MEDIUM: u16 = u16::MAX;

/// Medium `m` as a [`Flow::first_medium`]: itself if it fits below [`FAR_MEDIUM`].
fn narrow_medium(m: u32) -> u16 {
    u16::try_from(m)
        .ok()
        .filter(|&m| m != FAR_MEDIUM)
        .unwrap_or(FAR_MEDIUM)
}

/// Whether a flow can finish (one byte for what were two flags, so the flow keeps to
/// two cache lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlowEnd {
    /// Neither a byte count nor a stop time: runs until the scenario ends.
    Unlimited,
    /// Finite, not finished yet.
    Running,
    Finished,
}

/// No wake-up pending (see [`Flow::wake`]).
const NO_WAKE: Time = Time::MAX;

/// One flow as the loop sees it: two cache lines (aligned), since with thousands of flows
/// every event finds its flow out of cache.
#[repr(align(64))]
struct Flow {
    /// `[source, sink]`.
    ends: [AnyEndpoint; 2],
    /// Pending wake-up of each side, [`NO_WAKE`] if none (8 bytes where an
    /// `Option<Time>` takes 16). No run reaches `Time::MAX` (its end is earlier), so a
    /// wake-up asked for at `Time::MAX` is one that would never run, and is not scheduled.
    wake: [Time; 2],
    /// First step of each direction's route in `World::steps` (source → sink, sink → source).
    route: [NonZeroU32; 2],
    /// The medium of each route's first step (`World::steps[route[d]].medium`), or
    /// [`FAR_MEDIUM`] for a medium index that does not fit: every drain admits there,
    /// and a link direction needs no more of the step. A `u16` so the flow keeps to two
    /// cache lines.
    first_medium: [u16; 2],
    count: [PacketCount; 2],
    reliable: bool,
    started: bool,
    end: FlowEnd,
    /// The source has reported `finished_at` (it never goes back): from then on a sink's
    /// event can finish the flow (an unreliable one, once nothing is in the network),
    /// and before it no sink event can, so sink events skip asking the source.
    source_done: bool,
}

impl Flow {
    /// A finite flow is finished when its source is, and (unreliable transports) nothing
    /// it sent is still in the network. True when this call finished it.
    #[inline]
    fn finishes(&mut self) -> bool {
        if self.end != FlowEnd::Running {
            return false;
        }
        if !self.source_done {
            if self.ends[SOURCE].finished_at().is_none() {
                return false;
            }
            self.source_done = true;
        }
        if self.reliable || self.count[0].in_network() == 0 {
            self.end = FlowEnd::Finished;
            return true;
        }
        false
    }
}

/// Asked every few thousand events whether to go on (Ctrl-C, time limits).
pub type Control<'a> = &'a mut dyn FnMut() -> bool;

struct World<'s, 'c> {
    sc: &'s Scenario,
    seed: u64,
    now: Time,
    q: EventQueue,
    /// Item numbers: media (the medium's index: the loop's common event, decoded with
    /// one comparison) below `ends_base`, endpoints below `rare_base`.
    ends_base: u32,
    rare_base: u32,
    rare: Vec<Rare>,
    wiring: Wiring,
    /// Pending wake-up of each medium, [`NO_WAKE`] if none.
    medium_wake: Vec<Time>,
    steps: Vec<Step>,
    flows: Vec<Flow>,
    packets: PacketStore,
    /// Buffers of emptied link FIFOs, for the next link direction that starts one.
    spares: FifoSpares<Pkt>,
    /// Flows that keep the run going: every unlimited one (which never finishes) and
    /// the finite ones not finished yet. One count, so the loop's end test after every
    /// event is one comparison.
    unfinished: usize,
    /// Unlimited flows (all of them active till the end).
    unlimited_active: usize,
    hops: u64,
    res: Results,
    budget: SeriesBudget,
    control: Option<Control<'c>>,
    tap: Option<&'c mut dyn Tap>,
}

/// Schedules medium `m`'s wake-up at `next` (its `poll_timeout`) if that is earlier than
/// the pending one. Expanded everywhere (twice per packet hop): out of line, the call and
/// its register saves were about 15 of its 45 instructions.
macro_rules! wake_medium {
    ($m:expr, next = $next:expr, medium_wake = $medium_wake:expr, q = $q:expr) => {{
        let m: usize = $m;
        if let Some(t) = $next {
            if t < $medium_wake[m] {
                $medium_wake[m] = t;
                $q.push(t, m as u32);
            }
        }
    }};
}

/// A link's admission: `handle_packet_spared`, or the method named.
macro_rules! admit_call {
    ($link:ident, $now:expr, $p:expr, $spares:expr) => {
        $link.handle_packet_spared($now, $p, $spares)
    };
    ($link:ident, $admit:ident, $now:expr, $p:expr, $spares:expr) => {
        $link.$admit($now, $p, $spares)
    };
}

/// Offers packet `p` to the medium of `step` at `now`; a dropped packet's slot is freed
/// after `on_drop` (the caller counts the drop). A macro over the fields it
/// touches, not a method: `drain` admits while it holds its flow's record (so it cannot
/// lend all of `World`), and the loop's own admissions stay written on `self`'s fields
/// (routed through a struct of borrowed fields, or through this macro with the slot
/// freed before the drop is counted, LLVM moved the event loop out of `simulate_tapped`:
/// measured +11-14 instructions per B2 event, +0.5-0.7 % on B1). `admit = method`
/// names the link's admission (`handle_packet` if not given): `drain` uses the always
/// inlined copy, which saves a call and its register saves per packet an endpoint sends;
/// the loop's admissions keep the call (inlined there too, B1 cost 1.2 % more).
/// `medium` is `step`'s medium; `step` is evaluated only for a medium that is not a link
/// direction (`drain` keeps its route's first medium in the flow, and reads the step
/// only then).
macro_rules! admit {
    ($step:expr, medium = $medium:expr, $p:expr, now = $now:expr, wiring = $wiring:expr,
     medium_wake = $medium_wake:expr, q = $q:expr, spares = $spares:expr,
     packets = $packets:expr, on_drop = $on_drop:block $(, admit = $admit:ident)?) => {{
        let p: Pkt = $p;
        let m = $medium as usize;
        let medium = &mut $wiring.media[m];
        // The pending wake-up is never later than the medium's next one, so when the
        // admission cannot move that, `wake_medium` would do nothing. A link direction
        // (nearly every hop) is matched once, not once per call.
        let (keeps, admit) = match medium.as_link() {
            Some(link) => (
                link.admission_keeps_timeout(),
                admit_call!(link $(, $admit)?, $now, p, &mut $spares),
            ),
            None => (false, medium.handle_packet($now, $step, p)),
        };
        if admit != Admit::Queued {
            $on_drop
            $packets.free(p.slot);
        }
        if !keeps {
            wake_medium!(m, next = $wiring.media[m].poll_timeout(),
                medium_wake = $medium_wake, q = $q);
        }
    }};
}

/// Steps in a cache line.
const LINE_STEPS: usize = 64 / std::mem::size_of::<Step>();

/// The routes' steps, laid out so that a flow whose two routes fit in a cache line has
/// them in one line, not across two (with 1000 flows, each is out of cache at every hop
/// of a packet: a packet's hops read its route's steps, and a flow whose steps straddle
/// a line boundary costs two lines instead of one). Index 0 is [`Step::END`] and never a
/// packet's step; entries put in for the alignment are [`Step::END`] too.
struct StepArena(Vec<Step>);

impl StepArena {
    fn new(sc: &Scenario) -> StepArena {
        // Room for the layout from a line-aligned origin, and for that origin.
        let mut at = 0;
        for f in &sc.flows {
            at = Self::place(at, Self::flow_steps(f.path.len())) + Self::flow_steps(f.path.len());
        }
        let mut arena = StepArena(Vec::with_capacity(at + LINE_STEPS));
        let origin = arena.origin();
        arena.0.resize(origin, Step::END);
        arena
    }

    /// Steps of a flow whose path has `hops` hops: both routes, each with its end.
    fn flow_steps(hops: usize) -> usize {
        2 * (hops + 1)
    }

    /// Where a flow of `n` steps goes when the next free index is `at` (counted from a
    /// line start): at the next line if it fits in one but not in what is left of this.
    fn place(at: usize, n: usize) -> usize {
        let used = at % LINE_STEPS;
        if n <= LINE_STEPS && used != 0 && used + n > LINE_STEPS {
            at + LINE_STEPS - used
        } else {
            at
        }
    }

    /// Lays out a flow's two routes over `path` (there, then back, each ended by
    /// [`Step::END`]) where [`StepArena::place`] puts them; returns each route's first
    /// step.
    fn push_flow(&mut self, wiring: &Wiring, links: &[LinkSpec], path: &[Hop]) -> [NonZeroU32; 2] {
        let origin = self.origin();
        let n = Self::flow_steps(path.len());
        let at = Self::place(self.0.len().saturating_sub(origin), n) + origin;
        self.0.resize(at, Step::END);
        [false, true].map(|reverse| {
            let first = NonZeroU32::new(self.0.len() as u32).expect("step 0 is taken");
            let hops = path.iter().map(|&h| wiring.step(links, h, reverse));
            if reverse {
                self.0.extend(hops.rev());
            } else {
                self.0.extend(hops);
            }
            self.0.push(Step::END);
            first
        })
    }

    /// The first index of the layout: the first at the start of a line (if the buffer
    /// allows it), past index 0. The buffer never moves (`new` made room for the whole
    /// layout), so this is the same on every call.
    fn origin(&self) -> usize {
        let addr = self.0.as_ptr() as usize;
        (1..=LINE_STEPS)
            .find(|i| (addr + i * std::mem::size_of::<Step>()) % 64 == 0)
            .unwrap_or(1)
    }
}

impl std::ops::Deref for StepArena {
    type Target = Vec<Step>;
    fn deref(&self) -> &Vec<Step> {
        &self.0
    }
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
    if let Some(value) = crate::run_heap::bad_env() {
        return Err(SimError::Config(crate::ConfigError {
            file: "the environment".into(),
            key: crate::run_heap::ENV.into(),
            value,
            why: "must be on or off (the run heap, huge pages for runs of many flows)".into(),
        }));
    }
    let _heap = crate::RunHeap::scope(RUN_HEAP_FLOWS.contains(&sc.flows.len()));
    if sc.flows.len() > Pkt::MAX_FLOWS {
        return Err(SimError::Config(crate::ConfigError {
            file: sc.source.clone(),
            key: "flow".into(),
            value: sc.flows.len().to_string(),
            why: format!("a run has at most {} flows", Pkt::MAX_FLOWS),
        }));
    }
    let master = master_seed(seed, replication);
    let wiring = Wiring::new(sc, master);
    // Index 0 is never a packet's step: the niche that keeps a link's FIFO entry (an
    // `Option<Pkt>` inside) at 32 bytes.
    let mut steps = StepArena::new(sc);
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let ctx = FlowContext {
            flow: i as u32,
            bytes: f.bytes,
            source_rng: Rng::named_parts(master, &["flow.", &f.name, ".source"]),
            sink_rng: Rng::named_parts(master, &["flow.", &f.name, ".sink"]),
        };
        let ends = f.transport.build(ctx).map_err(|why| {
            SimError::Config(crate::ConfigError {
                file: sc.source.clone(),
                key: format!("flow[{i}].transport"),
                value: f.transport.name().to_string(),
                why,
            })
        })?;
        let [fwd, rev] = steps.push_flow(&wiring, &sc.links, &f.path);
        flows.push(Flow {
            ends: [ends.source, ends.sink],
            wake: [NO_WAKE; 2],
            route: [fwd, rev],
            first_medium: [fwd, rev].map(|r| narrow_medium(steps[r.get() as usize].medium)),
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
    let steps = steps.0;
    let unlimited_active = flows.iter().filter(|f| f.end == FlowEnd::Unlimited).count();
    let unfinished = flows.len();
    let mut w = World {
        sc,
        seed,
        now: Time::ZERO,
        q: EventQueue::with_capacity(1024),
        ends_base: 0,
        rare_base: 0,
        rare: Vec::new(),
        medium_wake: vec![NO_WAKE; wiring.media.len()],
        wiring,
        steps,
        flows,
        packets: PacketStore::default(),
        spares: FifoSpares::default(),
        unfinished,
        unlimited_active,
        hops: 0,
        res: Results {
            info: RunInfo {
                scenario: sc.name.clone(),
                seed,
                replication,
                ..RunInfo::default()
            },
            ..Results::default()
        },
        budget: SeriesBudget::new(sc.series_rows),
        control,
        tap,
    };
    w.run()?;
    Ok(w.res)
}

/// A flow's sample row and the controller trace beside it.
struct FlowSample<'a> {
    row: crate::results::Row<'a>,
    trace: &'a mut Trace,
    t: f64,
    flow: u32,
}

impl Metrics for FlowSample<'_> {
    #[inline]
    fn put(&mut self, key: &'static str, v: Value<'_>) {
        self.row.put(key, v);
    }
    fn trace(&mut self, key: &'static str, v: f64) {
        let tr = &mut *self.trace;
        tr.t_s.push(self.t);
        tr.flow.push(self.flow);
        tr.key.push(key);
        tr.value.push(v);
    }
}

/// The runs whose memory comes from the huge-page [`crate::RunHeap`], by flows. B2 10 s,
/// paired (the gain moves with the host's load): 100 flows 0-2.6 % faster, 1000 flows
/// 4-10 %, 10,000 flows 5-12 %, 30,000 flows 7 %. Below: 10 flows 0.9 % (noise), and
/// B1 (one flow, 1 ms) 3 % slower, zeroing a 2 MiB page it barely uses. Above: 100,000
/// flows gained nothing on memory the system had handed out before, and took 93 % longer
/// on fresh memory (on this VM, zeroing a never-used huge page costs about 1.4 ms a MB).
const RUN_HEAP_FLOWS: std::ops::RangeInclusive<usize> = 32..=20_000;

/// Flows from which the loop prefetches a link direction before it admits there (see
/// [`World::wake_link`]): with B2's three hops a side, 256 flows' state is about 0.7 MB.
const LOOK_AHEAD_FLOWS: usize = 256;

/// By medium (`media` of them), whether the packets that cross it go on to more than one
/// medium (a shared bottleneck): its next medium is then one that another flow's packet
/// last used, long ago when there are many flows. `steps` are routes, each ended by
/// [`Step::END`], so consecutive steps that are both media are a hop and the next one.
fn fan_out(steps: &[Step], media: usize) -> Vec<bool> {
    let (mut next, mut fans) = (vec![Step::END.medium; media], vec![false; media]);
    for w in steps.windows(2) {
        let (a, b) = (w[0].medium, w[1].medium);
        if a == Step::END.medium || b == Step::END.medium {
            continue;
        }
        let seen = &mut next[a as usize];
        if *seen == Step::END.medium {
            *seen = b;
        } else if *seen != b {
            fans[a as usize] = true;
        }
    }
    fans
}

/// Events processed at one instant before the run is declared stalled.
const STALL_EVENTS: u64 = 20_000_000;

impl World<'_, '_> {
    fn run(&mut self) -> Result<(), SimError> {
        // Below Time::MAX, which marks "no wake-up" (`NO_WAKE`); only a saturated
        // duration of centuries reaches it.
        let end =
            (Time::ZERO + self.sc.duration.unwrap_or(self.sc.max_time)).min(Time(u64::MAX - 1));
        self.ends_base = self.wiring.media.len() as u32;
        self.rare_base = self.ends_base + 2 * self.flows.len() as u32;
        let mut rare = vec![(Time::ZERO, Rare::Sample)];
        for (i, f) in self.sc.flows.iter().enumerate() {
            rare.push((Time::ZERO + f.start, Rare::Start(i as u32)));
            if let Some(s) = f.stop {
                rare.push((Time::ZERO + s, Rare::Stop(i as u32)));
            }
        }
        for (l, spec) in self.sc.links.iter().enumerate() {
            for idx in 0..spec.schedule.len() {
                let (link, idx) = (l as u32, idx as u32);
                rare.push((
                    Time::ZERO + spec.schedule[idx as usize].at,
                    Rare::Change { link, idx },
                ));
            }
        }
        self.rare = rare.iter().map(|&(_, r)| r).collect();
        // Pushed in the order the run always used: starts and stops, changes, sampling.
        for (k, &(t, _)) in rare.iter().enumerate().skip(1) {
            self.q.push(t, self.rare_base + k as u32);
        }
        if let Sampling::Interval(_) = self.sc.sampling {
            self.q.push(Time::ZERO, self.rare_base);
        }
        let look_ahead = self.look_ahead_media();
        let mut events = 0u64;
        let mut same_instant = 0u64;
        let mut reason = "completed";
        while let Some((t, item)) = self.q.pop() {
            if t > end {
                self.now = end;
                reason = if self.sc.duration.is_some() {
                    "duration"
                } else {
                    "max_time"
                };
                break;
            }
            if t == self.now {
                same_instant += 1;
                if same_instant > STALL_EVENTS {
                    return Err(SimError::Stalled {
                        scenario: self.sc.name.clone(),
                        at: t.to_string(),
                        events: same_instant,
                    });
                }
            } else {
                same_instant = 0;
            }
            self.now = t;
            events += 1;
            if events & 0xffff == 0 {
                if let Some(c) = self.control.as_mut() {
                    if !c() {
                        return Err(SimError::Interrupted {
                            scenario: self.sc.name.clone(),
                            at: t.to_string(),
                        });
                    }
                }
            }
            match self.event(item) {
                Ev::Medium(m) => {
                    if self.medium_wake[m] != t {
                        continue;
                    }
                    self.medium_wake[m] = NO_WAKE;
                    if self.wiring.media[m].as_link().is_some() {
                        self.wake_link(m, t, &look_ahead)?;
                    } else {
                        self.wake_other(m, t)?;
                    }
                }
                Ev::Endpoint(e) => {
                    let (f, side) = (e / 2, e % 2);
                    let fl = &mut self.flows[f];
                    if fl.wake[side] != t {
                        continue;
                    }
                    fl.wake[side] = NO_WAKE;
                    fl.ends[side].handle_timeout(t);
                    self.drain(f, side);
                }
                Ev::Rare(Rare::Start(f)) => {
                    let f = f as usize;
                    let fl = &mut self.flows[f];
                    fl.started = true;
                    fl.ends[SOURCE].start(t);
                    fl.ends[SINK].start(t);
                    self.drain(f, SOURCE);
                    self.drain(f, SINK);
                }
                Ev::Rare(Rare::Stop(f)) => {
                    let f = f as usize;
                    self.flows[f].ends[SOURCE].stop(t);
                    self.drain(f, SOURCE);
                }
                Ev::Rare(Rare::Change { link, idx }) => {
                    self.apply_change(link as usize, idx as usize)
                }
                Ev::Rare(Rare::Sample) => {
                    if let Some(k) = self.budget.admit() {
                        self.sample();
                        self.budget.record(k, &mut self.res);
                        if let Sampling::Interval(d) = self.sc.sampling {
                            let n = self.budget.intervals_after(k);
                            self.q.push(t + d * n, self.rare_base);
                        }
                    }
                }
            }
            if self.unfinished == 0 {
                break;
            }
        }
        if reason == "completed" && self.unfinished > self.unlimited_active {
            reason = "stalled";
        }
        let info = &mut self.res.info;
        info.events = events;
        info.packet_hops = self.hops;
        info.end_time_s = self.now.as_secs_f64();
        info.end_reason = reason;
        if !matches!(self.sc.sampling, Sampling::Off) {
            self.sample();
            self.budget.record(FINAL, &mut self.res);
        }
        self.res.info.series_stride = self.budget.stride;
        self.declare_series();
        self.check_end()?;
        self.collect();
        Ok(())
    }

    /// The link directions whose wake-up prefetches the next medium of the packet that
    /// leaves after the ones delivered (see [`World::look_ahead`]), by medium: those that
    /// [`fan_out`]; none with fewer than [`LOOK_AHEAD_FLOWS`] flows, whose state stays in
    /// cache (there a prefetch only costs instructions).
    fn look_ahead_media(&self) -> Vec<bool> {
        if self.flows.len() < LOOK_AHEAD_FLOWS {
            return Vec::new();
        }
        fan_out(&self.steps, self.wiring.media.len())
    }

    #[inline(always)]
    fn event(&self, item: u32) -> Ev {
        if item < self.ends_base {
            Ev::Medium(item as usize)
        } else if item < self.rare_base {
            Ev::Endpoint((item - self.ends_base) as usize)
        } else {
            Ev::Rare(self.rare[(item - self.rare_base) as usize])
        }
    }

    fn violation(&self, v: Violation) -> SimError {
        SimError::Invariant {
            scenario: self.sc.name.clone(),
            seed: self.seed,
            at: self.now.to_string(),
            violation: v,
        }
    }

    /// Moves a packet that reached the end of a step to its next step or its endpoint.
    /// Inlined (with `deliver`) into the link's path of the loop: out of line the call
    /// cost about 45 instructions a hop.
    #[inline(always)]
    fn forward(&mut self, mut p: Pkt) -> Result<(), SimError> {
        // A route ends with `Step::END` long before the index could saturate.
        p.step = p.step.saturating_add(1);
        let step = self.steps[p.step.get() as usize];
        if step.medium != Step::END.medium {
            self.enqueue(step, p);
            return Ok(());
        }
        self.deliver(p)
    }

    /// Hands `p` to the endpoint at the end of its route.
    #[inline(always)]
    fn deliver(&mut self, p: Pkt) -> Result<(), SimError> {
        let (f, dir) = (p.flow(), p.to_source() as usize);
        let side = if p.to_source() { SOURCE } else { SINK };
        let now = self.now;
        let fl = &mut self.flows[f];
        fl.count[dir].delivered += 1;
        let r = fl.ends[side].handle_packet(now, self.packets.get(p.slot));
        r.map_err(|v| self.violation(v))?;
        if side == SOURCE && matches!(self.sc.sampling, Sampling::PerAck) {
            if let Some(k) = self.budget.admit() {
                self.sample_flow(f);
                self.budget.record(k, &mut self.res);
            }
        }
        // The delivered packet's slot is the drain's first (what freeing it would give),
        // without a trip through the free list.
        self.drain_with(f, side, Some(p.slot));
        Ok(())
    }

    /// Offers `p` to the medium of `step`; a packet dropped at admission is counted.
    #[inline(always)]
    fn enqueue(&mut self, step: Step, p: Pkt) {
        admit!(
            step,
            medium = step.medium,
            p,
            now = self.now,
            wiring = self.wiring,
            medium_wake = self.medium_wake,
            q = self.q,
            spares = self.spares,
            packets = self.packets,
            on_drop = {
                self.flows[p.flow()].count[p.to_source() as usize].dropped += 1;
            }
        );
    }

    /// The wake-up of medium `m`, a link direction: what the general medium path does
    /// (deliveries, then the next wake-up) without the calls that do nothing for a link
    /// (advancing it, collecting drops at a wake-up), one dispatch per delivery and no
    /// [`Delivery`] wrapper. The medium event's common case: one per packet hop.
    #[inline(always)]
    fn wake_link(&mut self, m: usize, t: Time, look_ahead: &[bool]) -> Result<(), SimError> {
        loop {
            let Some(link) = self.wiring.media[m].as_link() else {
                unreachable!("medium {m} is a link direction");
            };
            let Some(pkt) = link.poll_transmit(t) else {
                // After every delivery was forwarded.
                let next = link.poll_timeout();
                if link.has_dropped() {
                    self.collect_discipline_drops(m, next);
                    return Ok(());
                }
                if next.is_none() {
                    // Empty (or holding only holes): the next direction to start a FIFO
                    // takes its buffer, still in cache.
                    link.spare_fifo(&mut self.spares);
                } else if look_ahead.get(m) == Some(&true) {
                    self.look_ahead(m);
                }
                wake_medium!(m, next = next, medium_wake = self.medium_wake, q = self.q);
                return Ok(());
            };
            self.hops += 1;
            if let Some(tap) = self.tap.as_deref_mut() {
                let packet = self.packets.get(pkt.slot);
                let d = Delivery { to: 1, pkt };
                crate::capture::offer(tap, t, &self.wiring, m, &d, packet);
            }
            self.forward(pkt)?;
        }
    }

    /// Link direction `m` (see [`World::look_ahead_media`]) holds the next packet to
    /// leave: that packet will enter the medium of its next step, a link direction that
    /// is out of cache when there are many, so ask for that medium's hot lines now, a
    /// serialisation time ahead. Out of line, so that the loop's code does not change
    /// for runs that never look ahead.
    #[inline(never)]
    fn look_ahead(&self, m: usize) {
        let AnyMedium::Link(link) = &self.wiring.media[m] else {
            return;
        };
        if let Some(n) = link.peek_front() {
            let s = self.steps[n.step.get() as usize + 1];
            if s.medium != Step::END.medium {
                let at = self.wiring.media.as_ptr().wrapping_add(s.medium as usize);
                crate::prefetch::first_two_lines(at);
            }
        }
    }

    /// The wake-up of medium `m` when it is not a link direction (a half-duplex link, a
    /// cell). Out of line, so that the loop inlines the packet's way on (`forward`,
    /// `deliver`) once, in the link's path.
    #[inline(never)]
    fn wake_other(&mut self, m: usize, t: Time) -> Result<(), SimError> {
        self.wiring.media[m].handle_timeout(t);
        while let Some(d) = self.wiring.media[m].poll_transmit(t) {
            self.hops += 1;
            if let Some(tap) = self.tap.as_deref_mut() {
                let packet = self.packets.get(d.pkt.slot);
                crate::capture::offer(tap, t, &self.wiring, m, &d, packet);
            }
            self.forward(d.pkt)?;
        }
        if self.wiring.media[m].drops_on_timeout() {
            self.collect_drops(m);
        }
        self.wake_medium(m);
        Ok(())
    }

    /// The end of link direction `m`'s wake-up when its queue discipline dropped packets
    /// after admitting them: accounts for them, then schedules the next wake-up `next`.
    /// Out of the link's wake-up, which only tests for them.
    #[cold]
    #[inline(never)]
    fn collect_discipline_drops(&mut self, m: usize, next: Option<Time>) {
        self.collect_drops(m);
        wake_medium!(m, next = next, medium_wake = self.medium_wake, q = self.q);
    }

    /// Accounts for packets a medium lost after admission (outages).
    fn collect_drops(&mut self, m: usize) {
        while let Some(p) = self.wiring.media[m].poll_dropped() {
            self.packets.free(p.slot);
            let f = p.flow();
            self.flows[f].count[p.to_source() as usize].dropped += 1;
            self.check_finished(f);
        }
    }

    #[inline(always)]
    fn wake_medium(&mut self, m: usize) {
        wake_medium!(
            m,
            next = self.wiring.media[m].poll_timeout(),
            medium_wake = self.medium_wake,
            q = self.q
        );
    }

    /// Sends what endpoint `side` of flow `f` has to send, then schedules its wake-up.
    /// The flow is held across the loop (the admission uses the other fields apart),
    /// so a round is the endpoint's poll, the store's put and the admission.
    fn drain(&mut self, f: usize, side: usize) {
        self.drain_with(f, side, None)
    }

    /// [`World::drain`], storing the first packet in `spare`, a slot done with.
    #[inline(always)]
    fn drain_with(&mut self, f: usize, side: usize, mut spare: Option<u32>) {
        let dir = side; // the source sends on route 0, the sink on route 1
        let World {
            flows,
            steps,
            now,
            ends_base,
            wiring,
            medium_wake,
            q,
            packets,
            spares,
            unfinished,
            ..
        } = self;
        let now = *now;
        let fl = &mut flows[f];
        let first = fl.route[dir];
        // Every packet of this direction enters the same first step.
        let medium = match fl.first_medium[dir] {
            FAR_MEDIUM => steps[first.get() as usize].medium,
            m => m as u32,
        };
        let (end, count) = (&mut fl.ends[side], &mut fl.count[dir]);
        while let Some((slot, (wire_len, payload))) = packets.put_next(
            &mut spare,
            || end.poll_transmit(now),
            |body| (body.wire_len(), body.payload_len() != 0),
        ) {
            count.sent += 1;
            let pkt = Pkt::new(slot, first, wire_len, f as u32, side == SINK, payload);
            admit!(
                steps[first.get() as usize],
                medium = medium,
                pkt,
                now = now,
                wiring = wiring,
                medium_wake = medium_wake,
                q = q,
                spares = *spares,
                packets = packets,
                on_drop = {
                    count.dropped += 1;
                },
                admit = handle_packet_spared_inlined
            );
        }
        if let Some(s) = spare {
            packets.free(s);
        }
        // Only the source's own events can make it finish (endpoints share no state), so
        // until it has, the sink's skip the question (a dispatched call on each of them).
        if (side == SOURCE || fl.source_done) && fl.finishes() {
            *unfinished -= 1;
        }
        if let Some(t) = fl.ends[side].poll_timeout() {
            let t = t.max(now);
            if t < fl.wake[side] {
                fl.wake[side] = t;
                q.push(t, *ends_base + (2 * f + side) as u32);
            }
        }
    }

    /// See [`Flow::finishes`].
    #[inline]
    fn check_finished(&mut self, f: usize) {
        if self.flows[f].finishes() {
            self.unfinished -= 1;
        }
    }

    fn apply_change(&mut self, link: usize, idx: usize) {
        let c = &self.sc.links[link].schedule[idx];
        self.wiring.set_link_params(self.now, link, &c.fwd, &c.rev);
        // Re-timed packets may now arrive earlier than the pending wake-up.
        let [f, r] = self.wiring.of_link[link];
        for m in if f == r { vec![f] } else { vec![f, r] } {
            let m = m as usize;
            self.collect_drops(m);
            self.medium_wake[m] = NO_WAKE;
            self.wake_medium(m);
        }
    }

    fn sample_flow(&mut self, f: usize) {
        let t = self.now.as_secs_f64();
        let fl = &self.flows[f];
        let mut s = FlowSample {
            row: self.res.flow_series.row(),
            trace: &mut self.res.cc_trace,
            t,
            flow: f as u32,
        };
        s.put("t_s", t.into());
        s.put("flow", (f as u64).into());
        fl.ends[SOURCE].sample(&mut s);
        fl.ends[SINK].sample(&mut s);
    }

    fn sample(&mut self) {
        for f in 0..self.flows.len() {
            if self.flows[f].started && self.flows[f].end != FlowEnd::Finished {
                self.sample_flow(f);
            }
        }
        self.sample_links();
    }

    fn sample_links(&mut self) {
        let t = self.now.as_secs_f64();
        for ch in &self.wiring.rows {
            let mut row = self.res.link_series.row();
            row.put("t_s", t.into());
            let (link, direction) = ch.names(self.sc);
            row.put("link", link.into());
            row.put("direction", direction.into());
            self.wiring.media[ch.medium as usize].sample(ch.channel as usize, self.now, &mut row);
        }
    }

    /// Series tables without samples (`sample = "off"`) still get their columns, so the
    /// schema does not depend on the sampling: publish one sample of everything, drop it.
    fn declare_series(&mut self) {
        if self.res.flow_series.rows() == 0 {
            self.res.flow_series.declaring(true);
            for f in 0..self.flows.len() {
                self.sample_flow(f);
            }
            self.res.flow_series.declaring(false);
            self.res.cc_trace = Trace::default();
        }
        if self.res.link_series.rows() == 0 {
            self.res.link_series.declaring(true);
            self.sample_links();
            self.res.link_series.declaring(false);
        }
    }

    /// No data lost silently: what the sink delivered must match what the source sent.
    fn check_end(&self) -> Result<(), SimError> {
        for (i, fl) in self.flows.iter().enumerate() {
            let src = fl.ends[SOURCE].progress();
            let delivered = fl.ends[SINK].progress().app_bytes;
            let flow = i as u32;
            if delivered > src.sent_bytes {
                return Err(self.violation(Violation::DeliveredMismatch {
                    flow,
                    delivered,
                    expected: src.sent_bytes,
                }));
            }
            if fl.reliable && src.finished_at.is_some() && delivered != src.app_bytes {
                return Err(self.violation(Violation::DeliveredMismatch {
                    flow,
                    delivered,
                    expected: src.app_bytes,
                }));
            }
        }
        Ok(())
    }

    fn collect(&mut self) {
        let end = self.now;
        collect_flows(&mut self.res.flows, self.sc, &self.flows, end);
        for ch in &self.wiring.rows {
            let mut row = self.res.links.row();
            let (link, direction) = ch.names(self.sc);
            row.put("link", link.into());
            row.put("direction", direction.into());
            self.wiring.media[ch.medium as usize].summary(ch.channel as usize, &mut row);
        }
    }
}

/// One row per flow: what every flow has, then what its endpoints publish.
fn collect_flows(table: &mut Table, sc: &Scenario, flows: &[Flow], end: Time) {
    for (i, (fl, spec)) in flows.iter().zip(&sc.flows).enumerate() {
        let src = fl.ends[SOURCE].progress();
        let sink = fl.ends[SINK].progress();
        let start = Time::ZERO + spec.start;
        let done_at = sink.finished_at.or(src.finished_at);
        let completed = spec
            .bytes
            .is_some_and(|b| sink.app_bytes == b && src.app_bytes == b);
        let until = if src.finished_at.is_some() {
            done_at.unwrap_or(end)
        } else {
            end
        };
        let secs = (until - start).as_secs_f64();
        let c = fl.count[0];
        let mut row = table.row();
        row.put("flow", (i as u64).into());
        row.put("name", spec.name.as_str().into());
        row.put("transport", spec.transport.name().into());
        if let Some(cc) = spec.transport.cc() {
            row.put("cc", cc.into());
        }
        if let Some(stack) = spec.transport.stack() {
            row.put("stack", stack.into());
        }
        row.put("bytes_target", spec.bytes.into());
        row.put("bytes_written", src.app_bytes.into());
        row.put("bytes_delivered", sink.app_bytes.into());
        row.put("start_s", start.as_secs_f64().into());
        row.put(
            "completion_s",
            completed
                .then(|| done_at.map(Time::as_secs_f64))
                .flatten()
                .into(),
        );
        row.put("completed", completed.into());
        row.put(
            "finished_s",
            src.finished_at.and(done_at).map(Time::as_secs_f64).into(),
        );
        let goodput = if secs > 0.0 {
            sink.app_bytes as f64 * 8.0 / secs
        } else {
            0.0
        };
        row.put("goodput_bps", goodput.into());
        row.put("packets_sent", c.sent.into());
        row.put("packets_delivered", c.delivered.into());
        row.put("packets_lost", c.dropped.into());
        row.put("packets_in_flight", c.in_network().into());
        fl.ends[SOURCE].summary(&mut row);
        fl.ends[SINK].summary(&mut row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_medium_too_large_for_the_flow_is_read_from_the_step() {
        assert_eq!(narrow_medium(0), 0);
        assert_eq!(narrow_medium(65_534), 65_534);
        assert_eq!(narrow_medium(65_535), FAR_MEDIUM);
        assert_eq!(narrow_medium(70_000), FAR_MEDIUM);
        assert_eq!(narrow_medium(u32::MAX), FAR_MEDIUM);
    }

    /// The bundled B2 scenario with `flows` flows.
    fn b2(flows: usize) -> Scenario {
        let text = include_str!("../../../python/tcplab/data/b2.toml");
        let text = text.replace("count = 100", &format!("count = {flows}"));
        crate::parse_scenario_str(&text, "b2.toml").unwrap()
    }

    /// A flow whose two routes fit in a cache line is placed in one line (if it would
    /// cross into the next, it starts there); larger flows are not moved.
    #[test]
    fn a_flow_that_fits_a_line_is_not_split_across_two() {
        assert_eq!(LINE_STEPS, 8);
        assert_eq!(StepArena::place(0, 8), 0);
        assert_eq!(StepArena::place(8, 8), 8);
        assert_eq!(StepArena::place(4, 4), 4);
        assert_eq!(StepArena::place(5, 4), 8);
        assert_eq!(StepArena::place(13, 6), 16);
        assert_eq!(
            StepArena::place(13, 10),
            13,
            "larger than a line: not moved"
        );
        let sc = b2(37);
        let wiring = Wiring::new(&sc, 1);
        let mut arena = StepArena::new(&sc);
        let capacity = arena.capacity();
        assert_eq!(
            arena[..].iter().map(|s| s.medium).max(),
            Some(Step::END.medium)
        );
        let starts: Vec<usize> = sc
            .flows
            .iter()
            .map(|f| arena.push_flow(&wiring, &sc.links, &f.path)[0].get() as usize)
            .collect();
        assert_eq!(
            arena.capacity(),
            capacity,
            "the layout fitted the room made for it"
        );
        let base = arena.as_ptr() as usize;
        for (i, f) in sc.flows.iter().enumerate() {
            let first = base + starts[i] * std::mem::size_of::<Step>();
            let last = first + (StepArena::flow_steps(f.path.len()) - 1) * 8;
            assert_eq!(first / 64, last / 64, "flow {i}'s steps in one line");
            // There, then back, each ended.
            let hops = f.path.len();
            let there = &arena[starts[i]..starts[i] + hops + 1];
            let back = &arena[starts[i] + hops + 1..starts[i] + 2 * hops + 2];
            assert_eq!(there[hops].medium, Step::END.medium);
            assert_eq!(back[hops].medium, Step::END.medium);
            for (k, &h) in f.path.iter().enumerate() {
                assert_eq!(there[k].medium, wiring.step(&sc.links, h, false).medium);
                assert_eq!(
                    back[hops - 1 - k].medium,
                    wiring.step(&sc.links, h, true).medium
                );
            }
        }
        assert!(starts[0] >= 1);
        assert_eq!(arena[0].medium, Step::END.medium);
        let used = sc.flows.len() * StepArena::flow_steps(sc.flows[0].path.len());
        assert!(
            arena.len() <= used + LINE_STEPS,
            "no padding between 8-step flows"
        );
    }

    /// Only a medium whose packets go on to different media looks ahead: B2's bottleneck
    /// directions, not the access links (whose next hop is the bottleneck, or the end).
    #[test]
    fn only_media_whose_packets_go_on_to_several_media_look_ahead() {
        let hop = |medium| Step {
            medium,
            from: 0,
            to: 1,
        };
        let end = Step::END;
        // Two flows: 0 → 2 → 3 and 1 → 2 → 4 (the bottleneck 2), back 5 → 6 → 7 and
        // 8 → 6 → 7 (medium 6 always goes on to 7); medium 9 carries nothing.
        let steps = [
            end,
            hop(0),
            hop(2),
            hop(3),
            end,
            hop(5),
            hop(6),
            hop(7),
            end,
            hop(1),
            hop(2),
            hop(4),
            end,
            hop(8),
            hop(6),
            hop(7),
            end,
        ];
        let fans = fan_out(&steps, 10);
        let want: Vec<bool> = (0..10).map(|m| m == 2).collect();
        assert_eq!(fans, want);

        let sc = b2(3);
        let wiring = Wiring::new(&sc, 1);
        let mut steps = StepArena::new(&sc);
        for f in &sc.flows {
            steps.push_flow(&wiring, &sc.links, &f.path);
        }
        let fans = fan_out(&steps, wiring.media.len());
        // The one link every flow crosses.
        let bottleneck = (0..sc.links.len())
            .find(|&k| sc.flows.iter().all(|f| f.path.iter().any(|h| h.link == k)))
            .unwrap();
        let want: Vec<bool> = (0..wiring.media.len())
            .map(|m| wiring.of_link[bottleneck].contains(&(m as u32)))
            .collect();
        assert_eq!(fans, want, "the bottleneck's two directions only");
    }

    #[test]
    fn a_flow_takes_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Flow>(), 128);
        assert_eq!(std::mem::align_of::<Flow>(), 64);
    }
}
