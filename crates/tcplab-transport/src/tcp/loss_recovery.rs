//! Loss recovery behind one interface. The sender core (ACK intake, transmission, the
//! retransmission timer) calls it at fixed points and never looks inside; `recovery.rs`
//! picks the implementation (`reno.rs`, `sack.rs`, `rack.rs`).
//!
//! A sender that is not TCP (coded transports, TACK) uses the transport-neutral parts —
//! [`crate::RttEstimator`], [`crate::pacing::Pacer`], the delivery-rate sampler, the
//! [`crate::cc`] controllers and [`crate::timer_rounds::TimerRounds`] — without any of this.

use crate::records::SentRecord;
use crate::tcp::send_state::SendState;
use tcplab_core::{Dur, Time};

/// What an ACK was, for [`LossRecovery::after_ack`].
#[derive(Clone, Copy, Debug)]
pub(super) struct AckSummary {
    pub ack: u64,
    /// snd_una before the ACK.
    pub prior_una: u64,
    /// SACKed bytes above snd_una before the ACK (for RFC 6937 DeliveredData).
    pub prior_sacked: u64,
    /// The ACK carried no SACK blocks.
    pub no_sack: bool,
    /// Bytes the ACK newly SACKed.
    pub newly_sacked: u64,
    /// End of the ACK's D-SACK block (RFC 2883), if its first block is one.
    pub dsack_end: Option<u64>,
    /// The controller declared the head segment lost on this duplicate ACK.
    pub early: bool,
}

/// The points at which the sender hands control to loss recovery. Every method has a
/// neutral default, so a recovery implements only what it needs.
pub(super) trait LossRecovery {
    /// Segment `idx` was newly delivered (SACKed, or cumulatively ACKed without a SACK
    /// before), while the ACK is taken in.
    fn on_delivered(&mut self, _now: Time, _idx: u64, _rec: &SentRecord, _min_rtt: Option<Dur>) {}

    /// New data was cumulatively acknowledged (`acked` bytes, up to `ack`), before the
    /// controller sees the ACK. Returns whether the retransmission timer keeps running
    /// instead of restarting.
    fn on_ack(&mut self, _s: &mut SendState, _now: Time, _ack: u64, _acked: u64) -> bool {
        false
    }

    /// A duplicate ACK arrived (the controller has seen it). `early`: the controller
    /// declared the head segment lost.
    fn on_dup_ack(&mut self, _s: &mut SendState, _now: Time, _early: bool) {}

    /// The ACK has been fully processed: detect losses, enter recovery, arm timers.
    fn after_ack(&mut self, _s: &mut SendState, _now: Time, _a: &AckSummary) {}

    /// The next segment to send, or `None` when the window (or the data) is exhausted.
    fn next_segment(&mut self, s: &mut SendState) -> Option<u64> {
        s.next_in_order(false)
    }

    /// A segment to send before anything else, outside pacing and the window (RACK's
    /// tail loss probe).
    fn take_probe(&mut self, _s: &mut SendState) -> Option<u64> {
        None
    }

    /// Segment `idx` was sent at `now` (after all the sender's bookkeeping).
    fn on_sent(&mut self, _s: &mut SendState, _now: Time, _idx: u64, _retransmission: bool) {}

    /// The segment at snd_una is being retransmitted outside the window.
    fn on_head_retransmit(&mut self, _s: &mut SendState, _idx: u64) {}

    /// The retransmission timer expired (the sender has gone back N).
    fn on_rto(&mut self, _s: &mut SendState) {}

    /// The pipe while in SACK recovery (what the window is compared against then);
    /// `None` outside it.
    fn pipe(&self, _s: &SendState) -> Option<u64> {
        None
    }

    /// Bytes still in the network: FlightSize less what the receiver SACKed or the
    /// scoreboard deems lost (ns-3's BytesInFlight). Without SACK it equals FlightSize.
    /// Used for ssthresh when a timeout strikes during fast recovery, and for the
    /// controller in SACK recovery: the sequence-space FlightSize then includes data sent
    /// under cwnd inflation that the receiver already holds, and halving it would set
    /// ssthresh far above what the path carried.
    fn in_network(&mut self, s: &mut SendState) -> u64 {
        let flight = s.flight_size();
        s.sb.mark_lost_and_pipe(&mut s.recs, s.mss, flight)
            .min(flight)
    }

    /// The recovery's own timer, if any.
    fn timeout(&self) -> Option<Time> {
        None
    }

    /// Called when [`timeout`](Self::timeout) has passed (before the RTO is checked).
    fn on_timeout(&mut self, _s: &mut SendState, _now: Time) {}
}
