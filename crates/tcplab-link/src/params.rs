//! Link parameters: the part of a link that a schedule may change over time.

use crate::discipline::Discipline;
use crate::jitter::Jitter;
use crate::loss::LossModel;
use crate::trace::DeliveryTrace;
use std::sync::Arc;
use tcplab_core::Dur;

/// Drop-tail bound on packets waiting for the transmitter (the one in service excluded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    /// Serialisation rate in bit/s (> 0).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Dur,
    /// The queue's bound (for a discipline, its limit).
    pub queue: QueueLimit,
    /// What decides a waiting packet's fate: drop-tail (the default) or an AQM.
    pub discipline: Discipline,
    pub loss: LossModel,
    /// False during an outage: everything offered or in flight is lost.
    pub up: bool,
    /// Trace-driven capacity; when set it replaces `rate_bps`. The trace starts (its time
    /// 0) when it is applied to the link and repeats.
    pub trace: Option<Arc<DeliveryTrace>>,
    /// Extra one-way delay per packet, drawn from the link direction's own stream.
    pub jitter: Jitter,
    /// False: packets keep their order (a packet never arrives before the one ahead of
    /// it, so jitter only ever delays). True: each arrives at its own end of
    /// transmission + delay + jitter, so jittered packets may overtake each other.
    pub reorder: bool,
}

impl LinkParams {
    pub fn new(rate_bps: u64, delay: Dur) -> LinkParams {
        LinkParams {
            rate_bps,
            delay,
            queue: QueueLimit::Unlimited,
            discipline: Discipline::DropTail,
            loss: LossModel::None,
            up: true,
            trace: None,
            jitter: Jitter::NONE,
            reorder: false,
        }
    }

    pub fn with_queue(mut self, q: QueueLimit) -> Self {
        self.queue = q;
        self
    }

    pub fn with_discipline(mut self, d: Discipline) -> Self {
        self.discipline = d;
        self
    }

    pub fn with_trace(mut self, t: Arc<DeliveryTrace>) -> Self {
        self.trace = Some(t);
        self
    }

    /// A `Dur` means uniform in `[0, d]`.
    pub fn with_jitter(mut self, j: impl Into<Jitter>) -> Self {
        self.jitter = j.into();
        self
    }

    pub fn with_reorder(mut self, reorder: bool) -> Self {
        self.reorder = reorder;
        self
    }

    pub fn with_loss(mut self, l: LossModel) -> Self {
        self.loss = l;
        self
    }
}
