//! The TACK receiver: reassembly, TACKs at the TACK frequency, IACKs on events, and the
//! receiver-side estimates (delivery rate, min-OWD packet) that TACKs carry.
//!
//! - **TACK** when the TACK interval ([`TackClock`]) has passed since the previous one
//!   and new data arrived; before any rate estimate, every L packets (or after
//!   `initial_delay` for a lone packet).
//! - **IACK (loss)** when a packet number skips ahead and the gap is still open after
//!   the IACK delay, RTT_min / 4 (§7, "Handling reordering": a settling time before a
//!   packet counts as lost, so reordering within it is not reported as loss). It lists
//!   the gaps that outlived the delay from the PN received just below the first (the
//!   paper's second-largest PN, for a single gap) to the block received above the last,
//!   as many per IACK as the mode allows, further IACKs right after for the rest. With
//!   loss IACKs off (`loss_iack = false`, the paper's Figure 5a "without IACK") such a
//!   gap is only listed by the next TACK.
//! - **IACK (window)** when the window drops below a quarter of the buffer (nearly full)
//!   and when it climbs back above half after that (a large release).
//! - A new RTT_min from the sender (carried in data packets: the paper's sender-side
//!   IACK) re-times the pending TACK.
//!
//! A TACK lists the PN gaps above the sender's floor, smallest first ("TACK-rich": up to
//! [`MAX_GAPS`]; "TACK-poor": only the first, Q = 1), and only gaps an IACK has reported
//! (or, with loss IACKs off, that outlived the IACK delay). Each TACK records the bytes
//! then blocked out of order in the receive buffer ([`BlockedLog`]).

use super::blocked::BlockedLog;
use super::config::TackConfig;
use super::frequency::TackClock;
use super::owd::OwdTracker;
use super::packet::{AckKind, Gap, TackAck, TackData, MAX_GAPS};
use crate::error::Violation;
use crate::ranges::Ranges;
use tcplab_core::{Dur, Time};

/// Gaps waiting out their IACK delay at once; more merge into the newest.
const GAP_CHECKS: usize = 8;

/// What the receiver sent and saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TackReceiverStats {
    pub packets_received: u64,
    pub duplicate_packets: u64,
    pub tacks_sent: u64,
    pub iacks_loss: u64,
    pub iacks_window: u64,
    pub completed_at: Option<Time>,
}

/// The TACK sink (see the module docs).
#[derive(Debug)]
pub struct TackReceiver {
    flow: u32,
    cfg: TackConfig,
    max_gaps: usize,
    rcv_nxt: u64,
    ooo: Ranges,
    ooo_bytes: u64,
    received_unique: u64,
    /// Received packet numbers at or above `floor`.
    pns: Ranges,
    floor: u64,
    largest: Option<u64>,
    largest_at: Time,
    /// PNs up to here had their gaps reported by an IACK (with loss IACKs off: passed
    /// their IACK delay, so TACKs list them).
    iack_upto: u64,
    /// Gaps waiting out the IACK delay, oldest first (a ring): (deadline, the PN whose
    /// arrival opened the gap).
    gap_checks: [(Time, u64); GAP_CHECKS],
    gap_head: usize,
    gap_n: usize,
    /// Gaps below this PN outlived their IACK delay: loss IACKs report those above
    /// `iack_upto`, as many per IACK as the mode allows, until none is left.
    iack_target: u64,
    rtt_min: Option<Dur>,
    clock: TackClock,
    owd: OwdTracker,
    last_tack: Option<Time>,
    /// Packets since the last ACK, and when the first of them arrived.
    pending: u32,
    pending_since: Time,
    tack_seq: u32,
    /// The window was reported nearly full (an IACK is owed when it opens again).
    window_low: bool,
    due: Option<AckKind>,
    stats: TackReceiverStats,
    /// Bytes blocked out of order at each TACK sent.
    blocked: BlockedLog,
}

impl TackReceiver {
    pub fn new(flow: u32, cfg: TackConfig) -> Self {
        TackReceiver {
            flow,
            max_gaps: if cfg.rich { MAX_GAPS } else { 1 },
            clock: TackClock::new(
                cfg.beta,
                cfg.l,
                cfg.mss,
                cfg.bw_window_rtts,
                cfg.max_interval,
            ),
            owd: OwdTracker::new(cfg.owd_gain),
            cfg,
            rcv_nxt: 0,
            ooo: Ranges::with_capacity(16),
            ooo_bytes: 0,
            received_unique: 0,
            pns: Ranges::with_capacity(16),
            floor: 0,
            largest: None,
            largest_at: Time::ZERO,
            iack_upto: 0,
            gap_checks: [(Time::ZERO, 0); GAP_CHECKS],
            gap_head: 0,
            gap_n: 0,
            iack_target: 0,
            rtt_min: None,
            last_tack: None,
            pending: 0,
            pending_since: Time::ZERO,
            tack_seq: 0,
            window_low: false,
            due: None,
            stats: TackReceiverStats::default(),
            blocked: BlockedLog::default(),
        }
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
    pub fn stats(&self) -> &TackReceiverStats {
        &self.stats
    }
    /// Bytes received out of order, waiting for a hole below them.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }
    /// The bytes blocked out of order at each TACK sent so far.
    pub fn blocked(&self) -> &BlockedLog {
        &self.blocked
    }
    /// Bytes delivered in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// The receiver's bandwidth estimate (bytes/s).
    pub fn bw(&self) -> u64 {
        self.clock.bw()
    }
    /// The current TACK interval, if known.
    pub fn tack_interval(&self) -> Option<Dur> {
        self.clock.interval(self.rtt_min)
    }
    pub fn rtt_min(&self) -> Option<Dur> {
        self.rtt_min
    }

    fn window(&self) -> u64 {
        self.cfg.rcv_buf.saturating_sub(self.ooo_bytes)
    }

    fn ack_now(&mut self, kind: AckKind) {
        // A loss IACK outranks a window IACK, which outranks a TACK.
        let rank = |k: AckKind| match k {
            AckKind::IackLoss => 2,
            AckKind::IackWindow => 1,
            AckKind::Tack => 0,
        };
        if self.due.is_none_or(|d| rank(kind) > rank(d)) {
            self.due = Some(kind);
        }
    }

    /// Processes a data packet.
    pub fn handle_data(&mut self, now: Time, d: &TackData) -> Result<(), Violation> {
        self.stats.packets_received += 1;
        let (start, end) = (d.seq, d.seq + d.len as u64);
        if let Some(total) = self.cfg.total_bytes {
            if end > total {
                return Err(Violation::DataBeyondEnd {
                    flow: self.flow,
                    end,
                    total,
                });
            }
        }
        if d.rtt_min_ns > 0 && self.rtt_min != Some(Dur(d.rtt_min_ns)) {
            self.rtt_min = Some(Dur(d.rtt_min_ns));
        }
        self.clock.on_arrival(now, d.len);
        self.owd.on_arrival(now, d.sent_at, d.pn);
        // Packet numbers.
        if d.pn_floor > self.floor {
            self.floor = d.pn_floor;
            self.pns.remove_below(self.floor);
        }
        if d.pn >= self.floor {
            self.pns.insert(d.pn, d.pn + 1);
        }
        match self.largest {
            Some(l) if d.pn > l + 1 => {
                // A gap: the packets in between are lost, or late. Report it once the
                // IACK delay has passed and it is still open (at once without a delay).
                self.largest = Some(d.pn);
                self.largest_at = now;
                match self.iack_delay() {
                    Dur::ZERO => self.check_gap(d.pn),
                    delay => self.push_gap_check(now + delay, d.pn),
                }
            }
            Some(l) if d.pn <= l => {}
            _ => {
                self.largest = Some(d.pn);
                self.largest_at = now;
            }
        }
        // Bytes.
        if d.len > 0 && end > self.rcv_nxt {
            let (_, new) = self.ooo.insert(start.max(self.rcv_nxt), end);
            if new == 0 {
                self.stats.duplicate_packets += 1;
            }
            self.received_unique += new;
            self.ooo_bytes += new;
            let mut held = 0;
            let mut nxt = self.rcv_nxt;
            self.ooo.pop_starting_at_or_below(self.rcv_nxt, |a, b| {
                held += b - a;
                nxt = nxt.max(b);
            });
            self.ooo_bytes -= held;
            self.rcv_nxt = nxt;
            if self.received_unique != self.rcv_nxt + self.ooo_bytes {
                return Err(Violation::ReassemblyMismatch {
                    flow: self.flow,
                    delivered: self.rcv_nxt,
                    received: self.received_unique,
                });
            }
        } else if d.len > 0 {
            self.stats.duplicate_packets += 1;
        }
        if self.cfg.total_bytes == Some(self.rcv_nxt) && self.stats.completed_at.is_none() {
            self.stats.completed_at = Some(now);
            self.ack_now(AckKind::Tack); // the end of the transfer: acknowledge at once
        }
        // Window events.
        let wnd = self.window();
        if !self.window_low && wnd < self.cfg.rcv_buf / 4 {
            self.window_low = true;
            self.ack_now(AckKind::IackWindow);
        } else if self.window_low && wnd > self.cfg.rcv_buf / 2 {
            self.window_low = false;
            self.ack_now(AckKind::IackWindow);
        }
        if self.pending == 0 {
            self.pending_since = now;
        }
        self.pending += 1;
        // Before a rate estimate: count L packets.
        if self.clock.interval(self.rtt_min).is_none() && self.pending >= self.cfg.l {
            self.ack_now(AckKind::Tack);
        }
        Ok(())
    }

    /// How long a gap may stay open before it counts as a loss (see the module docs).
    fn iack_delay(&self) -> Dur {
        match (self.cfg.iack_delay_div, self.rtt_min) {
            (0, _) => Dur::ZERO,
            (div, Some(r)) => r / div as u64,
            (_, None) => self.cfg.iack_delay_initial,
        }
    }

    fn push_gap_check(&mut self, at: Time, pn: u64) {
        if self.gap_n == GAP_CHECKS {
            // Full: the newest check also covers this gap (reported no later than it).
            let newest = (self.gap_head + GAP_CHECKS - 1) % GAP_CHECKS;
            self.gap_checks[newest].1 = pn;
        } else {
            self.gap_checks[(self.gap_head + self.gap_n) % GAP_CHECKS] = (at, pn);
            self.gap_n += 1;
        }
    }

    /// The IACK delay of the gap that `pn`'s arrival opened has passed: every gap below
    /// `pn` still open and not yet reported calls for a loss IACK. With loss IACKs off
    /// they are left to the next TACK, which lists the gaps below `iack_upto`.
    fn check_gap(&mut self, pn: u64) {
        self.iack_target = self.iack_target.max(pn);
        if !self.cfg.loss_iack {
            self.iack_upto = self.iack_upto.max(self.iack_target);
        } else if self.first_unreported_gap().is_some() {
            self.ack_now(AckKind::IackLoss);
        }
    }

    /// The lowest gap [start, end) with `iack_upto < end <= iack_target`, if any (a gap
    /// at the floor counts: its first PN was lost).
    fn first_unreported_gap(&self) -> Option<(u64, u64)> {
        let mut prev_end = None;
        for (s, e) in self.pns.iter() {
            if s > self.iack_target {
                return None;
            }
            let start = prev_end.unwrap_or(self.floor);
            if s > start && s > self.iack_upto {
                return Some((start, s));
            }
            prev_end = Some(e);
        }
        None
    }

    /// Fills a loss IACK with the unreported gaps below `iack_target`, smallest first:
    /// from the PN received just below the first (or that gap's start, at the floor) to
    /// the end of the block received after the last one listed. Returns whether gaps
    /// are left for another IACK.
    fn fill_iack(&mut self, a: &mut TackAck) -> bool {
        let Some((lo, _)) = self.first_unreported_gap() else {
            return false;
        };
        let base = if lo > self.floor { lo - 1 } else { lo };
        a.base = base;
        let mut covered_end = base;
        let mut prev_end = None;
        for (s, e) in self.pns.iter() {
            let start = prev_end.unwrap_or(self.floor);
            prev_end = Some(e);
            if s <= start || s <= self.iack_upto {
                continue; // no gap, or one reported already
            }
            if s > self.iack_target || a.n_gaps as usize == self.max_gaps {
                break;
            }
            if start - base > u16::MAX as u64 {
                break; // beyond what this ACK's offsets reach: the next IACK
            }
            a.gaps[a.n_gaps as usize] = Gap {
                start: (start - base) as u16,
                len: (s - start).min(u16::MAX as u64) as u16,
            };
            a.n_gaps += 1;
            self.iack_upto = s;
            if s - start > u16::MAX as u64 {
                // A gap longer than a Gap can say: report its first part and cover
                // nothing beyond it (TACKs and the timeout handle the rest).
                covered_end = start + u16::MAX as u64;
                break;
            }
            covered_end = e.min(base + u32::MAX as u64);
        }
        a.covered = (covered_end - base).min(u32::MAX as u64) as u32;
        self.first_unreported_gap().is_some()
    }

    fn next_gap_check(&self) -> Option<Time> {
        (self.gap_n > 0).then(|| self.gap_checks[self.gap_head].0)
    }

    /// When the next TACK is due (with data pending).
    fn tack_at(&self) -> Option<Time> {
        if self.pending == 0 {
            return None;
        }
        match self.clock.interval(self.rtt_min) {
            Some(iv) => Some(match self.last_tack {
                Some(t) => (t + iv).max(self.pending_since),
                None => self.pending_since,
            }),
            None => Some(self.pending_since + self.cfg.initial_delay),
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        while self.next_gap_check().is_some_and(|t| t <= now) {
            let (_, pn) = self.gap_checks[self.gap_head];
            self.gap_head = (self.gap_head + 1) % GAP_CHECKS;
            self.gap_n -= 1;
            self.check_gap(pn);
        }
        if self.tack_at().is_some_and(|t| t <= now) {
            self.ack_now(AckKind::Tack);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if self.due.is_some() {
            return None;
        }
        match (self.tack_at(), self.next_gap_check()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The pending ACK, if one is due.
    pub fn poll_transmit(&mut self, now: Time) -> Option<TackAck> {
        let kind = self.due.take()?;
        let largest = self.largest?;
        let mut a = TackAck {
            flow: self.flow,
            kind,
            wnd: self.window().min(u32::MAX as u64) as u32,
            delivery_rate: self.clock.bw().min(u32::MAX as u64) as u32,
            rcv_nxt: self.rcv_nxt,
            largest,
            largest_delay_ns: delay_ns(now, self.largest_at),
            ..TackAck::default()
        };
        if kind == AckKind::IackLoss {
            self.stats.iacks_loss += 1;
            if self.fill_iack(&mut a) {
                self.due = Some(AckKind::IackLoss); // more gaps than one IACK holds
            }
            // An IACK does not end the TACK interval.
            return Some(a);
        }
        if kind == AckKind::IackWindow {
            self.stats.iacks_window += 1;
        } else {
            self.stats.tacks_sent += 1;
            self.blocked.record(self.ooo_bytes);
            self.tack_seq += 1;
            a.tack_seq = self.tack_seq;
            if let Some((pn, at)) = self.owd.take() {
                a.min_owd_back = (largest.saturating_sub(pn)).min(u32::MAX as u64) as u32;
                a.min_owd_delay_ns = delay_ns(now, at);
            } else {
                a.min_owd_back = 0;
                a.min_owd_delay_ns = a.largest_delay_ns;
            }
            self.clock.on_tack(now, self.rtt_min);
            self.last_tack = Some(now);
            self.pending = 0;
        }
        self.fill_blocks(&mut a);
        Some(a)
    }

    /// Lists the gaps between the received PN ranges above the floor, smallest first, as
    /// many as the mode allows, and only those an IACK reported.
    fn fill_blocks(&self, a: &mut TackAck) {
        let Some((first, _)) = self.pns.first() else {
            return;
        };
        // A gap right at the floor (its first PN lost) counts too.
        let base = self.floor.min(first).min(a.largest);
        a.base = base;
        let mut covered_end = a.largest + 1; // exclusive
        let mut prev_end = (base < first).then_some(base);
        for (s, e) in self.pns.iter() {
            if let Some(pe) = prev_end {
                // A gap [pe, s).
                let fits = s - base <= u16::MAX as u64;
                if a.n_gaps as usize == self.max_gaps || s > self.iack_upto || !fits {
                    // Stop before this gap (at `base` itself: nothing covered).
                    covered_end = pe;
                    break;
                }
                a.gaps[a.n_gaps as usize] = Gap {
                    start: (pe - base) as u16,
                    len: (s - pe) as u16,
                };
                a.n_gaps += 1;
            }
            prev_end = Some(e);
        }
        a.covered = (covered_end - base).min(u32::MAX as u64) as u32;
    }
}

fn delay_ns(now: Time, since: Time) -> u32 {
    (now - since).0.min(u32::MAX as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(pn: u64, pn_floor: u64) -> TackData {
        TackData {
            flow: 0,
            len: 1000,
            seq: pn * 1000,
            pn,
            pn_floor,
            sent_at: Time::ZERO,
            rtt_min_ns: 0,
            fin: false,
            retransmission: false,
        }
    }

    /// Regression: with nothing received above the floor, an IACK on loss used to report
    /// the floor's own (lost) packet as received; the sender then dropped its segment and
    /// the transfer stalled for good (seen over UDP, and in the simulator at 20 µs delay
    /// and 3 % loss).
    #[test]
    fn an_iack_never_reports_the_missing_floor_packet_as_received() {
        let cfg = TackConfig {
            total_bytes: Some(100_000),
            mss: 1000,
            ..TackConfig::default()
        };
        let mut r = TackReceiver::new(0, cfg);
        let t = Time::ZERO + Dur::from_millis(1);
        r.handle_data(t, &data(0, 0)).unwrap();
        r.handle_data(t, &data(1, 0)).unwrap();
        while r.poll_transmit(t).is_some() {}
        // PNs 2..=6 are lost; the sender's floor has moved to 4 (2 and 3 were reported).
        r.handle_data(t, &data(7, 4)).unwrap();
        // Every ACK from now on (an IACK may wait for a reordering allowance).
        let mut iacks = 0;
        let mut now = t;
        for _ in 0..200 {
            while let Some(a) = r.poll_transmit(now) {
                iacks += (a.kind == AckKind::IackLoss) as u32;
                let received = |pn: u64| {
                    pn >= a.base
                        && pn < a.base + a.covered as u64
                        && !a.gaps().iter().any(|g| {
                            let s = a.base + g.start as u64;
                            pn >= s && pn < s + g.len as u64
                        })
                };
                for pn in 4..7 {
                    assert!(!received(pn), "PN {pn} reported received: {a:?}");
                }
            }
            now += Dur::from_millis(1);
            if r.poll_timeout().is_some_and(|x| x <= now) {
                r.handle_timeout(now);
            }
        }
        assert!(iacks > 0, "the gap was reported");
    }
}
