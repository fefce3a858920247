//! The congestion-control interface and the built-in controllers.
//!
//! One trait serves three kinds of sender:
//! - window-based (Reno family): grow `cwnd` on ACKs, cut it on congestion events;
//! - rate-based (BBR): read [`RateSample`]s, set a pacing rate and a send quantum;
//! - timer-driven burst senders (TCP Wave): own a send timer; when it fires the sender
//!   may send `segs_per_round` segments (the Wave kernel hooks, see the reference).
//!
//! The sender's loss recovery (Reno, NewReno, SACK with RFC 6675 IsLost or RFC 8985
//! RACK-TLP) stays in the sender; the controller only decides windows and rates. The
//! trait is a small core plus opt-in extensions that a controller declares in
//! [`CongestionControl::capabilities`] (see [`Capabilities`]). Built-ins are dispatched
//! through the [`Controller`] enum (no vtable on the hot path); user controllers are
//! boxed.

mod bbr;
mod capabilities;
mod controller;
mod cubic;
mod dctcp;
mod delivery_round;
mod fixed_burst;
mod hystart;
mod hystart_classic;
mod newreno;
mod params;
mod recovery_default;
mod tahoe;
mod vegas;
mod wave;
mod westwood;
mod westwood_plus;
mod windowed_max;

pub use bbr::Bbr;
pub use capabilities::Capabilities;
pub use controller::{build, register, BuildError, Controller, Factory, BUILTIN};
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use fixed_burst::FixedBurst;
pub use newreno::{CaGrowth, NewReno};
pub use params::{CcParams, ParamValue};
pub use recovery_default::default_recovery;
pub use tahoe::Tahoe;
pub use vegas::{Vegas, VegasVariant};
pub use wave::Wave;
pub use westwood::Westwood;
pub use westwood_plus::WestwoodPlus;
pub use windowed_max::WindowedMax;

use crate::rate::RateSample;
use params::default_from_params;
use tcplab_core::{Dur, Time};

/// The window state shared by the sender's recovery machinery and the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window in bytes.
    pub cwnd: u64,
    /// Slow-start threshold in bytes (`u64::MAX` until the first loss).
    pub ssthresh: u64,
    pub mss: u32,
}

/// What an ACK told the sender, as the controller sees it.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK; outside fast recovery under
    /// `acked_basis = "delivered"` (the `ns3` profile) only those no SACK had reported
    /// before, plus those this ACK newly SACKs (ns-3's `currentDelivered`).
    pub bytes_acked: u64,
    /// Karn-valid RTT sample from this ACK, if any.
    pub rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// Bytes in flight after this ACK.
    pub in_flight: u64,
    /// The sender is in fast recovery (window growth is normally suspended).
    pub in_recovery: bool,
    /// Delivery-rate sample, when this ACK delivered new data.
    pub rate: Option<RateSample>,
    /// Total bytes delivered so far.
    pub delivered: u64,
    /// The ACK carried ECN-Echo (RFC 3168; with DCTCP, RFC 8257 section 3.2: the bytes
    /// it acknowledges were marked CE). The sender answers the mark itself, through
    /// [`CongestionControl::on_ecn_echo`]; DCTCP counts marked bytes from this.
    pub ece: bool,
}

/// An ACK of `bytes_acked` at `now` with nothing else to report: the base the
/// controllers' unit tests build their ACKs on (`AckInfo { rtt: …, ..AckInfo::bare(…) }`).
#[cfg(test)]
impl AckInfo {
    pub(crate) fn bare(now: Time, bytes_acked: u64) -> AckInfo {
        AckInfo {
            now,
            bytes_acked,
            rtt: None,
            srtt: None,
            min_rtt: None,
            in_flight: 0,
            in_recovery: false,
            rate: None,
            delivered: 0,
            ece: false,
        }
    }
}

/// Why the sender reduces its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionEvent {
    /// DupThresh duplicate ACKs (or the SACK rule) detected a loss.
    FastRetransmit,
    /// The retransmission timer expired; `repeated` if the timed-out segment had already
    /// been retransmitted by a timeout (RFC 5681: ssthresh is then held constant).
    Rto { repeated: bool },
}

/// The first unacknowledged segment, offered to
/// [`CongestionControl::retransmit_head`] for early loss detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadSegment {
    pub now: Time,
    /// When the segment was last (re)transmitted.
    pub sent: Time,
    /// When the segment was first transmitted (equals `sent` until it is retransmitted).
    pub first_sent: Time,
    /// Times it has been sent (1: never retransmitted).
    pub transmissions: u16,
    /// Asked on a duplicate ACK; otherwise on an ACK of new data.
    pub dup_ack: bool,
}

/// A snapshot for traces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcMetrics {
    /// Controller state name, e.g. "slow_start", "congestion_avoidance", "probe_bw".
    pub state: &'static str,
    /// Pacing rate in bytes per second, if the controller paces.
    pub pacing_rate: Option<u64>,
}

/// A congestion controller.
///
/// **The core** every controller answers: [`name`](Self::name), [`on_ack`](Self::on_ack)
/// and [`on_congestion_event`](Self::on_congestion_event) (required), and, with defaults,
/// [`init`](Self::init), [`on_recovery_exit`](Self::on_recovery_exit),
/// [`fast_recovery`](Self::fast_recovery), [`metrics`](Self::metrics) and
/// [`trace`](Self::trace). A window-based controller of the Reno family needs nothing
/// more.
///
/// **Opt-in extensions**, each called only if [`capabilities`](Self::capabilities)
/// declares it (see [`Capabilities`]): duplicate ACKs ([`on_dup_ack`](Self::on_dup_ack)),
/// sends ([`on_sent`](Self::on_sent)), early loss detection
/// ([`retransmit_head`](Self::retransmit_head)), pacing and send timers
/// ([`pacing_rate`](Self::pacing_rate), [`send_quantum`](Self::send_quantum),
/// [`send_timer`](Self::send_timer), [`on_send_timer`](Self::on_send_timer),
/// [`on_segments_sent`](Self::on_segments_sent), [`on_no_data`](Self::on_no_data)), a
/// window of its own in recovery ([`recovery_inflation`](Self::recovery_inflation)), and
/// ACKs that carry a delivery-rate sample or acknowledge no new data. The default
/// declares them all, so a controller that does not answer is called for everything.
pub trait CongestionControl {
    // ---- the core ----

    /// Short name used in scenarios and results.
    fn name(&self) -> &'static str;

    /// Called once before the first transmission; may set the initial window.
    fn init(&mut self, _w: &mut Window, _now: Time) {}

    /// New data was cumulatively acknowledged (and, with
    /// [`Capabilities::HEARS_ACKS_WITHOUT_PROGRESS`], an ACK that only SACKed).
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo);

    /// A loss was detected: set `ssthresh` and `cwnd`. For fast retransmit the sender
    /// then adds the RFC 5681 inflation itself if [`fast_recovery`](Self::fast_recovery).
    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    );

    /// Fast recovery ended (all data outstanding at the loss was acknowledged).
    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {}

    /// An ACK echoed a congestion mark (ECN-Echo, RFC 3168 section 6.1.2), at most once
    /// per round trip (the sender's CWR state, `window_cut.rs`): set ssthresh and cwnd.
    /// The default answers as to a loss found by ACKs: Linux's `tcp_enter_cwr` asks the
    /// controller's `ssthresh` hook as fast recovery does (`tcp_init_cwnd_reduction`).
    /// With PRR configured the sender then lowers cwnd to ssthresh in proportion to
    /// what is delivered, as Linux's CWR state does (`tcp_cwnd_reduction`).
    fn on_ecn_echo(&mut self, w: &mut Window, now: Time, in_flight: u64) {
        self.on_congestion_event(w, CongestionEvent::FastRetransmit, now, in_flight);
    }

    /// False for Tahoe: no fast recovery, cwnd restarts from one segment.
    fn fast_recovery(&self) -> bool {
        true
    }

    fn metrics(&self, w: &Window) -> CcMetrics {
        CcMetrics {
            state: if w.cwnd < w.ssthresh {
                "slow_start"
            } else {
                "congestion_avoidance"
            },
            pacing_rate: self.pacing_rate(),
        }
    }

    /// Controller-specific variables for traces (e.g. Wave's TxTime), as (name, value).
    fn trace(&self, _emit: &mut dyn FnMut(&'static str, f64)) {}

    // ---- opt-in extensions ----

    /// Which of the opt-in hooks this controller overrides, asked once when the flow is
    /// built (the answer must not change). Declare every hook you override: the sender
    /// calls no other. The default, [`Capabilities::ALL`], is always right, at the price
    /// of a call per ACK and send to hooks that may do nothing.
    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    /// A duplicate ACK arrived (before or during recovery).
    /// [`Capabilities::HEARS_DUP_ACKS`].
    fn on_dup_ack(&mut self, _w: &mut Window, _now: Time, _in_flight: u64) {}

    /// Processing an ACK marked `bytes` newly lost (RACK-TLP loss detection; Linux's
    /// `rs->losses`, what `tcp_ack` counts between its loss marking and
    /// `cong_control`); `in_flight` is what is left in the network after the marking.
    /// Called after [`on_ack`](Self::on_ack) for the same ACK.
    fn on_lost(&mut self, _w: &mut Window, _bytes: u64, _in_flight: u64) {}

    /// Processing an ACK changed by `bytes` (up or down) the bytes marked lost and not yet
    /// ACKed or SACKed, retransmitted or not: ns-3.48's `TcpTxBuffer::GetLost`, whose
    /// |currentLost − previousLost| `TcpSocketBase::ReceivedAck` hands `CongControl`.
    /// `in_recovery`: after the ACK. Any recovery (RFC 6675's or RACK's marks).
    fn on_lost_change(
        &mut self,
        _w: &mut Window,
        _bytes: u64,
        _in_flight: u64,
        _in_recovery: bool,
    ) {
    }

    /// Early loss detection (Vegas' fine-grained timeout, Brakmo & Peterson 1995), asked on
    /// every duplicate ACK and every ACK of new data while data is outstanding. `true`
    /// makes the sender retransmit `head` now. On a duplicate ACK outside recovery this is
    /// the loss signal: the sender enters fast retransmit as if DupThresh had been reached
    /// ([`CongestionEvent::FastRetransmit`]); otherwise only the segment is resent.
    /// [`Capabilities::EXPIRES_HEAD`].
    fn retransmit_head(&mut self, _head: &HeadSegment) -> bool {
        false
    }

    /// A segment of `bytes` was sent. [`Capabilities::HEARS_SENDS`].
    fn on_sent(&mut self, _now: Time, _bytes: u32, _in_flight: u64) {}

    /// False for controllers that set cwnd themselves during fast recovery (BBR's packet
    /// conservation): the sender then leaves cwnd alone in recovery — no RFC 5681
    /// inflation on entry or per duplicate ACK, no RFC 6582 deflation on partial ACKs,
    /// no reset on exit. [`Capabilities::SETS_RECOVERY_WINDOW`].
    fn recovery_inflation(&self) -> bool {
        true
    }

    /// Pacing rate in bytes/s; `None` sends as fast as the window allows.
    /// [`Capabilities::PACES_OR_TIMES`], as the five hooks below.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// Segments that may leave back-to-back under pacing.
    fn send_quantum(&self) -> u32 {
        1
    }

    /// Timer-driven senders: when the send timer fires next (`None`: ACK-clocked).
    fn send_timer(&self) -> Option<Time> {
        None
    }

    /// The send timer fired at `now`; returns how many segments may be sent this round.
    fn on_send_timer(&mut self, _w: &mut Window, _now: Time) -> u32 {
        0
    }

    /// After a round: how many segments actually left.
    fn on_segments_sent(&mut self, _w: &mut Window, _now: Time, _sent: u32) {}

    /// The sender wanted to send but had no data (application-limited).
    fn on_no_data(&mut self, _w: &mut Window, _now: Time) {}
}

/// ssthresh after a loss for the Reno family (RFC 5681 eq. 4): max(FlightSize/2, 2·SMSS).
pub fn reno_ssthresh(in_flight: u64, mss: u32) -> u64 {
    (in_flight / 2).max(2 * mss as u64)
}

/// A Reno-style cut to `ssthresh`: cwnd = ssthresh after a fast retransmit (RFC 5681
/// section 3.2 step 2, before the inflation the sender adds), `loss_window` after a
/// timeout (section 3.1: one segment in RFC 5681).
pub fn reno_cut(w: &mut Window, ev: CongestionEvent, ssthresh: u64, loss_window: u64) {
    w.ssthresh = ssthresh;
    w.cwnd = match ev {
        CongestionEvent::FastRetransmit => ssthresh,
        CongestionEvent::Rto { .. } => loss_window,
    };
}

/// The Reno family's response to a loss (RFC 5681): [`reno_cut`] to [`reno_ssthresh`] of
/// `in_flight`, except that a repeated timeout holds ssthresh (section 3.1, see
/// [`CongestionEvent::Rto`]).
pub fn reno_response(w: &mut Window, ev: CongestionEvent, in_flight: u64, loss_window: u64) {
    let ssthresh = match ev {
        CongestionEvent::Rto { repeated: true } => w.ssthresh,
        _ => reno_ssthresh(in_flight, w.mss),
    };
    reno_cut(w, ev, ssthresh, loss_window);
}
