//! The sender's shared state: the send sequence space (snd_una, snd_nxt, snd_max), the
//! per-segment records and SACK scoreboard, and the window, controller and estimators
//! that ACK intake, transmission, the retransmission timer and loss recovery all work on.
//! Recovery-specific state lives with each recovery (see `loss_recovery.rs`).

use crate::cc::{AckInfo, Capabilities, CongestionControl, Controller, HeadSegment, Window};
use crate::rate::{RateSample, RateSampler};
use crate::records::{FarTable, Records};
use crate::rtt::RttEstimator;
use crate::tcp::config::{RecoveryCwnd, SenderConfig, SsthreshBasis, WindowBasis};
use crate::tcp::ecn_state::EcnState;
use crate::tcp::prr::{Ns3Ack, Prr};
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::stats::SenderStats;
use crate::tcp::undo::Undo;
use tcplab_core::{Dur, Time};

/// Laid out for the cache (`repr(C)`, line-aligned): with a thousand flows a sender has
/// left the cache by its next ACK, so every line an ACK or a transmission touches is a
/// miss. Line 0 holds the sequence space, the flags and the settings read on every ACK
/// (copied out of `cfg`, whose 96 bytes would add two lines); line 1 the window and
/// the timers; lines 2-4 the controller, the send records' ring, the RTT estimator
/// and the scoreboard's per-ACK counts (what ACKs with SACK blocks read follows in line
/// 5, its lists after); then the rate sampler (read only for controllers that read
/// samples), the undo episode (read only with undo on) and the statistics' per-ACK head
/// (line 10). The rest of the configuration and PRR follow. A plain NewReno ACK touches
/// lines 0-4 and, with an RTT sample or a retransmission, 10 (a send of new data counts
/// nothing there).
#[derive(Debug)]
#[repr(C, align(64))]
pub(super) struct SendState {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// End of the data the application has written (`u64::MAX`: unlimited).
    pub app_end: u64,
    pub rwnd: u64,
    /// `cfg.mss`.
    pub mss: u32,
    pub dupacks: u32,
    /// The newest TSval of the receiver's ACKs, echoed in data segments (RFC 7323).
    pub peer_ts: u32,
    pub flow: u32,
    pub started: bool,
    pub in_recovery: bool,
    /// The segment at snd_una must be retransmitted now, outside the window.
    pub retx_head: bool,
    /// Go-back-N after a timeout (or Tahoe's fast retransmit): every segment the receiver
    /// had not SACKed then is presumed lost, so only what was sent since is in flight.
    /// Lasts until snd_una passes `recover` and the resend pass has caught up.
    pub go_back_n: bool,
    /// `cfg.timestamps`.
    pub timestamps: bool,
    /// `cfg.undo`.
    pub undo_on: bool,
    /// Settings fixed at construction, as bits: [`INFLATES`] (the controller always
    /// inflates in recovery, without `Capabilities::SETS_RECOVERY_WINDOW`: the per-duplicate-ACK
    /// question needs no dispatch, see [`Self::recovery_inflation`]) and [`USES_PRR`]
    /// (`cfg.recovery_cwnd` is a PRR: PRR's state is kept and read only then); and ECN's
    /// two flags ([`ECN_ON`]: negotiated; [`IN_CWR`]: a reduction answering ECN-Echo
    /// is under way), so that a flow without ECN reads no ECN state (`ecn.rs`).
    pub(super) fixed: u8,
    /// The controller reads delivery-rate samples (`Capabilities::READS_DELIVERY`): the
    /// rate sampler, in a line no plain ACK otherwise touches, is asked only then.
    pub rate_on: bool,
    // -- line 1 --
    pub w: Window,
    /// The retransmission timer (RFC 6298), see `rto.rs`.
    pub rto_at: Option<Time>,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint; also set by a timeout.
    pub recover: Option<u64>,
    /// `cfg.snd_buf`.
    pub snd_buf: u64,
    // -- line 2 --
    pub cc: Controller,
    pub recs: Records,
    pub rtt: RttEstimator,
    /// Its first 40 bytes (what every ACK and send reads) end line 4; what an ACK with
    /// SACK blocks reads fills line 5.
    pub sb: Scoreboard,
    /// Read only for a controller that reads samples (`rate_on`).
    pub rate: RateSampler,
    /// The reduction that may still be undone (`undo.rs`).
    pub undo: Undo,
    /// Starts the statistics' per-ACK head on a line of its own (line 10).
    _stats_line: LineStart,
    pub stats: SenderStats,
    pub cfg: SenderConfig,
    /// RFC 6937 state of the current SACK recovery episode (`recovery_cwnd = "prr"`).
    pub prr: Prr,
    /// Exact values of the send records that do not fit their 32-byte form (rarely used).
    pub far: FarTable,
    /// ECN's CWR state (read only with [`ECN_ON`]).
    pub ecn: EcnState,
}

/// [`SendState::fixed`]: the controller always inflates in recovery.
const INFLATES: u8 = 1;
/// [`SendState::fixed`]: PRR is configured.
const USES_PRR: u8 = 2;
/// [`SendState::fixed`]: ECN was negotiated (`ecn.rs`).
pub(super) const ECN_ON: u8 = 4;
/// [`SendState::fixed`]: in CWR, the window reduction answering an ECN-Echo (`ecn.rs`).
pub(super) const IN_CWR: u8 = 8;

/// A zero-sized field that starts the next field on a cache line.
#[derive(Debug)]
#[repr(align(64))]
struct LineStart;

impl SendState {
    pub fn new(flow: u32, cfg: SenderConfig, cc: Controller) -> SendState {
        let rtt = RttEstimator::new(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        )
        .with_rule(cfg.rto_rule);
        let app_end = cfg.total_bytes.unwrap_or(u64::MAX);
        let sb = Scoreboard::new(cfg.dupthresh);
        let can = cc.capabilities();
        let rate_on = can.has(Capabilities::READS_DELIVERY);
        let prr = Prr::new(cfg.recovery_cwnd == RecoveryCwnd::PrrNs3);
        SendState {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end,
            rwnd: u64::MAX,
            mss: cfg.mss,
            dupacks: 0,
            peer_ts: 0,
            flow,
            started: false,
            in_recovery: false,
            retx_head: false,
            go_back_n: false,
            timestamps: cfg.timestamps,
            undo_on: cfg.undo,
            fixed: if can.has(Capabilities::SETS_RECOVERY_WINDOW) {
                0
            } else {
                INFLATES
            } | if cfg.recovery_cwnd != RecoveryCwnd::Ssthresh {
                USES_PRR
            } else {
                0
            } | if cfg.ecn && !cfg.handshake {
                // Without a handshake both ends take ECN from the configuration.
                ECN_ON
            } else {
                0
            },
            rate_on,
            w: Window {
                cwnd: cfg.initial_cwnd as u64 * cfg.mss as u64,
                ssthresh: u64::MAX,
                mss: cfg.mss,
            },
            rto_at: None,
            recover: None,
            snd_buf: cfg.snd_buf,
            cc,
            recs: Records::default(),
            rtt,
            rate: RateSampler::default(),
            undo: Undo::default(),
            _stats_line: LineStart,
            stats: SenderStats::default(),
            sb,
            cfg,
            prr,
            far: FarTable::default(),
            ecn: EcnState::default(),
        }
    }

    /// The controller's [`recovery_inflation`](CongestionControl::recovery_inflation),
    /// without the dispatch for controllers that always say yes.
    #[inline]
    pub fn recovery_inflation(&self) -> bool {
        self.fixed & INFLATES != 0 || self.cc.recovery_inflation()
    }

    /// PRR is configured (`cfg.recovery_cwnd == Prr`).
    #[inline]
    pub fn uses_prr(&self) -> bool {
        self.fixed & USES_PRR != 0
    }

    /// All written data is acknowledged. An unlimited flow's end is `u64::MAX`, which
    /// snd_una never reaches (it would take 2^64 - 1 bytes sent), so one comparison answers
    /// for both kinds (asked on every poll).
    #[inline]
    pub fn is_complete(&self) -> bool {
        debug_assert!(self.snd_una < u64::MAX);
        self.snd_una >= self.app_end
    }

    /// Segments and bytes sent: the new ones (one record each, appended in order from
    /// segment 0; their bytes end at snd_max) and the retransmissions. Not counted per
    /// send, so a send does not touch the statistics' line (see [`SenderStats`]).
    pub fn sent(&self) -> (u64, u64) {
        (
            self.recs.end() + self.stats.retransmitted_segments,
            self.snd_max + self.stats.retransmitted_bytes,
        )
    }

    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Bytes outstanding that are neither SACKed nor marked lost (Linux's
    /// packets_in_flight without its retransmission term).
    pub fn presumed_in_flight(&self) -> u64 {
        self.sb.unsacked_unlost(self.flight_size())
    }

    /// A retransmission is still in the network: a segment sent more than once that is
    /// neither SACKed nor marked lost again (Linux's `retrans_out > 0`). Walks the
    /// outstanding records; asked only when a timestamp says an undo may be due.
    pub fn retransmission_in_flight(&self) -> bool {
        self.recs
            .iter_from(self.recs.base())
            .any(|(_, r)| r.tx_count > 1 && !r.sacked() && !r.lost())
    }

    /// In flight outside SACK recovery: in go-back-N after a timeout, what was sent since
    /// and is not SACKed (the rest is presumed lost, SACKed segments are skipped: RFC 6675
    /// section 5.1); else FlightSize up to snd_nxt, less the SACKed bytes under
    /// `window_basis = "in-flight"` (ns-3's `BytesInFlight()`).
    pub fn in_flight(&self) -> u64 {
        if self.go_back_n {
            self.presumed_in_flight()
        } else if self.cfg.window_basis == WindowBasis::InFlight {
            (self.snd_nxt - self.snd_una).saturating_sub(self.sb.sacked_bytes)
        } else {
            self.snd_nxt - self.snd_una
        }
    }

    /// What a loss cuts the window from (see [`SsthreshBasis`]): FlightSize, or FlightSize
    /// less what the receiver is known to hold. Without SACK blocks each duplicate ACK
    /// stands for one segment that left the network (Linux's and ns-3's Reno "SACK").
    pub fn loss_flight(&self) -> u64 {
        let flight = self.flight_size();
        match self.cfg.ssthresh_basis {
            SsthreshBasis::FlightSize => flight,
            SsthreshBasis::Pipe if self.sb.sacked_bytes > 0 => self.presumed_in_flight(),
            SsthreshBasis::InFlight | SsthreshBasis::Pipe => {
                let by_dupacks = self.dupacks as u64 * self.mss as u64;
                flight.saturating_sub(self.sb.sacked_bytes.max(by_dupacks))
            }
        }
    }

    /// Payload bytes of segment `idx`.
    pub fn seg_len(&self, idx: u64) -> u32 {
        let seq = idx * self.mss as u64;
        (self.app_end.saturating_sub(seq)).min(self.mss as u64) as u32
    }

    /// End (exclusive) of segment `idx`.
    pub fn seg_end(&self, idx: u64) -> u64 {
        idx * self.mss as u64 + self.seg_len(idx) as u64
    }

    /// Leaves fast recovery with window `cwnd`.
    pub fn exit_recovery(&mut self, now: Time, cwnd: u64) {
        self.in_recovery = false;
        self.w.cwnd = cwnd;
        self.cc.on_recovery_exit(&mut self.w, now);
    }

    /// PRR governs cwnd: configured, in recovery, and the controller leaves the recovery
    /// window to the sender (not BBR).
    pub fn prr_active(&self) -> bool {
        self.uses_prr() && self.in_recovery && self.recovery_inflation()
    }

    /// What an ACK delivered: the change in snd_una plus the change in SACKed bytes
    /// (RFC 6937's DeliveredData; ns-3's `currentDelivered`).
    #[inline]
    pub fn delivered_since(&self, prior_una: u64, prior_sacked: u64) -> u64 {
        (self.snd_una - prior_una + self.sb.sacked_bytes).saturating_sub(prior_sacked)
    }

    /// RFC 6937 on an ACK in SACK recovery: cwnd = pipe + sndcnt, where DeliveredData is
    /// the change in snd_una plus the change in SACKed bytes. `dup`: the ACK SACKed new
    /// data or started the recovery (read by ns-3's variant, `recovery_cwnd = "prr-ns3"`).
    pub fn prr_on_ack(&mut self, prior_una: u64, prior_sacked: u64, pipe: u64, dup: bool) {
        if !self.prr_active() {
            return;
        }
        let delivered = self.delivered_since(prior_una, prior_sacked);
        let mss = self.mss as u64;
        self.w.cwnd = if self.prr.is_ns3() {
            let partial = self.snd_una > prior_una;
            let ack = Ns3Ack {
                dup,
                partial,
                safe: partial && self.prr.retx_acked_at == self.snd_una,
            };
            let cwnd = self.w.cwnd;
            self.prr
                .on_ack_ns3(cwnd, delivered, pipe, self.w.ssthresh, mss, ack)
        } else {
            self.prr.on_ack(delivered, pipe, self.w.ssthresh, mss)
        };
    }

    /// Asks the controller whether to resend the segment at snd_una now (early loss
    /// detection, e.g. Vegas' fine-grained timeout). The sender asks only controllers
    /// that may say yes (`Capabilities::EXPIRES_HEAD`); for the others the answer would
    /// be no anyway.
    #[inline]
    pub fn head_expired(&mut self, now: Time, dup_ack: bool) -> bool {
        if self.snd_una >= self.snd_max {
            return false;
        }
        let Some(r) = self.recs.get(self.snd_una / self.mss as u64) else {
            return false;
        };
        let head = HeadSegment {
            now,
            sent: r.sent_time(),
            first_sent: r.orig_sent_time(&self.far),
            transmissions: r.tx_count.into(),
            dup_ack,
        };
        self.cc.retransmit_head(&head)
    }

    /// What the controller is told about an ACK.
    pub fn ack_info(
        &self,
        now: Time,
        bytes_acked: u64,
        rtt: Option<Dur>,
        rate: Option<RateSample>,
        in_flight: u64,
    ) -> AckInfo {
        AckInfo {
            now,
            bytes_acked,
            rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            in_flight,
            in_recovery: self.in_recovery,
            rate,
            // (Zero when the sampler is off: no need to read its line.)
            delivered: if self.rate_on { self.rate.delivered } else { 0 },
            ece: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-ACK fields keep their lines (see the layout note on [`SendState`]).
    #[test]
    fn the_per_ack_fields_keep_their_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<SendState>(), 64);
        let line = crate::tcp::cache_line;
        assert_eq!(line(offset_of!(SendState, snd_una), 8), 0);
        assert_eq!(line(offset_of!(SendState, undo_on), 1), 0);
        assert_eq!(line(offset_of!(SendState, fixed), 1), 0);
        assert_eq!(line(offset_of!(SendState, rate_on), 1), 0);
        assert_eq!(line(offset_of!(SendState, w), 24), 1);
        assert_eq!(line(offset_of!(SendState, snd_buf), 8), 1);
        // The controller, the records' ring, the RTT estimator and the scoreboard's
        // first 40 bytes (what every ACK and send reads, DupThresh and the previous
        // ACK's block count last): lines 2-4.
        assert_eq!(line(offset_of!(SendState, cc), 1), 2);
        assert_eq!(line(offset_of!(SendState, sb), 40), 4);
        // What an ACK with SACK blocks reads in the scoreboard: line 5, whole.
        assert_eq!(
            line(offset_of!(SendState, sb) + Scoreboard::SACK_PART, 64),
            5
        );
        assert_eq!(
            offset_of!(SendState, sb),
            offset_of!(SendState, rtt) + size_of::<RttEstimator>()
        );
        // The statistics' per-ACK head is one whole line.
        let stats = offset_of!(SendState, stats);
        assert_eq!(stats % 64, 0);
        assert_eq!(line(stats, 1), 10);
        // What an RTT sample moves and the retransmission counts fill it.
        assert_eq!(offset_of!(SenderStats, retransmitted_bytes), 40);
        assert!(offset_of!(SenderStats, rtos) < 64);
        assert_eq!(size_of::<SendState>(), 960);
    }
    use crate::cc::NewReno;
    use crate::records::SentRecord;

    fn state(cc: Controller) -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, cc);
        for i in 0..10 {
            s.recs.push(i, SentRecord::new(1000, Time::ZERO));
        }
        s.snd_nxt = 10_000;
        s.snd_max = 10_000;
        s
    }

    /// Segment lengths: full MSS up to the application's end, the last one shorter.
    #[test]
    fn segment_lengths_follow_the_data() {
        let mut s = state(Controller::NewReno(NewReno::default()));
        s.app_end = 2500;
        assert_eq!((s.seg_len(0), s.seg_len(2), s.seg_len(3)), (1000, 500, 0));
        assert_eq!(s.seg_end(2), 2500);
        assert_eq!(s.flight_size(), 10_000);
    }

    /// Outside recovery cwnd bounds FlightSize (RFC 5681), or under `window_basis =
    /// "in-flight"` FlightSize less the SACKed bytes (ns-3's BytesInFlight): with segment
    /// 0 lost and 1..=2 SACKed, ten segments outstanding and cwnd 11 segments, only the
    /// latter lets two more segments out before the third duplicate ACK.
    #[test]
    fn window_basis_in_flight_counts_sacked_data_out() {
        for (basis, sent) in [(WindowBasis::FlightSize, 1), (WindowBasis::InFlight, 3)] {
            let mut s = state(Controller::NewReno(NewReno::default()));
            s.cfg.window_basis = basis;
            s.cfg.recovery = crate::tcp::config::RecoveryMode::Sack;
            s.app_end = 100_000;
            s.rwnd = 1 << 20;
            s.snd_buf = 1 << 20;
            s.w.cwnd = 11_000;
            for i in 1..=2 {
                let r = s.recs.get_mut(i).unwrap();
                s.sb.sacked_bytes += r.len as u64;
                r.set_sacked(true);
            }
            let mut n = 0;
            while let Some(idx) = s.next_in_order(false) {
                s.recs.push(idx, SentRecord::new(1000, Time::ZERO));
                s.snd_nxt += 1000;
                s.snd_max = s.snd_nxt;
                n += 1;
            }
            assert_eq!(n, sent, "{basis:?}");
        }
    }
}
