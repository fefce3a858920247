//! TACK settings, with the paper's defaults.

use crate::cc::CcParams;
use tcplab_core::Dur;

/// How the TACK sender's controller hears of a loss the receiver reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossResponse {
    /// The paper's co-designed, receiver-based BBR (§5.4, §7 "Congestion controller"):
    /// rate and RTT come from the receiver, and a reported loss is only retransmitted;
    /// the controller's recovery (BBR v1's packet conservation, which meters cwnd by the
    /// ACKs that arrive) is not entered. A timeout still is one.
    Rate,
    /// As a TCP sender: each loss event enters the controller's recovery (BBR v1: packet
    /// conservation for a round, at TACK's 4-5 ACKs per RTT).
    Conservation,
}

/// Both ends' settings (each reads what concerns it).
#[derive(Clone, Debug)]
pub struct TackConfig {
    /// Payload bytes per packet (default 1448: a 1500-byte MTU less 52 bytes of headers).
    pub mss: u32,
    /// Bytes to transfer; `None`: until the writer stops.
    pub total_bytes: Option<u64>,
    /// TACKs per RTT_min (β, default 4, at least 2) and full-sized packets per TACK
    /// (L, default 2).
    pub beta: u32,
    pub l: u32,
    /// TACK-rich (report up to [`super::MAX_GAPS`] gaps) or TACK-poor (Q = 1).
    pub rich: bool,
    /// Receive buffer (the window when nothing waits out of order).
    pub rcv_buf: u64,
    /// Bandwidth filter length in RTT_min (the paper: 5–10).
    pub bw_window_rtts: u32,
    /// EWMA gain of the smoothed one-way delay whose per-interval minimum picks the
    /// RTT_min packet. Default 1 (no smoothing: the packet with the smallest raw OWD):
    /// the paper's EWMA lags, so on a jittery path the packet where the average is lowest
    /// is not the queue- and jitter-free one (docs/reproductions/tack.md, Figure 6a).
    pub owd_gain: f64,
    /// Longest TACK interval in the byte-counting regime.
    pub max_interval: Dur,
    /// Before any rate estimate, a lone packet is acknowledged after this.
    pub initial_delay: Dur,
    /// The sender's RTT_min filter length (τ ≤ 10 s).
    pub rtt_window: Dur,
    /// Reordering allowance (§7, "Handling reordering"): a gap in packet numbers is
    /// reported by a loss IACK only if it is still open RTT_min / `iack_delay_div` after
    /// it appeared (default 4, RACK's settling time); 0 reports it at once, so any
    /// reordering counts as loss.
    pub iack_delay_div: u32,
    /// The IACK delay before the receiver knows RTT_min.
    pub iack_delay_initial: Dur,
    /// Loss IACKs (default on). Off, a gap that outlived the IACK delay waits for the
    /// next TACK to be reported (the paper's Figure 5a "Without IACK").
    pub loss_iack: bool,
    pub initial_cwnd: u32,
    /// What a reported loss does to the controller (see [`LossResponse`]).
    pub loss_response: LossResponse,
    /// Retransmission timeout bounds (the timeout is the last resort: TACKs repeat losses).
    pub min_rto: Dur,
    pub initial_rto: Dur,
}

impl Default for TackConfig {
    fn default() -> Self {
        TackConfig {
            mss: 1500 - super::TACK_DATA_HEADER_BYTES,
            total_bytes: None,
            beta: 4,
            l: 2,
            rich: true,
            rcv_buf: 64 * 1024 * 1024,
            bw_window_rtts: 10,
            owd_gain: 1.0,
            max_interval: Dur::from_millis(200),
            initial_delay: Dur::from_millis(25),
            rtt_window: Dur::from_secs(10),
            iack_delay_div: 4,
            iack_delay_initial: Dur::from_millis(5),
            loss_iack: true,
            initial_cwnd: 10,
            loss_response: LossResponse::Rate,
            min_rto: Dur::from_millis(200),
            initial_rto: Dur::from_secs(1),
        }
    }
}

/// A TACK flow: its congestion controller and settings.
#[derive(Clone, Debug)]
pub struct TackSpec {
    /// Controller name (default "bbr": TCP-TACK), resolved by [`crate::cc::build`].
    pub cc: String,
    pub cc_params: CcParams,
    pub cfg: TackConfig,
}
