//! One direction of a link: FIFO drop-tail queue, transmitter, propagation, loss, jitter.
//!
//! Transmission times are computed when a packet is admitted (the transmitter is FIFO, so
//! a packet's start is the later of its arrival and the previous packet's end). A packet
//! therefore costs the driver one wake-up per hop, at its arrival on the far end, instead
//! of two (end of serialisation, end of propagation). When parameters change, packets
//! that have not started transmitting are re-timed under the new ones.
//!
//! The FIFO `pipe` holds packets in transmission order until they leave. Without
//! reordering that is also the arrival order. With `reorder` on, an [`ArrivalOrder`] heap
//! says which packet leaves next; delivered packets leave holes in the FIFO that are
//! popped once everything ahead of them has gone and they have finished transmitting.
//!
//! A link with a queue discipline other than drop-tail (see [`Discipline`]) keeps its
//! waiting packets in the discipline instead, off the fast path: the FIFO then holds only
//! packets that have started transmitting. When the transmitter frees, the discipline
//! gives the next packet, at that exact time, its sojourn known. Those dequeues are
//! caught up (in time order) at the link's next admission, wake-up or sample; since the
//! packet in service is in the FIFO whenever packets wait, the FIFO's next arrival is
//! always a wake-up no later than the next dequeue's packet reaches the far end. Packets
//! the discipline drops after admitting them (and, on this path, losses on the wire) are
//! handed back through [`Link::poll_dropped`].

use crate::admit::Admit;
use crate::arrivals::ArrivalOrder;
use crate::capacity::{Capacity, TraceCursor};
use crate::counters::LinkCounters;
use crate::discipline::Discipline;
use crate::jitter::Jitter;
use crate::link_columns::{series, summary};
use crate::loss::{LossModel, LossProcess};
use crate::params::{LinkParams, QueueLimit};
use crate::qdisc::Qdisc;
use crate::ring::{Ring, Spares};
use crate::Packet;
use std::collections::VecDeque;
use std::sync::Arc;
use tcplab_core::{Dur, Metrics, Rng, Time};

/// One packet in the FIFO: 32 bytes (two to a cache line) for a 16-byte packet with a
/// niche, as the simulator's is, and aligned so none straddles two lines.
///
/// Its transmission start is not stored: a packet that waited starts when the one ahead
/// of it in the FIFO ends (see [`Link::advance_service`]), and one that did not wait had
/// started by any later check. Its arrival (what every poll reads) is stored whole, its
/// transmission end as nanoseconds before the arrival (read only to know when the packet
/// behind it starts), and its jitter draw not at all when it is zero; a packet whose
/// arrival lies [`FAR`] or more nanoseconds after its transmission end (a delay over
/// 4.29 s), or that drew jitter, keeps its transmission end and draw exactly in the
/// link's [`Far`] table, and its `back` is [`FAR`].
#[derive(Debug)]
#[repr(align(32))]
struct Entry<P> {
    /// `None` once the channel lost it or it was delivered (a hole in the FIFO).
    pkt: Option<P>,
    len: u32,
    /// `arrive − tx_end` in nanoseconds, or [`FAR`].
    back: u32,
    arrive: Time,
}

/// What a ring slot holds when no packet is there.
impl<P> Default for Entry<P> {
    fn default() -> Self {
        Entry {
            pkt: None,
            len: 0,
            back: 0,
            arrive: Time::ZERO,
        }
    }
}

/// FIFO buffers that link directions whose FIFO emptied gave up, for the next direction
/// that needs one: one per driver, given to by [`Link::spare_fifo`] and taken from by
/// [`Link::handle_packet_spared`].
///
/// Why: with thousands of link directions each carries a packet only now and then, so a
/// buffer of its own is out of cache at every burst (at 1000 flows in B2, 268,000 of the
/// run's 701,000 simulated last-level write misses were pushes into access links' own
/// buffers). A buffer given up when its FIFO empties and taken by the next FIFO that
/// starts, last given first, is one that was in use a moment ago. A direction takes back
/// a buffer of the capacity it had, so it still grows only to its high-water mark.
pub struct FifoSpares<P>(Spares<Entry<P>>);

impl<P> Default for FifoSpares<P> {
    fn default() -> Self {
        FifoSpares(Spares::default())
    }
}

/// An [`Entry::back`] that says the times are in the [`Far`] table.
const FAR: u32 = u32::MAX;

/// The transmission end and jitter draw of an entry that does not store them itself (see
/// [`Entry`]), by the entry's absolute index.
#[derive(Clone, Copy, Debug)]
struct Far {
    abs: u64,
    tx_end: Time,
    jitter: Dur,
}

/// What only loss models, jitter, reordering and outages need. Most links of a large
/// topology have none of these, so it is allocated only once the parameters ask for one
/// of them (and then kept): 176 bytes a direction fewer for the plain links.
#[derive(Debug)]
struct Extras<P> {
    loss: LossProcess,
    /// Jitter draws, separate from the loss stream so enabling jitter changes no loss.
    jitter_rng: Rng,
    /// Pending packets by arrival. Either empty (the FIFO order is the arrival order) or
    /// holding exactly the pending packets of `pipe` (while `reorder` is on, and after it
    /// is turned off until the packets sent under it have left).
    arrivals: ArrivalOrder,
    /// Packets in flight when the link went down, until the driver collects them.
    outage_drops: Vec<P>,
    /// Times of the FIFO entries marked [`FAR`], in FIFO order (every entry of a link
    /// with jitter; otherwise only arrivals 4.29 s or more after the transmission end).
    far: VecDeque<Far>,
    /// The queue discipline and its waiting packets (none for drop-tail).
    qdisc: Option<Qdisc<P>>,
}

/// The trace cursor of a capacity model, if it follows a trace.
fn trace_of(c: Capacity) -> Option<Box<TraceCursor>> {
    match c {
        Capacity::Rate(_) => None,
        Capacity::Trace(c) => Some(c),
    }
}

/// True if `p` needs [`Extras`]: a loss model, jitter, reordering, an outage or a queue
/// discipline.
fn needs_extras(p: &LinkParams) -> bool {
    p.loss != LossModel::None
        || p.jitter != Jitter::NONE
        || p.reorder
        || !p.up
        || p.discipline != Discipline::DropTail
}

/// The parameters every admission reads, copied out of [`LinkParams`] (which is kept
/// whole, cold, for sampling, re-timing and `params()`) into the link's second cache
/// line, with the queue's high-water mark.
#[derive(Clone, Copy, Debug)]
struct Gate {
    delay: Dur,
    /// Drop-tail bound in packets or bytes (`u64::MAX`: unlimited).
    limit: u64,
    /// The constant rate in bits/s (at least 1: [`Dur::transmission`] takes a rate of 0
    /// as 1), or 0 for a trace-driven transmitter (see `Link::trace`).
    rate: u64,
    /// Largest number of packets ever waiting (the counter `max_queue_pkts`): kept here,
    /// in the padding of the admission line, so a packet that waits touches no other
    /// line. It is carried across `set_params`. (A u32: 2^32 waiting packets would take
    /// 128 GB of FIFO entries.)
    max_queue: u32,
    limit_in_bytes: bool,
    /// The link is up and has no queue discipline: the admission's fast path (a down
    /// link or a discipline take the other, decided by this one test).
    plain: bool,
    /// [`REORDER`] (the parameters' `reorder`) and [`MAY_HOLD_ARRIVALS`]: 0 when packets
    /// leave in FIFO order, so the common case decides that from this byte, without
    /// reading the [`Extras`] (a lossy link has them) for their arrival order.
    order: u8,
    /// `params.jitter` draws something (kept so the common case skips the call).
    has_jitter: bool,
}

/// [`Gate::order`]: the parameters ask for reordering.
const REORDER: u8 = 1;
/// [`Gate::order`]: packets have been ordered by arrival in the [`Extras`] (which may
/// still hold some): set when the first is, kept across parameter changes, never cleared.
const MAY_HOLD_ARRIVALS: u8 = 2;
/// [`Gate::order`]: a queue discipline holds the waiting packets (see the module docs).
const QDISC: u8 = 4;

impl Gate {
    fn of(p: &LinkParams) -> Gate {
        let (limit, limit_in_bytes) = match p.queue {
            QueueLimit::Packets(n) => (n as u64, false),
            QueueLimit::Bytes(b) => (b, true),
            QueueLimit::Unlimited => (u64::MAX, false),
        };
        Gate {
            delay: p.delay,
            limit,
            rate: if p.trace.is_some() {
                0
            } else {
                p.rate_bps.max(1)
            },
            max_queue: 0,
            limit_in_bytes,
            plain: p.up && p.discipline == Discipline::DropTail,
            order: if p.reorder { REORDER } else { 0 }
                | if p.discipline != Discipline::DropTail {
                    QDISC
                } else {
                    0
                },
            has_jitter: p.jitter != Jitter::NONE,
        }
    }
}

/// Counters no packet hop touches (drops), and what the derived counters need (see
/// [`Link::counters`]).
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    dropped_queue: u64,
    dropped_loss: u64,
    dropped_down: u64,
    /// Offered while the link was down (part of `dropped_down`; the rest were in flight).
    refused_down: u64,
    /// Entries an outage cut off the FIFO's tail (they had been sent).
    cut: u64,
    /// Packets waiting in a discipline when the link went down (part of `dropped_down`;
    /// never sent).
    unsent_down: u64,
}

/// One direction of a link (see the module docs).
///
/// With thousands of link directions, every packet hop finds its link out of cache, so
/// everything an admission and a delivery touch is packed into the first two cache lines:
/// the FIFO, transmitter and delivered count (line 0), the waiting and byte counts, the
/// loss/extras pointer and the admission parameters (line 1). The packet counts a hop
/// would otherwise update are derived from the FIFO's cursors (see [`Link::counters`]).
/// The drop counters, a trace's capacity model, the whole parameters, the loss stream and
/// what only loss models, jitter, reordering and outages need (in a box that plain links
/// never allocate) come after and stay cold.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Link<P> {
    /// Every packet serialised or waiting, in FIFO order, until it arrives (or would have).
    pipe: Ring<Entry<P>>,
    /// Absolute index of `pipe[0]`.
    head_abs: u64,
    /// Absolute index of the first entry that had not started transmitting at the last
    /// check (never below `head_abs`): the entries from it on are the waiting ones.
    svc_abs: u64,
    /// When the transmitter is free again.
    busy_until: Time,
    /// Latest arrival of a pending packet, so without `reorder` none arrives before it.
    last_arrive: Time,
    delivered_pkts: u64,
    /// Bytes waiting (not yet started) as of the last check.
    waiting_bytes: u64,
    delivered_bytes: u64,
    sent_bytes: u64,
    extras: Option<Box<Extras<P>>>,
    gate: Gate,
    tally: Tally,
    /// A trace-driven transmitter's cursor (`gate.rate` is then 0; a constant rate is
    /// `gate.rate`). Not a [`Capacity`]: its tag would be the niche of the simulator's
    /// medium enum, which every admission reads, and it lies in a cold line; an
    /// `Option<Box>` has no niche left, so that tag is read from the admission line.
    trace: Option<Box<TraceCursor>>,
    /// Shared between directions with equal parameters (a topology's access links
    /// usually all have the same): the parameters are read only when they change, by
    /// sampling and on making the [`Extras`], so sharing costs nothing per packet and
    /// saves their ~150 bytes in each direction. Replaced, not edited, by `set_params`.
    params: Arc<LinkParams>,
    /// The loss stream as given, untouched until [`Extras`] are made from it (a loss
    /// model without packets drawn from it is the same as none, so making them late
    /// changes no draw).
    rng: Rng,
}

/// When a packet that finishes transmitting at `tx_end` reaches the far end under `p`;
/// raises `last` past it. A lost packet never arrives: its nominal time only paces the
/// FIFO, so it carries no jitter and cannot hold back the packets behind it.
fn arrival(g: &Gate, last: &mut Time, tx_end: Time, jitter: Dur, lost: bool) -> Time {
    let base = tx_end + g.delay + if lost { Dur::ZERO } else { jitter };
    if g.order & REORDER != 0 {
        if !lost {
            *last = (*last).max(base);
        }
        base
    } else {
        // Never before `last`, so it becomes `last` as it is (one comparison, not two).
        let arrive = base.max(*last);
        if !lost {
            *last = arrive;
        }
        arrive
    }
}

impl<P: Packet> Link<P> {
    /// `rng` feeds the loss model; give each link direction its own named stream. Pass
    /// one `Arc` to several directions with equal parameters to store them once.
    pub fn new(params: impl Into<Arc<LinkParams>>, rng: Rng) -> Link<P> {
        let params: Arc<LinkParams> = params.into();
        let mut link = Link {
            trace: trace_of(Capacity::for_params(&params, Time::ZERO, None)),
            gate: Gate::of(&params),
            rng,
            extras: None,
            // Grown on demand (to the high-water mark, once): most links of a large
            // topology carry a handful of packets at a time.
            pipe: Ring::new(),
            head_abs: 0,
            svc_abs: 0,
            waiting_bytes: 0,
            busy_until: Time::ZERO,
            last_arrive: Time::ZERO,
            delivered_pkts: 0,
            delivered_bytes: 0,
            sent_bytes: 0,
            tally: Tally::default(),
            params,
        };
        if needs_extras(&link.params) {
            link.make_extras();
        }
        link
    }

    /// Makes the [`Extras`] as they would be had they existed from the start under a
    /// model without losses: the loss stream and the jitter stream untouched, the loss
    /// process having counted every packet that reached it (each one sent: the FIFO's
    /// entries so far, plus `extra` being pushed).
    fn make_extras_counting(&mut self, extra: u64) -> &mut Extras<P> {
        let jitter_rng = Rng::from_seed(self.rng.clone().next_u64() ^ 0x6a69_7474_6572);
        let mut loss = LossProcess::new(self.params.loss.clone(), self.rng.clone());
        loss.skip(self.sent_pkts() + extra);
        let qdisc = self.new_qdisc(Time::ZERO);
        self.extras.insert(Box::new(Extras {
            loss,
            jitter_rng,
            arrivals: ArrivalOrder::default(),
            outage_drops: Vec::new(),
            far: VecDeque::new(),
            qdisc,
        }))
    }

    /// The discipline the parameters ask for, from `now` (none for drop-tail), on its
    /// own stream (derived from the loss stream as the jitter stream is).
    fn new_qdisc(&self, now: Time) -> Option<Qdisc<P>> {
        let rng = Rng::from_seed(self.rng.clone().next_u64() ^ 0x0071_6469_7363);
        let p = &self.params;
        Qdisc::new(&p.discipline, p.queue, p.rate_bps, now, rng)
    }

    /// [`Link::make_extras_counting`] between packets.
    fn make_extras(&mut self) -> &mut Extras<P> {
        self.make_extras_counting(0)
    }

    /// Pending packets by arrival, if any are ordered that way.
    #[inline]
    fn arrivals(&self) -> Option<&ArrivalOrder> {
        self.extras
            .as_deref()
            .map(|x| &x.arrivals)
            .filter(|a| !a.is_empty())
    }

    pub fn params(&self) -> &LinkParams {
        &self.params
    }

    /// Everything the link did. The packets sent are the FIFO's entries ever pushed (its
    /// cursor, plus those an outage cut), the packets offered those sent and dropped at
    /// admission: neither is counted per packet.
    pub fn counters(&self) -> LinkCounters {
        let t = &self.tally;
        let sent_pkts = self.sent_pkts();
        LinkCounters {
            offered_pkts: sent_pkts
                + t.dropped_queue
                + t.refused_down
                + t.unsent_down
                + self.qdisc().map_or(0, |q| q.backlog().0),
            sent_pkts,
            sent_bytes: self.sent_bytes,
            delivered_pkts: self.delivered_pkts,
            delivered_bytes: self.delivered_bytes,
            max_queue_pkts: self.gate.max_queue as u64,
            dropped_queue: t.dropped_queue,
            dropped_loss: t.dropped_loss,
            dropped_down: t.dropped_down,
        }
    }

    /// Packets serialised onto the wire (see [`Link::counters`]).
    fn sent_pkts(&self) -> u64 {
        self.end_abs() + self.tally.cut
    }

    /// Absolute index one past the FIFO's last entry.
    #[inline(always)]
    fn end_abs(&self) -> u64 {
        self.head_abs + self.pipe.len() as u64
    }

    /// Packets waiting (not yet started) as of the last check.
    #[inline(always)]
    fn waiting_pkts(&self) -> u64 {
        self.end_abs() - self.svc_abs
    }

    /// Packets and bytes waiting for the transmitter at `now` (the one in service excluded).
    pub fn queue_len(&mut self, now: Time) -> (u64, u64) {
        self.advance_service(now);
        let (mut pkts, mut bytes) = (self.waiting_pkts(), self.waiting_bytes);
        if self.gate.order & QDISC != 0 {
            self.serve_qdisc(now);
            if let Some(q) = self.extras.as_deref_mut().and_then(|x| x.qdisc.as_mut()) {
                q.advance(now);
            }
            let (p, b) = self.qdisc().map_or((0, 0), |q| q.backlog());
            pkts += p;
            bytes += b;
        }
        (pkts, bytes)
    }

    /// The queue discipline, if the link has one.
    fn qdisc(&self) -> Option<&Qdisc<P>> {
        self.extras.as_deref()?.qdisc.as_ref()
    }

    /// What the queue discipline did (`None` for drop-tail).
    pub fn qdisc_counters(&self) -> Option<crate::QdiscCounters> {
        self.qdisc().map(|q| q.counters)
    }

    /// The sojourn times of the packets the discipline sent (`None` for drop-tail).
    pub fn sojourn(&self) -> Option<&crate::SojournHistogram> {
        self.qdisc().map(|q| &q.sojourn)
    }

    /// Dequeues from the discipline, at each time the transmitter frees up to `now`, the
    /// packets that start transmitting then (see the module docs).
    #[inline(always)]
    fn serve_qdisc(&mut self, now: Time) {
        if self.busy_until <= now {
            self.serve_qdisc_due(now);
        }
    }

    /// [`Link::serve_qdisc`] once the transmitter is free.
    #[inline(never)]
    fn serve_qdisc_due(&mut self, now: Time) {
        while self.busy_until <= now {
            let at = self.busy_until;
            let Some(x) = self.extras.as_deref_mut() else {
                return;
            };
            let Some(q) = x.qdisc.as_mut() else {
                return;
            };
            if q.is_empty() {
                return;
            }
            let before = x.outage_drops.len();
            let got = q.dequeue(at, &mut x.outage_drops);
            self.tally.dropped_queue += (x.outage_drops.len() - before) as u64;
            match got {
                Some(pkt) => self.push_sent(at, pkt),
                None => return,
            }
        }
    }

    /// Puts `pkt` on the wire at `at` off the fast path (a discipline's packet, or one
    /// moved between disciplines): a loss on the wire is handed back by `poll_dropped`.
    fn push_sent(&mut self, at: Time, pkt: P) {
        let x = self
            .extras
            .as_deref_mut()
            .expect("a discipline makes the extras");
        if x.loss.lose_next() {
            self.tally.dropped_loss += 1;
            let len = pkt.wire_len();
            x.outage_drops.push(pkt);
            self.push_entry(at, len, None, None);
        } else {
            self.push(at, pkt, false, None);
        }
    }

    /// The admission when the link is down or has a queue discipline: cold, so that the
    /// fast path's admission is laid out (and its packet kept in registers) as without it.
    #[cold]
    #[inline(never)]
    fn admit_slow(&mut self, now: Time, pkt: P) -> Admit {
        if !self.params.up {
            self.tally.dropped_down += 1;
            self.tally.refused_down += 1;
            return Admit::DroppedDown;
        }
        // Packets queued before a discipline was set wait in the FIFO.
        self.advance_service(now);
        self.serve_qdisc(now);
        let busy = self.busy_until > now;
        if !busy {
            // Idle (so nothing waits): the packet starts now.
            self.busy_until = now;
        }
        let x = self
            .extras
            .as_deref_mut()
            .expect("a discipline makes the extras");
        let q = x.qdisc.as_mut().expect("QDISC is set with a discipline");
        let before = x.outage_drops.len();
        let admit = q.enqueue(now, pkt, busy, &mut x.outage_drops);
        self.tally.dropped_queue +=
            (x.outage_drops.len() - before) as u64 + u64::from(admit == Admit::DroppedQueue);
        if busy {
            let waiting = u32::try_from(q.backlog().0 + self.waiting_pkts()).unwrap_or(u32::MAX);
            self.gate.max_queue = self.gate.max_queue.max(waiting);
        }
        self.serve_qdisc(now);
        admit
    }

    /// True if packets dropped after admission wait to be collected by
    /// [`Link::poll_dropped`] on a link with a discipline (a driver checks after each
    /// wake-up; outages are announced by `set_params`).
    #[inline(always)]
    pub fn has_dropped(&self) -> bool {
        self.gate.order & QDISC != 0
            && self
                .extras
                .as_deref()
                .is_some_and(|x| !x.outage_drops.is_empty())
    }

    // Always inlined: once per admission (and at sampling); LLVM had left it out of line
    // once the admission was inlined into a driver's `drain`, a call per admission.
    #[inline(always)]
    fn advance_service(&mut self, now: Time) {
        debug_assert!(self.svc_abs >= self.head_abs && self.svc_abs <= self.end_abs());
        // Nothing waits, or everything waiting has started (the last ends at busy_until).
        if self.svc_abs == self.end_abs() {
            return;
        }
        if self.busy_until <= now {
            self.svc_abs = self.end_abs();
            self.waiting_bytes = 0;
            return;
        }
        // The first waiting packet starts when the one ahead of it ends; with none ahead
        // in the FIFO, that one has arrived and left (no later than `now`), so it started.
        let mut i = (self.svc_abs - self.head_abs) as usize;
        let mut start = match i.checked_sub(1) {
            Some(prev) => self.tx_end_of(prev),
            None => Time::ZERO,
        };
        while let Some(e) = self.pipe.get(i) {
            if start > now {
                break;
            }
            // Decoded from the entry in hand, not looked up again.
            let (len, end) = (e.len, self.entry_tx_end(e, i));
            self.waiting_bytes -= len as u64;
            self.svc_abs += 1;
            start = end;
            i += 1;
        }
    }

    /// Offers a packet to the link at `now`.
    #[inline]
    pub fn handle_packet(&mut self, now: Time, pkt: P) -> Admit {
        self.admit(now, pkt, None)
    }

    /// [`Link::handle_packet`], taking the FIFO's buffer from `spares` if it gave its own
    /// up (see [`FifoSpares`]).
    #[inline]
    pub fn handle_packet_spared(&mut self, now: Time, pkt: P, spares: &mut FifoSpares<P>) -> Admit {
        self.admit(now, pkt, Some(&mut spares.0))
    }

    #[inline(always)]
    fn admit(&mut self, now: Time, pkt: P, spares: Option<&mut Spares<Entry<P>>>) -> Admit {
        if !self.gate.plain {
            return self.admit_slow(now, pkt);
        }
        self.advance_service(now);
        let len = pkt.wire_len() as u64;
        // The packet waits unless the transmitter is idle now.
        let full = self.busy_until > now
            && if self.gate.limit_in_bytes {
                self.waiting_bytes + len > self.gate.limit
            } else {
                self.waiting_pkts() >= self.gate.limit
            };
        if full {
            self.tally.dropped_queue += 1;
            return Admit::DroppedQueue;
        }
        let lost = match &mut self.extras {
            Some(x) => x.loss.lose_next(),
            None => false,
        };
        self.push(now, pkt, lost, spares);
        if lost {
            self.tally.dropped_loss += 1;
            Admit::DroppedLoss
        } else {
            Admit::Queued
        }
    }

    /// When a packet of `len` bytes admitted at `arrival` and starting at `start` ends
    /// (as [`Capacity::tx_end`]).
    #[inline(always)]
    fn tx_end(&mut self, arrival: Time, start: Time, len: u32) -> Time {
        // The rate first: it is in the admission line, the trace cursor is not.
        if self.gate.rate != 0 {
            return start + Dur::transmission(len as u64, self.gate.rate);
        }
        let c = self.trace.as_mut().expect("a rate of 0 follows a trace");
        c.serve(arrival, len)
    }

    /// True while packets may leave out of FIFO order.
    fn by_arrival(&self) -> bool {
        self.gate.order != 0 && (self.gate.order & REORDER != 0 || self.arrivals().is_some())
    }

    // Once per admission, from `handle_packet` only: inlined so the driver's admission is
    // one function (measured: out of line it cost B1 about 1 % more instructions).
    #[inline(always)]
    fn push(&mut self, now: Time, pkt: P, lost: bool, spares: Option<&mut Spares<Entry<P>>>) {
        let len = pkt.wire_len();
        self.push_entry(now, len, (!lost).then_some(pkt), spares)
    }

    /// [`Link::push`] of a packet of `len` bytes, `None` if the channel loses it.
    #[inline(always)]
    fn push_entry(
        &mut self,
        now: Time,
        len: u32,
        pkt: Option<P>,
        spares: Option<&mut Spares<Entry<P>>>,
    ) {
        let lost = pkt.is_none();
        let tx_start = now.max(self.busy_until);
        let tx_end = self.tx_end(now, tx_start, len);
        let jitter = if self.gate.has_jitter {
            self.draw_jitter()
        } else {
            Dur::ZERO
        };
        let arrive = arrival(&self.gate, &mut self.last_arrive, tx_end, jitter, lost);
        self.busy_until = tx_end;
        if tx_start > now {
            // Waits: with this one, `waiting_pkts() + 1` are waiting.
            self.waiting_bytes += len as u64;
            let waiting = u32::try_from(self.waiting_pkts() + 1).unwrap_or(u32::MAX);
            self.gate.max_queue = self.gate.max_queue.max(waiting);
        } else if self.svc_abs == self.end_abs() {
            // Starts at once: it is already in service.
            self.svc_abs += 1;
        }
        self.sent_bytes += len as u64;
        if !lost && self.by_arrival() {
            self.push_arrival(arrive);
        }
        // `arrive` is never before `tx_end` (delays and jitter are not negative); were
        // it, the difference would wrap to a large number and take the exact far path.
        let back = arrive.0.wrapping_sub(tx_end.0);
        let back = if back < FAR as u64 && jitter == Dur::ZERO {
            back as u32
        } else {
            self.push_far(tx_end, jitter)
        };
        self.pipe.push_back_spared(
            Entry {
                pkt,
                len,
                back,
                arrive,
            },
            spares,
        );
    }

    /// Keeps the times of the entry about to be pushed in the [`Far`] table.
    #[inline(never)]
    fn push_far(&mut self, tx_end: Time, jitter: Dur) -> u32 {
        let abs = self.head_abs + self.pipe.len() as u64;
        let x = match self.extras {
            Some(ref mut x) => x,
            // The entry is not in the FIFO yet, but it was sent.
            None => self.make_extras_counting(1),
        };
        x.far.push_back(Far {
            abs,
            tx_end,
            jitter,
        });
        FAR
    }

    /// The [`Far`] record of the entry at absolute index `abs` (marked [`FAR`]).
    #[cold]
    #[inline(never)]
    fn far(&self, abs: u64) -> &Far {
        let far = &self
            .extras
            .as_ref()
            .expect("far entries make the extras")
            .far;
        let k = far
            .binary_search_by_key(&abs, |f| f.abs)
            .expect("a far entry has its record");
        &far[k]
    }

    /// When `pipe[i]` finishes transmitting. No overflow: a compact entry's `back` is its
    /// arrival less its transmission end.
    #[inline(always)]
    fn tx_end_of(&self, i: usize) -> Time {
        self.entry_tx_end(&self.pipe[i], i)
    }

    /// [`Link::tx_end_of`] for `e`, which is `pipe[i]`.
    #[inline(always)]
    fn entry_tx_end(&self, e: &Entry<P>, i: usize) -> Time {
        if e.back != FAR {
            Time(e.arrive.0 - e.back as u64)
        } else {
            self.far(self.head_abs + i as u64).tx_end
        }
    }

    /// `pipe[i]`'s jitter draw.
    fn jitter_of(&self, i: usize) -> Dur {
        if self.pipe[i].back != FAR {
            Dur::ZERO
        } else {
            self.far(self.head_abs + i as u64).jitter
        }
    }

    /// Sets `pipe[i]`'s transmission end, arrival and jitter draw (re-timing, outages),
    /// moving its times into or out of the [`Far`] table as they now fit.
    fn set_times(&mut self, i: usize, tx_end: Time, arrive: Time, jitter: Dur) {
        let abs = self.head_abs + i as u64;
        let was_far = self.pipe[i].back == FAR;
        let back = arrive.0.wrapping_sub(tx_end.0);
        let fits = back < FAR as u64 && jitter == Dur::ZERO;
        let e = &mut self.pipe[i];
        e.arrive = arrive;
        e.back = if fits { back as u32 } else { FAR };
        if !fits && self.extras.is_none() {
            self.make_extras();
        }
        let Some(x) = self.extras.as_mut() else {
            return; // fits, and no far table: nothing else to do
        };
        let at = x.far.binary_search_by_key(&abs, |f| f.abs);
        match (at, fits) {
            (Ok(k), true) => {
                x.far.remove(k);
            }
            (Ok(k), false) => {
                x.far[k] = Far {
                    abs,
                    tx_end,
                    jitter,
                }
            }
            (Err(k), false) => x.far.insert(
                k,
                Far {
                    abs,
                    tx_end,
                    jitter,
                },
            ),
            (Err(_), true) => debug_assert!(!was_far),
        }
    }

    /// Out of line (with `push_arrival`) so the common admission stays small enough to
    /// be inlined into the driver.
    #[inline(never)]
    fn draw_jitter(&mut self) -> Dur {
        let x = self.extras.as_mut().expect("jitter makes the extras");
        self.params.jitter.draw(&mut x.jitter_rng)
    }

    /// Orders the packet about to enter the pipe by its arrival `arrive`.
    #[inline(never)]
    fn push_arrival(&mut self, arrive: Time) {
        let seq = self.head_abs + self.pipe.len() as u64;
        let x = self.extras.as_mut().expect("reordering makes the extras");
        x.arrivals.push(arrive, seq);
        self.gate.order |= MAY_HOLD_ARRIVALS;
    }

    /// True if admitting a packet now cannot change [`Self::poll_timeout`]: packets leave
    /// in FIFO order and one is already in the pipe, so a new one only joins the back.
    /// Lets a driver skip re-reading the next wake-up after most admissions.
    #[inline]
    pub fn admission_keeps_timeout(&self) -> bool {
        !self.pipe.is_empty()
            && (self.gate.order == 0
                || (self.gate.order & REORDER == 0 && self.arrivals().is_none()))
    }

    /// When the next packet reaches the far end (without `reorder`, possibly one the
    /// channel lost: the wake-up then only clears it).
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.gate.order != 0 {
            if let Some(a) = self.arrivals() {
                return a.next_arrival();
            }
        }
        self.pipe.front().map(|e| e.arrive)
    }

    /// The packet at the FIFO's front, if any (without reordering, the next to leave;
    /// `None` for a hole): lets a driver look one packet ahead.
    #[inline(always)]
    pub fn peek_front(&self) -> Option<&P> {
        self.pipe.front()?.pkt.as_ref()
    }

    /// The next packet that has reached the far end by `now`, if any. Always inlined:
    /// called twice per packet hop by a driver's loop, and out of line the call and its
    /// register saves were about a third of its cost.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<P> {
        if self.gate.order != 0 && self.prepare_ordered(now) {
            return self.poll_by_arrival(now);
        }
        self.poll_fifo(now)
    }

    /// Before `poll_transmit` when packets may leave out of FIFO order or a discipline
    /// holds the waiting ones: dequeues what the discipline releases by `now`, and tells
    /// whether packets leave by arrival (else in FIFO order). Small and out of line, so
    /// that the FIFO poll stays the inlined one (as one function with it, its register
    /// saves cost about 18 instructions a poll).
    #[inline(never)]
    fn prepare_ordered(&mut self, now: Time) -> bool {
        if self.gate.order & QDISC != 0 {
            self.serve_qdisc(now);
        }
        self.arrivals().is_some()
    }

    /// `poll_transmit` in FIFO order.
    #[inline(always)]
    fn poll_fifo(&mut self, now: Time) -> Option<P> {
        loop {
            if self.pipe.front()?.arrive > now {
                return None;
            }
            let e = self.pop_head().expect("front exists");
            if self.svc_abs < self.head_abs {
                // It had started (it arrived), but no check since had moved the cursor.
                self.svc_abs = self.head_abs;
                self.waiting_bytes -= e.len as u64;
            }
            if let Some(pkt) = e.pkt {
                return Some(self.delivered(pkt));
            }
        }
    }

    /// `poll_transmit` while packets may leave out of FIFO order.
    #[inline(never)]
    fn poll_by_arrival(&mut self, now: Time) -> Option<P> {
        // Account for packets that started transmitting before any leaves the pipe.
        self.advance_service(now);
        let x = self.extras.as_mut().expect("packets by arrival");
        let seq = x.arrivals.pop_due(now)?;
        let e = &mut self.pipe[(seq - self.head_abs) as usize];
        let pkt = e
            .pkt
            .take()
            .expect("the arrival order holds pending packets");
        self.pop_finished(now);
        Some(self.delivered(pkt))
    }

    /// Gives the FIFO's buffer to `spares` if the FIFO is empty (see [`FifoSpares`]): for
    /// a driver's wake-up that found nothing more to deliver (then `poll_timeout` is
    /// `None`, unless packets that may leave out of FIFO order left holes behind).
    /// A link with a discipline keeps its buffer (its dequeues push without spares).
    #[inline(never)]
    pub fn spare_fifo(&mut self, spares: &mut FifoSpares<P>) {
        if self.gate.order & QDISC != 0 {
            return;
        }
        self.pipe.give_if_empty(&mut spares.0);
    }

    /// A packet lost after admission (in flight when the link went down), so the driver
    /// can account for every packet it offered. Call after `set_params`.
    #[inline]
    pub fn poll_dropped(&mut self) -> Option<P> {
        self.extras.as_mut()?.outage_drops.pop()
    }

    /// Publishes the state of the queue and the cumulative counters (one time-series row;
    /// the columns are declared in `link_columns.rs`).
    pub fn sample(&mut self, now: Time, out: &mut dyn Metrics) {
        let (qp, qb) = self.queue_len(now);
        let c = self.counters();
        out.put(&series::QUEUE_PKTS, qp.into());
        out.put(&series::QUEUE_BYTES, qb.into());
        out.put(&series::DELIVERED_BYTES, c.delivered_bytes.into());
        out.put(&series::DROPPED_QUEUE, c.dropped_queue.into());
        out.put(&series::DROPPED_LOSS, c.dropped_loss.into());
        out.put(&series::DROPPED_DOWN, c.dropped_down.into());
        if let Some(q) = self.qdisc() {
            q.sample(out);
        }
    }

    /// Publishes the final counters (one row of the links table; the columns are declared
    /// in `link_columns.rs`).
    pub fn summary(&self, out: &mut dyn Metrics) {
        let c = self.counters();
        out.put(&summary::OFFERED_PKTS, c.offered_pkts.into());
        out.put(&summary::SENT_PKTS, c.sent_pkts.into());
        out.put(&summary::SENT_BYTES, c.sent_bytes.into());
        out.put(&summary::DELIVERED_PKTS, c.delivered_pkts.into());
        out.put(&summary::DROPPED_QUEUE, c.dropped_queue.into());
        out.put(&summary::DROPPED_LOSS, c.dropped_loss.into());
        out.put(&summary::DROPPED_DOWN, c.dropped_down.into());
        out.put(&summary::MAX_QUEUE_PKTS, c.max_queue_pkts.into());
        if let Some(q) = self.qdisc() {
            q.summary(out);
        }
    }

    #[inline]
    fn delivered(&mut self, pkt: P) -> P {
        self.delivered_pkts += 1;
        self.delivered_bytes += pkt.wire_len() as u64;
        pkt
    }

    /// Takes the FIFO's first entry (a FIFO that empties restarts at the front of its
    /// buffer: see [`Ring`]).
    #[inline]
    fn pop_head(&mut self) -> Option<Entry<P>> {
        let e = self.pipe.pop_front()?;
        if e.back == FAR {
            self.pop_far();
        }
        self.head_abs += 1;
        Some(e)
    }

    /// Drops the [`Far`] record of the entry just popped from the front.
    #[cold]
    #[inline(never)]
    fn pop_far(&mut self) {
        let x = self.extras.as_mut().expect("far entries make the extras");
        let f = x.far.pop_front();
        debug_assert_eq!(f.map(|f| f.abs), Some(self.head_abs));
    }

    /// Pops leading holes that have finished transmitting (the transmitter no longer needs
    /// them to know when it frees up).
    fn pop_finished(&mut self, now: Time) {
        while let Some(e) = self.pipe.front() {
            if e.pkt.is_some() || self.tx_end_of(0) > now {
                break;
            }
            self.pop_head();
            debug_assert!(
                self.svc_abs >= self.head_abs,
                "a finished packet had started"
            );
        }
    }

    /// Applies new parameters from `now` on.
    ///
    /// Going down loses everything not yet arrived. A rate change re-times packets that
    /// have not started transmitting; the one in service finishes at the old rate. A delay
    /// change applies to packets that finish transmitting from now on. Turning `reorder`
    /// off keeps the arrival times already drawn; later packets arrive after all of them.
    pub fn set_params(&mut self, now: Time, params: LinkParams) {
        // Packets that started since the last check are in service, not waiting.
        self.advance_service(now);
        match &mut self.extras {
            Some(x) => x.loss.set_model(params.loss.clone()),
            None if needs_extras(&params) => {
                Arc::make_mut(&mut self.params).loss = params.loss.clone();
                self.make_extras();
            }
            None => {}
        }
        if self.gate.order & QDISC != 0 {
            // Dequeues due before the change happen under the old parameters.
            self.serve_qdisc(now);
        }
        let was_up = self.params.up;
        let old_discipline = self.params.discipline.clone();
        let same_capacity =
            self.params.rate_bps == params.rate_bps && self.params.trace == params.trace;
        let old = match self.trace.take() {
            Some(c) => Capacity::Trace(c),
            None => Capacity::Rate(self.gate.rate),
        };
        self.trace = trace_of(Capacity::for_params(&params, now, Some(old)));
        let new = Gate::of(&params);
        self.gate = Gate {
            max_queue: self.gate.max_queue,
            order: new.order | self.gate.order & MAY_HOLD_ARRIVALS,
            ..new
        };
        self.params = Arc::new(params);
        if self.params.discipline != old_discipline {
            self.change_discipline(now);
        }
        if !self.params.up {
            if was_up {
                self.drop_in_flight(now);
            }
        } else {
            self.retime_waiting(now, same_capacity);
        }
        if self.by_arrival() {
            self.rebuild_arrivals();
        }
    }

    /// Installs the discipline of the new parameters at `now`. Packets waiting in the
    /// old one are offered to the new one as if they arrived now (or, for drop-tail,
    /// queued in the FIFO behind the packet in service).
    fn change_discipline(&mut self, now: Time) {
        let new = self.new_qdisc(now);
        let mut moved = Vec::new();
        if let Some(x) = self.extras.as_deref_mut() {
            if let Some(mut old) = x.qdisc.take() {
                old.flush(&mut moved);
            }
        }
        if new.is_some() && self.extras.is_none() {
            self.make_extras();
        }
        if let Some(x) = self.extras.as_deref_mut() {
            x.qdisc = new;
        }
        for pkt in moved {
            if self.gate.order & QDISC != 0 {
                let busy = self.busy_until > now;
                let x = self.extras.as_deref_mut().expect("made above");
                let q = x.qdisc.as_mut().expect("QDISC is set with a discipline");
                let before = x.outage_drops.len();
                let admit = q.enqueue(now, pkt, busy, &mut x.outage_drops);
                if admit == Admit::DroppedQueue {
                    // Admitted before: handed back like a dequeue drop.
                    self.tally.dropped_queue += 1;
                }
                self.tally.dropped_queue += (x.outage_drops.len() - before) as u64;
            } else {
                self.busy_until = self.busy_until.max(now);
                self.push_sent(self.busy_until, pkt);
            }
        }
        if self.gate.order & QDISC != 0 {
            self.serve_qdisc(now);
        }
    }

    /// Re-sorts the pending packets by their (possibly re-timed) arrivals.
    fn rebuild_arrivals(&mut self) {
        if self.extras.is_none() {
            self.make_extras();
        }
        let x = self.extras.as_mut().expect("made above");
        x.arrivals.clear();
        x.arrivals.reserve(self.pipe.capacity());
        self.gate.order |= MAY_HOLD_ARRIVALS;
        for (i, e) in self.pipe.iter().enumerate() {
            if e.pkt.is_some() {
                x.arrivals.push(e.arrive, self.head_abs + i as u64);
            }
        }
    }

    fn drop_in_flight(&mut self, now: Time) {
        if let Some(x) = self.extras.as_deref_mut() {
            if let Some(q) = x.qdisc.as_mut() {
                let before = x.outage_drops.len();
                q.flush(&mut x.outage_drops);
                let n = (x.outage_drops.len() - before) as u64;
                self.tally.dropped_down += n;
                self.tally.unsent_down += n;
            }
        }
        // Packets that arrived but were not yet collected by the driver are kept.
        let by_arrival = !self
            .extras
            .as_ref()
            .expect("an outage makes the extras")
            .arrivals
            .is_empty();
        if !by_arrival {
            // FIFO order is arrival order: the lost ones are a suffix.
            let keep = self.pipe.iter().take_while(|e| e.arrive <= now).count();
            let first_dropped = self.head_abs + keep as u64;
            let x = self.extras.as_mut().expect("an outage makes the extras");
            let tally = &mut self.tally;
            tally.cut += (self.pipe.len() - keep) as u64;
            self.pipe.cut(keep, |e| {
                if let Some(p) = e.pkt {
                    tally.dropped_down += 1;
                    x.outage_drops.push(p);
                }
            });
            let k = x.far.partition_point(|f| f.abs < first_dropped);
            x.far.truncate(k);
        } else {
            // Holes in place; their times are clamped so they stop holding the transmitter.
            for i in 0..self.pipe.len() {
                let arrive = self.pipe[i].arrive;
                let x = self.extras.as_mut().expect("an outage makes the extras");
                let e = &mut self.pipe[i];
                if arrive > now {
                    if let Some(p) = e.pkt.take() {
                        self.tally.dropped_down += 1;
                        x.outage_drops.push(p);
                    }
                }
                if e.pkt.is_none() {
                    let (tx_end, jitter) = (self.tx_end_of(i).min(now), self.jitter_of(i));
                    self.set_times(i, tx_end, arrive.min(now), jitter);
                }
            }
            let x = self.extras.as_mut().expect("an outage makes the extras");
            x.arrivals.keep_arrived(now);
        }
        self.svc_abs = self.end_abs();
        self.pop_finished(now);
        self.waiting_bytes = 0;
        self.busy_until = now;
        self.last_arrive = self.pending_last_arrive(self.pipe.len());
        // Opportunities the dropped packets had reserved are free again.
        if let Some(c) = &mut self.trace {
            c.seek_after(now);
        }
    }

    /// Latest arrival among the pending packets of `pipe[..n]`.
    fn pending_last_arrive(&self, n: usize) -> Time {
        self.pipe
            .iter()
            .take(n)
            .filter(|e| e.pkt.is_some())
            .map(|e| e.arrive)
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// Re-times packets not yet started. With the capacity unchanged only their arrival
    /// moves (a new delay; each keeps its jitter draw); otherwise they are served afresh
    /// from when the transmitter frees (a trace's leftover bytes are not carried across
    /// the change).
    fn retime_waiting(&mut self, now: Time, same_capacity: bool) {
        let first_waiting = (self.svc_abs - self.head_abs) as usize;
        // Transmitter frees at the end of the packet in service (or now if idle).
        let mut free = now;
        if first_waiting > 0 {
            free = free.max(self.tx_end_of(first_waiting - 1));
        }
        self.last_arrive = self.pending_last_arrive(first_waiting);
        for i in first_waiting..self.pipe.len() {
            let e = &self.pipe[i];
            let (len, lost, mut tx_end) = (e.len, e.pkt.is_none(), self.tx_end_of(i));
            if !same_capacity {
                // It starts at `free`, when the one ahead of it ends (see `Entry`).
                tx_end = self.tx_end(free, free, len);
            }
            let jitter = self.jitter_of(i);
            let arrive = arrival(&self.gate, &mut self.last_arrive, tx_end, jitter, lost);
            self.set_times(i, tx_end, arrive, jitter);
            free = tx_end;
        }
        self.busy_until = free;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LossModel;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Pkt(u32, u32);
    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            self.1
        }
    }

    fn link(rate: u64, delay_ms: u64, q: QueueLimit) -> Link<Pkt> {
        Link::new(
            LinkParams::new(rate, Dur::from_millis(delay_ms)).with_queue(q),
            Rng::from_seed(1),
        )
    }

    fn drain(l: &mut Link<Pkt>) -> Vec<(Time, Pkt)> {
        let mut out = vec![];
        while let Some(t) = l.poll_timeout() {
            while let Some(p) = l.poll_transmit(t) {
                out.push((t, p));
            }
        }
        out
    }

    /// The counters derived from the FIFO's cursors (packets offered and sent) and the
    /// high-water mark kept in the admission line equal the counts of what the link
    /// answered, through queueing, tail drops, losses, outages (FIFO and by-arrival
    /// order), jitter and re-timing.
    #[test]
    fn derived_counters_equal_the_packets_counted_by_their_fates() {
        let mut want = LinkCounters::default();
        let mut rng = Rng::from_seed(7);
        let base = LinkParams::new(12_000_000, Dur::from_millis(3))
            .with_queue(QueueLimit::Packets(6))
            .with_loss(LossModel::Bernoulli { p: 0.1 });
        let mut l: Link<Pkt> = Link::new(base.clone(), Rng::from_seed(3));
        let mut now = Time::ZERO;
        let (mut saw_down, mut saw_cut, mut saw_tail) = (false, false, false);
        for i in 0..6000u32 {
            now += Dur::from_micros(rng.next_u64() % 900);
            if i % 500 == 499 {
                // A change: down, up again under other parameters, or a re-timing.
                let mut p = base.clone();
                match (i / 500) % 4 {
                    0 => p.up = false,
                    1 => {
                        p = p.with_jitter(Jitter::Uniform {
                            max: Dur::from_millis(2),
                        })
                    }
                    2 => {
                        p = p.with_reorder(true).with_jitter(Jitter::Uniform {
                            max: Dur::from_millis(4),
                        });
                        p.up = (i / 2000) % 2 == 0;
                    }
                    _ => p.rate_bps = 6_000_000,
                }
                let in_flight = l.pipe.len();
                l.set_params(now, p);
                let cut = l.pipe.len() < in_flight;
                saw_cut |= cut;
                while l.poll_dropped().is_some() {
                    want.dropped_down += 1;
                }
            }
            let len = 100 + (rng.next_u64() % 1400) as u32;
            want.offered_pkts += 1;
            match l.handle_packet(now, Pkt(i, len)) {
                Admit::Queued | Admit::DroppedLoss if l.params.up => {
                    want.sent_pkts += 1;
                    want.sent_bytes += len as u64;
                }
                Admit::DroppedDown => {
                    want.dropped_down += 1;
                    saw_down = true;
                }
                Admit::DroppedQueue => {
                    want.dropped_queue += 1;
                    saw_tail = true;
                }
                a => unreachable!("{a:?} while down"),
            }
            want.dropped_loss = l.tally.dropped_loss;
            let (waiting, _) = l.queue_len(now);
            want.max_queue_pkts = want.max_queue_pkts.max(waiting);
            while let Some(p) = l.poll_transmit(now) {
                want.delivered_pkts += 1;
                want.delivered_bytes += p.1 as u64;
            }
            assert_eq!(l.counters(), want, "after offer {i}");
        }
        assert!(saw_down && saw_cut && saw_tail);
        assert!(want.dropped_loss > 0 && want.max_queue_pkts > 1);
    }

    /// The drop-tail FIFO through the discipline seam ([`Discipline::Fifo`]) delivers
    /// what the fast path delivers, at the same times, with the same counters, through
    /// tail drops, losses, jitter, re-timing and outages; its losses come back through
    /// `poll_dropped` instead of the admission's answer. (The seam draws a packet's loss
    /// and jitter when it starts transmitting, the fast path at admission: a change of
    /// jitter, or an outage on a lossy link, while packets wait makes them differ.)
    #[test]
    fn the_fifo_discipline_matches_the_fast_path() {
        let jitter = Jitter::Uniform {
            max: Dur::from_millis(2),
        };
        for (limit, loss, jitter) in [
            (QueueLimit::Packets(6), 0.1, Jitter::NONE),
            (QueueLimit::Bytes(9000), 0.0, Jitter::NONE),
            (QueueLimit::Packets(4), 0.05, jitter),
        ] {
            let base = LinkParams::new(12_000_000, Dur::from_millis(3))
                .with_queue(limit)
                .with_loss(LossModel::Bernoulli { p: loss })
                .with_jitter(jitter);
            let mut fast: Link<Pkt> = Link::new(base.clone(), Rng::from_seed(3));
            let mut seam: Link<Pkt> = Link::new(
                base.clone().with_discipline(Discipline::Fifo),
                Rng::from_seed(3),
            );
            let mut rng = Rng::from_seed(9);
            let mut now = Time::ZERO;
            let (mut got_fast, mut got_seam) = (vec![], vec![]);
            let (mut lost_fast, mut lost_seam) = (vec![], vec![]);
            for i in 0..6000u32 {
                now += Dur::from_micros(rng.next_u64() % 1500);
                if i % 700 == 699 {
                    let mut p = base.clone();
                    match (i / 700) % 3 {
                        // Packets waiting when the link goes down drew no loss on the
                        // seam (they never reach the wire): outages on the lossless link.
                        0 if loss == 0.0 => p.up = false,
                        1 => p.rate_bps = 6_000_000,
                        _ => p.delay = Dur::from_millis(7),
                    }
                    fast.set_params(now, p.clone());
                    seam.set_params(now, p.with_discipline(Discipline::Fifo));
                }
                for (l, got) in [(&mut fast, &mut got_fast), (&mut seam, &mut got_seam)] {
                    while let Some(t) = l.poll_timeout().filter(|&t| t <= now) {
                        while let Some(x) = l.poll_transmit(t) {
                            got.push((t, x));
                        }
                    }
                }
                while let Some(p) = fast.poll_dropped() {
                    lost_fast.push(p.0);
                }
                while let Some(p) = seam.poll_dropped() {
                    lost_seam.push(p.0);
                }
                let p = Pkt(i, 100 + (rng.next_u64() % 1400) as u32);
                let (a, b) = (fast.handle_packet(now, p), seam.handle_packet(now, p));
                if a == Admit::DroppedLoss {
                    lost_fast.push(i);
                    assert_eq!(b, Admit::Queued);
                } else {
                    assert_eq!(a, b, "packet {i}");
                }
                assert_eq!(fast.queue_len(now), seam.queue_len(now), "packet {i}");
            }
            let first = got_fast.iter().zip(&got_seam).position(|(a, b)| a != b);
            assert_eq!(first.map(|i| (got_fast[i], got_seam[i])), None);
            assert_eq!(got_fast.len(), got_seam.len());
            assert_eq!(drain(&mut fast), drain(&mut seam));
            while let Some(p) = seam.poll_dropped() {
                lost_seam.push(p.0);
            }
            lost_fast.sort();
            lost_seam.sort();
            assert_eq!(lost_fast, lost_seam);
            // The fast path counts packets waiting when the link went down as sent (they
            // were in its FIFO), the seam does not.
            let (f, mut c) = (fast.counters(), seam.counters());
            if loss == 0.0 {
                assert!(c.sent_pkts < f.sent_pkts);
                (c.sent_pkts, c.sent_bytes) = (f.sent_pkts, f.sent_bytes);
            }
            assert_eq!(f, c);
            let q = seam.qdisc_counters().unwrap();
            assert_eq!(q.dropped_limit, seam.counters().dropped_queue);
            assert!(q.dropped_limit > 100, "{q:?}");
            assert_eq!(seam.sojourn().unwrap().count(), seam.counters().sent_pkts);
        }
    }

    /// Two directions sharing spares (each giving its FIFO's buffer up whenever a
    /// wake-up leaves it empty) deliver what a direction on its own delivers, at the same
    /// times, with the same counters; the buffers move between them.
    #[test]
    fn directions_sharing_spare_buffers_deliver_as_alone() {
        let mut rng = Rng::from_seed(11);
        let mut spares: FifoSpares<Pkt> = FifoSpares::default();
        let q = QueueLimit::Packets(5);
        let (mut a, mut b) = (link(12_000_000, 2, q), link(12_000_000, 3, q));
        let (mut a_alone, mut b_alone) = (link(12_000_000, 2, q), link(12_000_000, 3, q));
        let mut now = Time::ZERO;
        let (mut gave, mut took) = (0, 0);
        for i in 0..3000u32 {
            now += Dur::from_micros(rng.next_u64() % 6000);
            let p = Pkt(i, 100 + (rng.next_u64() % 1400) as u32);
            for (l, alone) in [(&mut a, &mut a_alone), (&mut b, &mut b_alone)] {
                while let Some(t) = l.poll_timeout().filter(|&t| t <= now) {
                    while let Some(x) = l.poll_transmit(t) {
                        assert_eq!(alone.poll_transmit(t), Some(x));
                    }
                    assert_eq!(alone.poll_transmit(t), None);
                    if l.poll_timeout().is_none() && l.pipe.capacity() != 0 {
                        l.spare_fifo(&mut spares);
                        assert_eq!(l.pipe.capacity(), 0);
                        gave += 1;
                    }
                }
                assert_eq!(l.poll_timeout(), alone.poll_timeout());
                let had = l.pipe.capacity();
                assert_eq!(
                    l.handle_packet_spared(now, p, &mut spares),
                    alone.handle_packet(now, p)
                );
                took += usize::from(had == 0 && l.pipe.capacity() != 0);
                assert_eq!(l.counters(), alone.counters());
                assert_eq!(l.queue_len(now), alone.queue_len(now));
            }
        }
        assert!(gave > 1000 && took > 1000, "gave {gave}, took {took}");
        assert_eq!(drain(&mut a), drain(&mut a_alone));
        assert_eq!(drain(&mut b), drain(&mut b_alone));
    }

    /// `peek_front` names the packet the next `poll_transmit` returns, and nothing for a
    /// lost packet's hole.
    #[test]
    fn the_packet_at_the_front_is_the_next_to_leave() {
        let mut l = link(12_000_000, 10, QueueLimit::Unlimited);
        assert_eq!(l.peek_front(), None);
        for i in 0..3 {
            l.handle_packet(Time::ZERO, Pkt(i, 1500));
        }
        for i in 0..3 {
            assert_eq!(l.peek_front(), Some(&Pkt(i, 1500)));
            let t = l.poll_timeout().unwrap();
            assert_eq!(l.poll_transmit(t), Some(Pkt(i, 1500)));
        }
        assert_eq!(l.peek_front(), None);
        let mut lossy: Link<Pkt> = Link::new(
            LinkParams::new(12_000_000, Dur::from_millis(1))
                .with_loss(LossModel::Bernoulli { p: 1.0 }),
            Rng::from_seed(1),
        );
        assert_eq!(
            lossy.handle_packet(Time::ZERO, Pkt(9, 1500)),
            Admit::DroppedLoss
        );
        assert!(lossy.poll_timeout().is_some(), "the hole paces the FIFO");
        assert_eq!(lossy.peek_front(), None);
    }

    #[test]
    fn serialisation_and_propagation() {
        // 1500 B at 12 Mbit/s = 1 ms; 10 ms propagation.
        let mut l = link(12_000_000, 10, QueueLimit::Unlimited);
        for i in 0..3 {
            assert_eq!(l.handle_packet(Time::ZERO, Pkt(i, 1500)), Admit::Queued);
        }
        let got = drain(&mut l);
        let times: Vec<u64> = got.iter().map(|(t, _)| t.0 / 1_000_000).collect();
        assert_eq!(times, vec![11, 12, 13]);
        assert_eq!(
            got.iter().map(|(_, p)| p.0).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn drop_tail_in_packets() {
        // One in service + 2 waiting fit; the 4th and 5th are dropped.
        let mut l = link(12_000_000, 0, QueueLimit::Packets(2));
        let fates: Vec<Admit> = (0..5)
            .map(|i| l.handle_packet(Time::ZERO, Pkt(i, 1500)))
            .collect();
        assert_eq!(&fates[..3], &[Admit::Queued; 3]);
        assert_eq!(&fates[3..], &[Admit::DroppedQueue; 2]);
        assert_eq!(l.queue_len(Time::ZERO), (2, 3000));
        // After 1 ms the first is done, the second in service, one waits.
        assert_eq!(l.queue_len(Time(1_000_000)), (1, 1500));
        assert_eq!(
            l.handle_packet(Time(1_000_000), Pkt(9, 1500)),
            Admit::Queued
        );
        assert_eq!(l.counters().dropped_queue, 2);
        assert_eq!(l.counters().max_queue_pkts, 2);
    }

    #[test]
    fn drop_tail_in_bytes() {
        let mut l = link(12_000_000, 0, QueueLimit::Bytes(2000));
        let fates: Vec<Admit> = (0..4)
            .map(|i| l.handle_packet(Time::ZERO, Pkt(i, 1000)))
            .collect();
        assert_eq!(
            fates,
            vec![
                Admit::Queued,
                Admit::Queued,
                Admit::Queued,
                Admit::DroppedQueue
            ]
        );
    }

    #[test]
    fn loss_consumes_link_time() {
        let mut l: Link<Pkt> = Link::new(
            LinkParams::new(12_000_000, Dur::ZERO).with_loss(LossModel::List { drop: vec![1] }),
            Rng::from_seed(1),
        );
        assert_eq!(
            l.handle_packet(Time::ZERO, Pkt(0, 1500)),
            Admit::DroppedLoss
        );
        assert_eq!(l.handle_packet(Time::ZERO, Pkt(1, 1500)), Admit::Queued);
        let got = drain(&mut l);
        assert_eq!(got, vec![(Time(2_000_000), Pkt(1, 1500))]);
    }

    #[test]
    fn rate_change_retimes_waiting_packets() {
        let mut l = link(12_000_000, 0, QueueLimit::Unlimited);
        for i in 0..3 {
            l.handle_packet(Time::ZERO, Pkt(i, 1500));
        }
        // At 0.5 ms double the rate: packet 0 finishes at 1 ms, the next two take 0.5 ms each.
        let mut p = l.params().clone();
        p.rate_bps = 24_000_000;
        l.set_params(Time(500_000), p);
        let times: Vec<u64> = drain(&mut l).iter().map(|(t, _)| t.0 / 1000).collect();
        assert_eq!(times, vec![1000, 1500, 2000]);
    }

    #[test]
    fn rate_change_leaves_started_packets_alone() {
        // No poll between the admissions at 0 and the change at 2.5 ms: packets 1 and 2
        // started at 1 and 2 ms all the same, so only 3 and 4 take the new rate.
        let mut l = link(12_000_000, 0, QueueLimit::Unlimited);
        for i in 0..5 {
            l.handle_packet(Time::ZERO, Pkt(i, 1500));
        }
        let mut p = l.params().clone();
        p.rate_bps = 24_000_000;
        l.set_params(Time(2_500_000), p);
        let times: Vec<u64> = drain(&mut l).iter().map(|(t, _)| t.0 / 1000).collect();
        assert_eq!(times, vec![1000, 2000, 3000, 3500, 4000]);
    }

    #[test]
    fn outage_loses_in_flight_and_offered() {
        let mut l = link(12_000_000, 10, QueueLimit::Unlimited);
        l.handle_packet(Time::ZERO, Pkt(0, 1500));
        let mut p = l.params().clone();
        p.up = false;
        l.set_params(Time(5_000_000), p.clone());
        assert_eq!(
            l.handle_packet(Time(6_000_000), Pkt(1, 1500)),
            Admit::DroppedDown
        );
        p.up = true;
        l.set_params(Time(7_000_000), p);
        l.handle_packet(Time(7_000_000), Pkt(2, 1500));
        let got = drain(&mut l);
        assert_eq!(got, vec![(Time(18_000_000), Pkt(2, 1500))]);
        assert_eq!(l.counters().dropped_down, 2);
    }

    #[test]
    fn a_plain_link_direction_stays_small() {
        // Loss, jitter, reordering and outage state live in a box plain links never make
        // (488 bytes with them inline).
        assert!(std::mem::size_of::<Link<Pkt>>() <= 256);
        assert!(link(12_000_000, 0, QueueLimit::Unlimited).extras.is_none());
    }

    #[test]
    fn what_a_hop_touches_fits_in_two_cache_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Link<Pkt>>(), 64);
        // Line 0: FIFO, transmitter, delivered count; line 1: admission.
        assert!(offset_of!(Link<Pkt>, delivered_pkts) + 8 <= 64);
        assert_eq!(offset_of!(Link<Pkt>, waiting_bytes), 64);
        assert!(offset_of!(Link<Pkt>, gate) + size_of::<Gate>() <= 128);
        assert_eq!(offset_of!(Link<Pkt>, tally), 128);
        // A FIFO entry of a 16-byte packet with a niche (as the simulator's) is half a
        // line, aligned so that none straddles two.
        struct Small(
            #[allow(dead_code)] std::num::NonZeroU32,
            #[allow(dead_code)] [u32; 3],
        );
        assert_eq!(size_of::<Entry<Small>>(), 32);
        assert_eq!(align_of::<Entry<Small>>(), 32);
    }

    /// Two packets under no loss model on a link of `delay_ms` (whose rare-path extras
    /// exist by then exactly when `far`), then a list dropping the 4th packet offered:
    /// the late loss process has counted the first two.
    fn drop_list_set_later(delay_ms: u64, far: bool) {
        let mut l = link(12_000_000, delay_ms, QueueLimit::Unlimited);
        for i in 0..2 {
            assert_eq!(l.handle_packet(Time::ZERO, Pkt(i, 1500)), Admit::Queued);
        }
        assert_eq!(l.extras.is_some(), far);
        let p = l
            .params()
            .clone()
            .with_loss(LossModel::List { drop: vec![4] });
        l.set_params(Time::ZERO, p);
        let fates: Vec<Admit> = (2..5)
            .map(|i| l.handle_packet(Time::ZERO, Pkt(i, 1500)))
            .collect();
        assert_eq!(
            fates,
            vec![Admit::Queued, Admit::DroppedLoss, Admit::Queued]
        );
    }

    #[test]
    fn a_drop_list_set_later_numbers_packets_from_the_first() {
        drop_list_set_later(0, false);
    }

    /// As above on a link whose delay (5 s) keeps its entries' times in the far table: the
    /// extras are made while the first packet is being pushed, and their loss process has
    /// counted that packet too.
    #[test]
    fn a_drop_list_set_later_numbers_packets_from_the_first_on_a_long_link() {
        drop_list_set_later(5_000, true);
    }

    #[test]
    fn an_admission_behind_a_packet_keeps_the_timeout() {
        let mut l = link(12_000_000, 10, QueueLimit::Packets(1));
        assert!(!l.admission_keeps_timeout());
        l.handle_packet(Time::ZERO, Pkt(0, 1500));
        assert!(l.admission_keeps_timeout());
        let t = l.poll_timeout();
        for i in 1..4 {
            l.handle_packet(Time::ZERO, Pkt(i, 1500)); // queued, then tail-dropped
            assert_eq!(l.poll_timeout(), t);
        }
        let mut r = link(12_000_000, 10, QueueLimit::Unlimited);
        r.set_params(Time::ZERO, r.params().clone().with_reorder(true));
        r.handle_packet(Time::ZERO, Pkt(0, 1500));
        assert!(!r.admission_keeps_timeout());
    }

    fn far_records(l: &Link<Pkt>) -> usize {
        l.extras.as_ref().map_or(0, |x| x.far.len())
    }

    #[test]
    fn arrivals_too_far_for_an_entry_read_back_exactly() {
        // A 5 s delay does not fit an entry's 32-bit offset: re-timing moves the waiting
        // packets (2 and 3; 1 is in service at 1.5 ms) into the far table.
        let mut l = link(12_000_000, 1, QueueLimit::Unlimited);
        for i in 0..4 {
            l.handle_packet(Time::ZERO, Pkt(i, 1500));
        }
        assert_eq!(far_records(&l), 0);
        let mut p = l.params().clone();
        p.delay = Dur::from_millis(5_000);
        l.set_params(Time(1_500_000), p);
        assert_eq!(far_records(&l), 2);
        let got: Vec<(u64, u32)> = drain(&mut l)
            .iter()
            .map(|(t, p)| (t.0 / 1000, p.0))
            .collect();
        assert_eq!(
            got,
            vec![(2_000, 0), (3_000, 1), (5_003_000, 2), (5_004_000, 3)]
        );
        assert_eq!(far_records(&l), 0);

        // And back: with reordering, waiting packets under a 5 s delay that re-time to
        // 1 ms leave the far table; the ones already sent keep their far arrivals.
        let mut r = link(12_000_000, 5_000, QueueLimit::Unlimited);
        r.set_params(Time::ZERO, r.params().clone().with_reorder(true));
        for i in 0..3 {
            r.handle_packet(Time::ZERO, Pkt(i, 1500));
        }
        assert_eq!(far_records(&r), 3);
        let mut p = r.params().clone();
        p.delay = Dur::from_millis(1);
        r.set_params(Time(1_500_000), p);
        assert_eq!(far_records(&r), 2);
        let got: Vec<(u64, u32)> = drain(&mut r)
            .iter()
            .map(|(t, p)| (t.0 / 1000, p.0))
            .collect();
        assert_eq!(got, vec![(4_000, 2), (5_001_000, 0), (5_002_000, 1)]);
        assert_eq!(far_records(&r), 0);
    }

    #[test]
    fn shorter_delay_never_reorders() {
        let mut l = link(12_000_000, 50, QueueLimit::Unlimited);
        l.handle_packet(Time::ZERO, Pkt(0, 1500));
        let mut p = l.params().clone();
        p.delay = Dur::from_millis(1);
        l.set_params(Time(2_000_000), p);
        l.handle_packet(Time(2_000_000), Pkt(1, 1500));
        let got = drain(&mut l);
        assert_eq!(got[0].1, Pkt(0, 1500));
        assert_eq!(got[1].1, Pkt(1, 1500));
        assert!(got[1].0 >= got[0].0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Pkt(u32, u32);
    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            self.1
        }
    }

    proptest! {
        /// Against a reference model: FIFO order, queue bound respected, and the waiting
        /// count always equals the packets whose transmission has not started.
        #[test]
        fn matches_reference_fifo(
            arrivals in proptest::collection::vec((0u64..3_000_000, 40u32..1500), 1..300),
            limit in 1u32..20,
        ) {
            let mut l: Link<Pkt> = Link::new(
                LinkParams::new(12_000_000, Dur::from_millis(2)).with_queue(QueueLimit::Packets(limit)),
                Rng::from_seed(1),
            );
            let mut t = Time::ZERO;
            let mut starts: Vec<(Time, Time)> = vec![]; // (tx_start, arrive) of admitted
            let mut out = vec![];
            let mut admitted = vec![];
            for (i, &(gap, len)) in arrivals.iter().enumerate() {
                t += Dur(gap / 10);
                // Collect everything that arrived by t first, as a driver would.
                while let Some(p) = l.poll_transmit(t) { out.push(p.0); }
                let waiting_ref = starts.iter().filter(|(s, _)| *s > t).count() as u64;
                prop_assert_eq!(l.queue_len(t).0, waiting_ref);
                let fate = l.handle_packet(t, Pkt(i as u32, len));
                if fate == Admit::Queued {
                    admitted.push(i as u32);
                    let start = t.max(l.busy_until - Dur::transmission(len as u64, 12_000_000));
                    starts.push((start, Time::ZERO));
                } else {
                    prop_assert_eq!(fate, Admit::DroppedQueue);
                    // Dropped only when the queue really was full.
                    prop_assert!(waiting_ref >= limit as u64);
                }
            }
            while let Some(next) = l.poll_timeout() {
                while let Some(p) = l.poll_transmit(next) { out.push(p.0); }
            }
            prop_assert_eq!(out, admitted);
            prop_assert_eq!(l.queue_len(Time::MAX).0, 0);
        }
    }
}
