//! Per-endpoint counters that become the per-flow results row.

use tcplab_core::{Dur, Time};

/// What the sender did. `repr(C)`: what an RTT sample moves and the retransmission
/// counts come first, in 64 bytes (see `SendState`'s layout).
///
/// The segments and bytes sent are not counted here: a send of new data would touch this
/// line for them alone. Every segment sent is either new, with a record, or a
/// retransmission (counted here); [`Sender::sent`](crate::tcp::Sender::sent) derives them.
/// Nor the smallest RTT sample: the RTT estimator keeps it (`RttEstimator::min_rtt`, fed
/// the same samples).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct SenderStats {
    pub rtt_samples: u64,
    pub rtt_sum: Dur,
    pub rtt_max: Option<Dur>,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub rtos: u64,
    pub fast_retransmits: u64,
    /// RFC 8985 tail loss probes sent.
    pub tlp_probes: u64,
    /// Segments RACK marked lost (RFC 8985), retransmissions included.
    pub rack_lost: u64,
    /// Window reductions found spurious and undone (`undo = true`).
    pub undos: u64,
    /// When every byte of a finite transfer was acknowledged.
    pub acked_all_at: Option<Time>,
    /// SYNs sent again after the SYN timer expired (`handshake.rs`).
    pub syn_retransmits: u64,
    /// When the SYN-ACK arrived (with a handshake).
    pub established_at: Option<Time>,
    /// Window reductions answering an ECN-Echo (RFC 3168 section 6.1.2).
    pub ecn_cuts: u64,
}

impl SenderStats {
    /// Counts a valid RTT sample.
    pub fn note_rtt(&mut self, r: Dur) {
        self.rtt_samples += 1;
        self.rtt_sum += r;
        self.rtt_max = Some(self.rtt_max.map_or(r, |m| m.max(r)));
    }

    pub fn rtt_mean(&self) -> Option<Dur> {
        (self.rtt_samples > 0).then(|| self.rtt_sum / self.rtt_samples)
    }
}

/// What the receiver saw. `repr(C)`: the counters every segment or ACK moves come first
/// (see [`crate::tcp::Receiver`]'s layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct ReceiverStats {
    pub segments_received: u64,
    pub acks_sent: u64,
    /// Bytes delivered to the application, in order.
    pub delivered: u64,
    /// Segments carrying only bytes already received.
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    /// When the last byte of a finite transfer was delivered.
    pub completed_at: Option<Time>,
}
