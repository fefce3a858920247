//! Queue disciplines: what decides a packet's fate while it waits for a link's
//! transmitter.
//!
//! A link without one ([`Discipline::DropTail`], the default) decides everything when a
//! packet is admitted, on its fast path (see [`crate::Link`]). A link with one keeps its
//! waiting packets in a [`Qdisc`]: the discipline decides at enqueue (tail drops, RED's
//! and PIE's early drops) and at dequeue, when the transmitter frees and the packet's
//! sojourn time is known (CoDel's drops); it may mark an ECN-capable packet
//! Congestion Experienced instead of dropping it (RFC 3168).

use crate::admit::Admit;
use crate::codel::{CoDel, CoDelParams, Source};
use crate::discipline::Discipline;
use crate::fq_codel::FqCoDel;
use crate::params::QueueLimit;
use crate::pie::{Pie, PieParams};
use crate::qdisc_columns::{series, summary};
use crate::queued::{Out, QdiscCounters, Queued, Verdict};
use crate::red::{Red, RedParams};
use crate::sojourn::SojournHistogram;
use crate::step::{self, StepParams};
use crate::Packet;
use std::collections::VecDeque;
use tcplab_core::{Metrics, Rng, Time};

/// A FIFO of waiting packets and their bytes.
#[derive(Debug)]
pub(crate) struct Fifo<P> {
    q: VecDeque<Queued<P>>,
    bytes: u64,
}

impl<P> Default for Fifo<P> {
    fn default() -> Self {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<P> Fifo<P> {
    fn push(&mut self, x: Queued<P>) {
        self.bytes += x.len as u64;
        self.q.push_back(x);
    }
    fn len(&self) -> u64 {
        self.q.len() as u64
    }
}

impl<P> Source<P> for Fifo<P> {
    fn pop(&mut self) -> Option<Queued<P>> {
        let x = self.q.pop_front()?;
        self.bytes -= x.len as u64;
        Some(x)
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
}

#[derive(Debug)]
enum Algo {
    Fifo,
    CoDel(CoDelParams, CoDel),
    Pie(PieParams, Pie),
    Red(RedParams, Red),
    Step(StepParams),
}

/// A link direction's discipline and its waiting packets.
#[derive(Debug)]
pub(crate) struct Qdisc<P> {
    fifo: Fifo<P>,
    algo: Algo,
    /// FQ-CoDel keeps its packets in its flows, not in `fifo`.
    fq: Option<FqCoDel<P>>,
    limit: u64,
    limit_in_bytes: bool,
    pub counters: QdiscCounters,
    pub sojourn: SojournHistogram,
    /// The discipline's own stream (random early drops, FQ-CoDel's hash perturbation).
    rng: Rng,
}

impl<P: Packet> Qdisc<P> {
    /// `None` for [`Discipline::DropTail`] (the link's fast path). `rate_bps` is the
    /// link's rate (RED's idle-time decay), `rng` the discipline's stream.
    pub fn new(
        d: &Discipline,
        queue: QueueLimit,
        rate_bps: u64,
        now: Time,
        mut rng: Rng,
    ) -> Option<Qdisc<P>> {
        let (limit, limit_in_bytes) = match queue {
            QueueLimit::Packets(n) => (n as u64, false),
            QueueLimit::Bytes(b) => (b, true),
            QueueLimit::Unlimited => (u64::MAX, false),
        };
        let mut fq = None;
        let algo = match d {
            Discipline::DropTail => return None,
            Discipline::Fifo => Algo::Fifo,
            Discipline::CoDel(p) => Algo::CoDel(*p, CoDel::default()),
            Discipline::Pie(p) => Algo::Pie(*p, Pie::new(p, now)),
            Discipline::Red(p) => Algo::Red(*p, Red::new(p, rate_bps)),
            Discipline::Step(p) => Algo::Step(*p),
            Discipline::FqCoDel(p) => {
                fq = Some(FqCoDel::new(*p, rng.next_u64()));
                Algo::Fifo
            }
        };
        Some(Qdisc {
            fifo: Fifo::default(),
            algo,
            fq,
            limit,
            limit_in_bytes,
            counters: QdiscCounters::default(),
            sojourn: SojournHistogram::default(),
            rng,
        })
    }

    /// Packets and bytes waiting.
    pub fn backlog(&self) -> (u64, u64) {
        match &self.fq {
            Some(fq) => fq.backlog(),
            None => (self.fifo.len(), self.fifo.bytes),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.backlog().0 == 0
    }

    /// Offers `pkt` at `now`; `busy`: the transmitter is sending (a packet finding it
    /// idle and the queue empty is never refused, as on the drop-tail fast path).
    /// Packets of other flows FQ-CoDel drops to make room go to `drops`.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, mut pkt: P, busy: bool, drops: &mut Vec<P>) -> Admit {
        let len = pkt.wire_len();
        let (pkts, bytes) = self.backlog();
        let over = |extra_pkts: u64, extra_bytes: u64| {
            if self.limit_in_bytes {
                bytes + extra_bytes > self.limit
            } else {
                pkts + extra_pkts > self.limit
            }
        };
        if let Some(fq) = &mut self.fq {
            // RFC 8290 section 4.1: the packet joins its flow; over the limit, packets
            // are dropped from the head of the flow with the most bytes (a batch, as
            // Linux's fq_codel_drop).
            let full = busy && over(1, len as u64);
            fq.enqueue(now, pkt, len);
            if full {
                self.counters.dropped_limit += fq.drop_from_fattest(drops);
            }
            return Admit::Queued;
        }
        if busy && over(1, len as u64) {
            self.counters.dropped_limit += 1;
            return Admit::DroppedQueue;
        }
        let verdict = match &mut self.algo {
            Algo::Fifo | Algo::CoDel(..) => Verdict::Enqueue,
            Algo::Step(p) => step::enqueue(p, pkts, bytes, &pkt),
            Algo::Pie(p, s) => s.enqueue(p, now, bytes, &pkt, &mut self.rng),
            Algo::Red(p, s) => s.enqueue(p, now, pkts, &pkt, &mut self.rng),
        };
        match verdict {
            Verdict::Drop => {
                self.counters.dropped_aqm += 1;
                return Admit::DroppedQueue;
            }
            Verdict::Mark => {
                pkt.set_ce();
                self.counters.marked_ce += 1;
            }
            Verdict::Enqueue => {}
        }
        self.fifo.push(Queued { pkt, enq: now, len });
        Admit::Queued
    }

    /// The next packet to transmit at `now`, when the transmitter frees; packets the
    /// discipline drops on the way go to `drops`. Records the packet's sojourn.
    #[inline]
    pub fn dequeue(&mut self, now: Time, drops: &mut Vec<P>) -> Option<P> {
        let mut out = Out {
            drops,
            counters: &mut self.counters,
        };
        let got = match (&mut self.fq, &mut self.algo) {
            (Some(fq), _) => fq.dequeue(now, &mut out),
            (None, Algo::Fifo | Algo::Step(_)) => self.fifo.pop(),
            (None, Algo::CoDel(p, s)) => s.dequeue(p, now, &mut self.fifo, &mut out),
            (None, Algo::Pie(p, s)) => {
                let x = self.fifo.pop();
                s.dequeued(p, now, x.as_ref().map(|x| x.enq), self.fifo.len() == 0);
                x
            }
            (None, Algo::Red(_, s)) => {
                let x = self.fifo.pop();
                if self.fifo.len() == 0 {
                    s.went_idle(now);
                }
                x
            }
        }?;
        self.sojourn.record(now.saturating_since(got.enq));
        Some(got.pkt)
    }

    /// Takes every waiting packet (the link went down).
    pub fn flush(&mut self, drops: &mut Vec<P>) {
        if let Some(fq) = &mut self.fq {
            fq.flush(drops);
        }
        while let Some(x) = self.fifo.pop() {
            drops.push(x.pkt);
        }
    }

    /// Brings time-driven state (PIE's periodic update) up to `now`.
    pub fn advance(&mut self, now: Time) {
        if let Algo::Pie(p, s) = &mut self.algo {
            s.advance(p, now);
        }
    }

    /// The discipline's own state, one time-series row.
    pub fn sample(&self, out: &mut dyn Metrics) {
        out.put(&series::DROPPED_AQM, self.counters.dropped_aqm.into());
        out.put(&series::MARKED_CE, self.counters.marked_ce.into());
        match (&self.fq, &self.algo) {
            (Some(fq), _) => out.put(&series::FQ_FLOWS_ACTIVE, fq.active_flows().into()),
            (None, Algo::CoDel(_, s)) => {
                out.put(&series::CODEL_DROPPING, u64::from(s.dropping()).into());
                out.put(&series::CODEL_COUNT, (s.count() as u64).into());
            }
            (None, Algo::Pie(_, s)) => out.put(&series::PIE_DROP_PROB, s.drop_prob().into()),
            (None, Algo::Red(_, s)) => out.put(&series::RED_AVG_PKTS, s.avg().into()),
            (None, Algo::Fifo | Algo::Step(_)) => {}
        }
    }

    /// Counters by cause and sojourn percentiles, for the links table.
    pub fn summary(&self, out: &mut dyn Metrics) {
        let c = &self.counters;
        out.put(&summary::DROPPED_LIMIT, c.dropped_limit.into());
        out.put(&summary::DROPPED_AQM, c.dropped_aqm.into());
        out.put(&summary::MARKED_CE, c.marked_ce.into());
        for (column, q) in [
            (&summary::SOJOURN_P50, 0.5),
            (&summary::SOJOURN_P95, 0.95),
            (&summary::SOJOURN_P99, 0.99),
        ] {
            if let Some(d) = self.sojourn.quantile(q) {
                out.put(column, d.as_millis_f64().into());
            }
        }
    }
}
