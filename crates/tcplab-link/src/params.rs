//! Link parameters: the part of a link that a schedule may change over time.

use crate::loss::LossModel;
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
    pub queue: QueueLimit,
    pub loss: LossModel,
    /// False during an outage: everything offered or in flight is lost.
    pub up: bool,
}

impl LinkParams {
    pub fn new(rate_bps: u64, delay: Dur) -> LinkParams {
        LinkParams {
            rate_bps,
            delay,
            queue: QueueLimit::Unlimited,
            loss: LossModel::None,
            up: true,
        }
    }

    pub fn with_queue(mut self, q: QueueLimit) -> Self {
        self.queue = q;
        self
    }

    pub fn with_loss(mut self, l: LossModel) -> Self {
        self.loss = l;
        self
    }
}
