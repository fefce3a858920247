//! Endpoint configuration with the defaults of the RFCs they follow.

use crate::pacing::Bursts;
use crate::rtt::RtoRule;
use tcplab_core::Dur;

/// How the sender recovers from losses detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryMode {
    /// RFC 5681 fast recovery: leave recovery on the first new ACK.
    Reno,
    /// RFC 6582: stay in recovery until all data outstanding at loss time is acknowledged,
    /// retransmitting on each partial ACK.
    NewReno,
    /// RFC 6675: SACK scoreboard, pipe estimate and NextSeg().
    Sack,
}

impl RecoveryMode {
    pub fn parse(s: &str) -> Option<RecoveryMode> {
        match s {
            "reno" => Some(RecoveryMode::Reno),
            "newreno" => Some(RecoveryMode::NewReno),
            "sack" => Some(RecoveryMode::Sack),
            _ => None,
        }
    }
}

/// RFC 6582 section 4: when NewReno recovery restarts the retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// Only on the first partial ACK: many losses end in a timeout and go-back-N
    /// (RFC 6582's recommendation).
    Impatient,
    /// On every partial ACK: one loss repaired per RTT, however many there are
    /// (ns-3's behaviour).
    SlowButSteady,
}

impl PartialAckTimer {
    pub fn parse(s: &str) -> Option<PartialAckTimer> {
        match s {
            "impatient" => Some(PartialAckTimer::Impatient),
            "slow-but-steady" => Some(PartialAckTimer::SlowButSteady),
            _ => None,
        }
    }
}

/// How SACK recovery decides that a segment is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossDetection {
    /// RFC 6675 IsLost: DupThresh SACKed segments above it (lost retransmissions are
    /// only found by the RTO).
    DupAck,
    /// RFC 8985 RACK-TLP: time-based detection (also of lost retransmissions) with a
    /// reordering window of min_RTT/4, and a tail loss probe before the RTO.
    Rack,
}

impl LossDetection {
    pub fn parse(s: &str) -> Option<LossDetection> {
        match s {
            "dupack" => Some(LossDetection::DupAck),
            "rack" => Some(LossDetection::Rack),
            _ => None,
        }
    }
}

/// How cwnd evolves during SACK recovery (RFC 6675 and RACK-TLP recovery).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryCwnd {
    /// RFC 6675 section 5: cwnd = ssthresh on entry (the controller's reduction), sending
    /// whenever cwnd − pipe ≥ 1 SMSS.
    Ssthresh,
    /// RFC 6937 Proportional Rate Reduction with slow-start reduction bound (Linux).
    Prr,
    /// ns-3's `TcpPrrRecovery` (ns-3.48 `tcp-prr-recovery.cc`): PRR with RecoverFS =
    /// pipe, one extra segment counted delivered per duplicate ACK, SSRB only on a safe
    /// ACK (see `prr.rs`).
    PrrNs3,
}

impl RecoveryCwnd {
    pub fn parse(s: &str) -> Option<RecoveryCwnd> {
        match s {
            "ssthresh" => Some(RecoveryCwnd::Ssthresh),
            "prr" => Some(RecoveryCwnd::Prr),
            "prr-ns3" => Some(RecoveryCwnd::PrrNs3),
            _ => None,
        }
    }
}

/// What the congestion window is cut from on a loss (the `in_flight` given to the
/// controller's congestion event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// RFC 5681 eq. (4) / RFC 6582 / RFC 6675: FlightSize, all data outstanding, including
    /// data the receiver already holds out of order.
    FlightSize,
    /// What is still in the network: FlightSize less what the receiver is known to hold
    /// (SACKed bytes, or one SMSS per duplicate ACK without SACK blocks), as ns-3's
    /// BytesInFlight (with its Reno "SACK" emulation) and Linux's packets_in_flight.
    InFlight,
    /// The SACK pipe at the cut: FlightSize less SACKed bytes and bytes marked lost
    /// (the head, once recovery starts), as ns-3's `TcpSocketBase::EnterRecovery`, which
    /// calls `BytesInFlight()` (sent − SACKed − lost + retransmitted) after
    /// `MarkHeadAsLost()`. Without SACK as `InFlight`.
    Pipe,
}

impl SsthreshBasis {
    pub fn parse(s: &str) -> Option<SsthreshBasis> {
        match s {
            "flight-size" => Some(SsthreshBasis::FlightSize),
            "in-flight" => Some(SsthreshBasis::InFlight),
            "pipe" => Some(SsthreshBasis::Pipe),
            _ => None,
        }
    }
}

/// What the congestion window is compared against outside SACK recovery (in recovery it
/// is always RFC 6675's pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowBasis {
    /// RFC 5681 / RFC 6675: FlightSize (all data sent and not cumulatively acknowledged);
    /// SACKed data leaves the count only in recovery.
    FlightSize,
    /// FlightSize less SACKed bytes in every state, as ns-3's
    /// `TcpSocketBase::AvailableWindow` (cwnd − `BytesInFlight()`): a duplicate ACK whose
    /// SACK block covers a new segment lets a new segment out before recovery, as limited
    /// transmit (RFC 3042) does for the first two.
    InFlight,
}

impl WindowBasis {
    pub fn parse(s: &str) -> Option<WindowBasis> {
        match s {
            "flight-size" => Some(WindowBasis::FlightSize),
            "in-flight" => Some(WindowBasis::InFlight),
            _ => None,
        }
    }
}

/// What an ACK of new data outside fast recovery tells the controller it acknowledged
/// (`AckInfo::bytes_acked`, which slow start and congestion avoidance grow by).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckedBasis {
    /// Everything the cumulative ACK newly covers, SACKed before or not (RFC 5681 with
    /// RFC 3465 byte counting).
    Cumulative,
    /// Only what the ACK newly delivered: the bytes it covers that no SACK had reported,
    /// plus those it newly SACKs. ns-3.48's `TcpSocketBase::ProcessAck` hands its
    /// controller `segsAcked` = `currentDelivered` / MSS, the change of `TcpRateOps`'s
    /// delivered count over the ACK, in which `TcpRateLinux::SkbDelivered` counts a
    /// segment once, when it is first SACKed or acknowledged. After a timeout the
    /// retransmission that fills the first hole is one segment delivered, not the
    /// window SACKed behind it.
    Delivered,
}

impl AckedBasis {
    pub fn parse(s: &str) -> Option<AckedBasis> {
        match s {
            "cumulative" => Some(AckedBasis::Cumulative),
            "delivered" => Some(AckedBasis::Delivered),
            _ => None,
        }
    }
}

/// How a receiver echoes Congestion Experienced marks (`ReceiverConfig::ecn`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnEcho {
    /// No ECN: a SYN asking for it is answered without (RFC 3168 section 6.1.1).
    #[default]
    Off,
    /// RFC 3168 section 6.1.3: after a CE mark, ECE on every ACK until a segment with
    /// CWR arrives.
    Rfc3168,
    /// RFC 8257 section 3.2: ECE on an ACK exactly when the segments it acknowledges
    /// were marked, an immediate ACK when the marking changes.
    Dctcp,
}

/// Default send buffer: no limit (the `linux` profile sets Linux's `tcp_wmem` maximum,
/// 4 MiB; `ns3` ns-3's 128 KiB).
pub const DEFAULT_SND_BUF: u64 = u64::MAX;
/// Default receive buffer: Linux's `tcp_rmem` maximum (6 MiB), what its autotuning grows
/// a bulk receiver's buffer to (it was 64 MiB before the Linux-like 6 MiB default).
pub const DEFAULT_RCV_BUF: u64 = 6 * 1024 * 1024;

/// Sender settings.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Payload bytes per segment (default 1460: a 1500-byte MTU less 40 bytes of headers).
    pub mss: u32,
    /// Bytes to transfer; `None` sends for as long as the driver runs the flow.
    pub total_bytes: Option<u64>,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_cwnd: u32,
    pub recovery: RecoveryMode,
    /// NewReno timer variant (RFC 6582 section 4).
    pub partial_ack_timer: PartialAckTimer,
    /// Loss detection of SACK recovery (ignored by the other recovery modes).
    pub loss_detection: LossDetection,
    /// cwnd during SACK recovery (ignored by Reno and NewReno recovery).
    pub recovery_cwnd: RecoveryCwnd,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupthresh: u32,
    /// RFC 6298: initial RTO 1 s, minimum 1 s, maximum 60 s, clock granularity G.
    pub initial_rto: Dur,
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub clock_granularity: Dur,
    /// How the RTO follows the samples: RFC 6298 or Linux's rule (`rtt.rs`).
    pub rto_rule: RtoRule,
    /// Ticks per second of the clock the retransmission timer (RTO, loss probe,
    /// reordering timeout) is armed on, as Linux's jiffies at `CONFIG_HZ` on its timer
    /// wheel (`timer_wheel.rs`); 0: exact timers.
    pub timer_hz: u32,
    /// RFC 7323 timestamps on every segment: RTT samples from TSecr on every ACK of new
    /// data, retransmissions included (no Karn ambiguity), which also clear the RTO
    /// backoff. The receiver must use them too ([`ReceiverConfig::timestamps`]).
    pub timestamps: bool,
    /// Undo spurious window reductions: Eifel detection (RFC 3522) with timestamps, else
    /// DSACK-based detection (RFC 3708); restore cwnd and ssthresh (RFC 4015 after a
    /// timeout). See `undo.rs`.
    pub undo: bool,
    /// Send buffer: at most this many bytes sent and not cumulatively acknowledged
    /// (the application's unacknowledged data must fit in it).
    pub snd_buf: u64,
    /// What ssthresh is computed from on a loss.
    pub ssthresh_basis: SsthreshBasis,
    /// What cwnd bounds outside SACK recovery.
    pub window_basis: WindowBasis,
    /// What an ACK outside fast recovery counts as acknowledged for the controller.
    pub acked_basis: AckedBasis,
    /// Open the connection with a SYN / SYN-ACK exchange first (`handshake.rs`).
    pub handshake: bool,
    /// First SYN timeout when it differs from `initial_rto` (ns-3's ConnTimeout).
    pub syn_rto: Option<Dur>,
    /// Ask for ECN (RFC 3168): the SYN carries ECE and CWR; once the peer agrees (or
    /// at once without a handshake) new data is sent ECT(0) and an ECN-Echo answered
    /// by one window reduction per round trip (`window_cut.rs`). Off by default, as
    /// Linux's `net.ipv4.tcp_ecn = 2` for connections it opens.
    pub ecn: bool,
    /// How a paced controller's send quantum leaves (`pacing.rs`): with slack before its
    /// slot (the default), as one TSO/GSO burst per quantum as Linux sends it (`tso =
    /// true`), or one segment per slot (`tso = false`).
    pub bursts: Bursts,
}

impl Default for SenderConfig {
    fn default() -> Self {
        SenderConfig {
            mss: 1460,
            total_bytes: None,
            initial_cwnd: 10,
            recovery: RecoveryMode::NewReno,
            partial_ack_timer: PartialAckTimer::Impatient,
            loss_detection: LossDetection::DupAck,
            recovery_cwnd: RecoveryCwnd::Ssthresh,
            dupthresh: 3,
            initial_rto: Dur::from_secs(1),
            min_rto: Dur::from_secs(1),
            max_rto: Dur::from_secs(60),
            clock_granularity: Dur::from_millis(1),
            rto_rule: RtoRule::Rfc6298,
            timer_hz: 0,
            timestamps: false,
            undo: false,
            snd_buf: DEFAULT_SND_BUF,
            ssthresh_basis: SsthreshBasis::FlightSize,
            window_basis: WindowBasis::FlightSize,
            acked_basis: AckedBasis::Cumulative,
            handshake: false,
            syn_rto: None,
            ecn: false,
            bursts: Bursts::Slack,
        }
    }
}

/// When the receiver acknowledges in-order data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPolicy {
    /// RFC 1122 / 5681 delayed ACK: after `every` full-sized segments or `max_delay`,
    /// immediately on out-of-order data or when a gap is filled.
    Delayed { every: u32, max_delay: Dur },
    /// An ACK for every segment.
    PerPacket,
}

impl Default for AckPolicy {
    fn default() -> Self {
        AckPolicy::Delayed {
            every: 2,
            max_delay: Dur::from_millis(200),
        }
    }
}

/// Receiver settings.
#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub ack_policy: AckPolicy,
    /// Report SACK blocks (RFC 2018).
    pub sack: bool,
    /// Receive buffer: the application reads in-order data at once, so only out-of-order
    /// data occupies it; the advertised window is what is free, and its right edge never
    /// moves left (RFC 7323 section 2.4, RFC 9293 section 3.8.6).
    pub rcv_buf: u64,
    /// Full-sized segment, for counting segments towards a delayed ACK.
    pub mss: u32,
    /// Transfer size if known, so the receiver can check it never gets bytes past the end.
    pub total_bytes: Option<u64>,
    /// Echo timestamps (RFC 7323 section 4.3) and stamp ACKs.
    pub timestamps: bool,
    /// Report duplicate segments in the first SACK block (RFC 2883 D-SACK).
    pub dsack: bool,
    /// Linux's quick-ACK mode: ACK each of the first `quick_ack` segments at once, and
    /// again after out-of-order data (0: off).
    pub quick_ack: u32,
    /// Whether and how CE marks are echoed to the sender.
    pub ecn: EcnEcho,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            ack_policy: AckPolicy::default(),
            sack: true,
            rcv_buf: DEFAULT_RCV_BUF,
            mss: 1460,
            total_bytes: None,
            timestamps: false,
            dsack: false,
            quick_ack: 0,
            ecn: EcnEcho::Off,
        }
    }
}
