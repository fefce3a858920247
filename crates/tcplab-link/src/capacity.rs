//! How fast a link direction serialises: a constant rate or a delivery trace.
//!
//! With a trace the transmitter follows Mahimahi's `LinkQueue::rationalize`: each
//! opportunity carries [`OPPORTUNITY_BYTES`]; a packet may span several opportunities;
//! bytes left in an opportunity go to the next packet only if it was already queued
//! (admitted strictly before the opportunity), otherwise they are lost; a packet never
//! uses an opportunity at or before its own admission time. The packet is delivered at
//! the opportunity that carries its last byte. Everything is arithmetic on a cursor plus
//! a binary search into the shared trace, so the per-packet path does not allocate.

use crate::trace::{DeliveryTrace, OPPORTUNITY_BYTES};
use std::sync::Arc;
use tcplab_core::{Dur, Time};

/// Where a trace-driven transmitter stands.
#[derive(Clone, Debug)]
pub struct TraceCursor {
    trace: Arc<DeliveryTrace>,
    /// Trace time 0 (when the trace was applied to the link).
    anchor: Time,
    /// Absolute index (cycle · len + line) of the next unused opportunity.
    next: u64,
    /// Bytes left in the opportunity at `last`.
    surplus: u32,
    last: Time,
}

impl TraceCursor {
    pub fn new(trace: Arc<DeliveryTrace>, anchor: Time) -> TraceCursor {
        TraceCursor {
            trace,
            anchor,
            next: 0,
            surplus: 0,
            last: anchor,
        }
    }

    pub fn trace(&self) -> &Arc<DeliveryTrace> {
        &self.trace
    }

    fn time_of(&self, abs: u64) -> Time {
        let ms = self.trace.timestamps();
        let n = ms.len() as u64;
        let period = self.trace.period();
        self.anchor + period * (abs / n) + Dur::from_millis(ms[(abs % n) as usize])
    }

    /// Moves to the first opportunity strictly after `t`, dropping any surplus.
    pub fn seek_after(&mut self, t: Time) {
        self.surplus = 0;
        if t < self.anchor {
            self.next = 0;
            return;
        }
        let ms = self.trace.timestamps();
        let n = ms.len() as u64;
        let period = self.trace.period().0;
        let rel = (t - self.anchor).0;
        let cycle = rel / period;
        let within = rel - cycle * period;
        let i = ms.partition_point(|&m| m * 1_000_000 <= within) as u64;
        self.next = cycle * n + i;
    }

    /// Schedules a packet of `len` bytes admitted at `arrival`; returns when its last byte
    /// is delivered.
    pub fn serve(&mut self, arrival: Time, len: u32) -> Time {
        let mut need = len;
        if self.surplus > 0 && arrival < self.last {
            let used = need.min(self.surplus);
            need -= used;
            self.surplus -= used;
            if need == 0 {
                return self.last;
            }
        }
        self.surplus = 0;
        if self.time_of(self.next) <= arrival {
            self.seek_after(arrival);
        }
        loop {
            let t = self.time_of(self.next);
            self.next += 1;
            if need <= OPPORTUNITY_BYTES {
                self.surplus = OPPORTUNITY_BYTES - need;
                self.last = t;
                return t;
            }
            need -= OPPORTUNITY_BYTES;
        }
    }
}

/// The transmitter's capacity model inside a [`crate::Link`].
#[derive(Clone, Debug)]
pub enum Capacity {
    Rate(u64),
    /// Boxed: a trace cursor is 40 bytes and few links follow a trace.
    Trace(Box<TraceCursor>),
}

impl Capacity {
    /// The capacity `p` asks for; a trace already running (same `Arc`) keeps its cursor.
    pub fn for_params(p: &crate::LinkParams, now: Time, old: Option<Capacity>) -> Capacity {
        match (&p.trace, old) {
            (None, _) => Capacity::Rate(p.rate_bps),
            (Some(t), Some(Capacity::Trace(c))) if Arc::ptr_eq(t, c.trace()) => Capacity::Trace(c),
            (Some(t), _) => Capacity::Trace(Box::new(TraceCursor::new(t.clone(), now))),
        }
    }

    /// When a packet of `len` bytes admitted at `arrival` and starting at `start` ends.
    pub fn tx_end(&mut self, arrival: Time, start: Time, len: u32) -> Time {
        match self {
            Capacity::Rate(r) => start + Dur::transmission(len as u64, *r),
            Capacity::Trace(c) => c.serve(arrival, len),
        }
    }
}
