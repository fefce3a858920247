//! The TACK receiver: reassembly, TACKs at the TACK frequency, IACKs on events, and the
//! receiver-side estimates (delivery rate, min-OWD packet) that TACKs carry.
//!
//! - **TACK** when the TACK interval ([`TackClock`]) has passed since the previous one
//!   and new data arrived; before any rate estimate, every L packets (or after
//!   `initial_delay` for a lone packet).
//! - **IACK (loss)** at once when a packet number skips ahead: it reports the largest
//!   and second-largest PNs received, i.e. the new gap.
//! - **IACK (window)** when the window drops below a quarter of the buffer (nearly full)
//!   and when it climbs back above half after that (a large release).
//! - A new RTT_min from the sender (carried in data packets: the paper's sender-side
//!   IACK) re-times the pending TACK.
//!
//! A TACK lists the PN gaps above the sender's floor, smallest first ("TACK-rich": up to
//! [`MAX_GAPS`]; "TACK-poor": only the first, Q = 1), and only gaps an IACK has reported.

use super::config::TackConfig;
use super::frequency::TackClock;
use super::owd::OwdTracker;
use super::packet::{AckKind, Gap, TackAck, TackData, MAX_GAPS};
use crate::error::Violation;
use crate::ranges::Ranges;
use tcplab_core::{Dur, Time};

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
    /// PNs up to here had their gaps reported by an IACK.
    iack_upto: u64,
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
            rtt_min: None,
            last_tack: None,
            pending: 0,
            pending_since: Time::ZERO,
            tack_seq: 0,
            window_low: false,
            due: None,
            stats: TackReceiverStats::default(),
        }
    }

    pub fn flow(&self) -> u32 {
        self.flow
    }
    pub fn stats(&self) -> &TackReceiverStats {
        &self.stats
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
                // A gap: the packets in between are lost (or late); tell the sender now.
                self.largest = Some(d.pn);
                self.largest_at = now;
                self.iack_upto = d.pn;
                self.ack_now(AckKind::IackLoss);
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
        if self.tack_at().is_some_and(|t| t <= now) {
            self.ack_now(AckKind::Tack);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if self.due.is_some() {
            return None;
        }
        self.tack_at()
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
            // [second largest, largest]: the PNs received just below the new gap. With
            // nothing received above the floor, the gap starts at the floor itself (the
            // floor's own packet is missing too: reporting it received would make the
            // sender drop its segment for good).
            let below = self.pns.iter().rev().nth(1).map(|r| r.1 - 1);
            let (base, gap_start) = match below {
                Some(second) => (second, 1),
                None => (self.floor.min(largest), 0),
            };
            a.base = base;
            a.covered = (largest - base + 1).min(u32::MAX as u64) as u32;
            if largest > base + gap_start {
                let full = largest - base - gap_start;
                let len = full.min(u16::MAX as u64);
                a.gaps[0] = Gap {
                    start: gap_start as u16,
                    len: len as u16,
                };
                a.n_gaps = 1;
                if full > len {
                    // A longer gap is reported in part: the rest is not covered.
                    a.covered = (gap_start + len) as u32;
                }
            }
            // An IACK does not end the TACK interval.
            return Some(a);
        }
        if kind == AckKind::IackWindow {
            self.stats.iacks_window += 1;
        } else {
            self.stats.tacks_sent += 1;
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
