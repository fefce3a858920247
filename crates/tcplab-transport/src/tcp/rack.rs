//! RACK-TLP loss detection (RFC 8985) for SACK recovery.
//!
//! RACK marks a segment lost once a segment *sent* sufficiently later was delivered:
//! sent more than `RACK.rtt + reo_wnd` before now, and before the most recently sent
//! delivered segment. Because it compares transmission times, not sequence numbers, it
//! detects lost retransmissions too, which RFC 6675's IsLost cannot.
//! TLP sends one probe after a probe timeout (about two SRTTs) of silence so that a
//! tail loss produces a SACK for RACK instead of waiting for the RTO.
//!
//! Transmissions are kept in a log in transmission order (the RFC's "xmit_ts
//! ordering"). The loss check walks it from the oldest entry, dropping entries that are
//! no longer outstanding, and stops at the first segment sent after RACK.xmit_ts: the
//! walk touches only segments that are already stale or waiting out the reordering
//! window, not the whole window. The log's ring buffer is reused (no allocation per ACK
//! in steady state).

use crate::records::{Records, SentRecord};
use std::collections::VecDeque;
use tcplab_core::{Dur, Time};

/// RFC 8985 section 7.2 WCDelAckT: worst-case delayed-ACK timer, added to the PTO when
/// only one segment is in flight.
pub const WC_DEL_ACK: Dur = Dur::from_millis(200);

/// One transmission of segment `idx` at `at`.
#[derive(Clone, Copy, Debug)]
struct Sent {
    idx: u64,
    at: Time,
}

/// RACK and TLP state (RFC 8985 sections 6 and 7).
#[derive(Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered so far.
    xmit_ts: Time,
    end_seq: u64,
    /// RACK.rtt: RTT of that segment's delivery.
    rtt: Dur,
    have: bool,
    log: VecDeque<Sent>,
    /// The reordering timer (RFC 8985 section 6.2 step 5).
    pub reo_timer: Option<Time>,
    /// The probe timeout (section 7.2).
    pub pto_at: Option<Time>,
    /// TLP.end_seq: snd_max after the outstanding probe, if any.
    pub tlp_end: Option<u64>,
    /// TLP.is_retrans.
    pub tlp_retrans: bool,
    /// The PTO fired and the probe has not left yet.
    pub probe_due: bool,
    /// Latest transmission time of a retransmission found lost by the last
    /// `detect_loss` (RFC 5681: a lost retransmission is a second congestion signal).
    pub lost_rtx_sent: Option<Time>,
    /// No segment below this index is lost and awaiting retransmission (NextSeg cursor).
    pub rxt_from: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: Time::ZERO,
            end_seq: 0,
            rtt: Dur::ZERO,
            have: false,
            log: VecDeque::with_capacity(1024),
            reo_timer: None,
            pto_at: None,
            tlp_end: None,
            tlp_retrans: false,
            probe_due: false,
            lost_rtx_sent: None,
            rxt_from: 0,
        }
    }
}

/// RACK_sent_after: `a` was sent after `b` (ties broken by end sequence).
fn sent_after(a: (Time, u64), b: (Time, u64)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 > b.1)
}

impl Rack {
    /// Segment `idx` was (re)transmitted at `now`.
    pub fn on_sent(&mut self, idx: u64, now: Time) {
        self.log.push_back(Sent { idx, at: now });
    }

    /// RACK_update (section 6.2 step 2) for one segment newly delivered, cumulatively or
    /// by SACK. Without timestamps, a retransmitted segment delivered sooner than the
    /// minimum RTT after its retransmission was most likely the original's delivery and
    /// is ignored.
    pub fn on_delivered(
        &mut self,
        now: Time,
        idx: u64,
        rec: &SentRecord,
        mss: u32,
        min_rtt: Option<Dur>,
    ) {
        let rtt = now - rec.sent_time;
        if rec.tx_count > 1 && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        let end = idx * mss as u64 + rec.len as u64;
        if !self.have || sent_after((rec.sent_time, end), (self.xmit_ts, self.end_seq)) {
            self.have = true;
            self.xmit_ts = rec.sent_time;
            self.end_seq = end;
            self.rtt = rtt;
        }
    }

    /// RACK_detect_loss_and_arm_timer (section 6.2 step 5): marks outstanding segments
    /// sent more than RACK.rtt + `reo_wnd` ago and before RACK.xmit_ts as lost, and arms
    /// the reordering timer for those still inside the window. Adds the bytes it marks to
    /// `lost_bytes` and returns the lowest index newly marked lost.
    pub fn detect_loss(
        &mut self,
        now: Time,
        recs: &mut Records,
        mss: u32,
        reo_wnd: Dur,
        lost_bytes: &mut u64,
    ) -> Option<u64> {
        self.reo_timer = None;
        self.lost_rtx_sent = None;
        if !self.have {
            return None;
        }
        let mss = mss as u64;
        let mut lowest: Option<u64> = None;
        let mut wait = Dur::ZERO;
        let mut i = 0;
        while i < self.log.len() {
            let e = self.log[i];
            let live = recs
                .get_mut(e.idx)
                .filter(|r| r.sent_time == e.at && !r.sacked && !r.lost);
            let Some(rec) = live else {
                // Delivered, released, resent since or already lost: no longer a
                // candidate. Entries are only dropped from the front (the log stays in
                // transmission order); stale ones behind a waiting entry go later.
                if i == 0 {
                    self.log.pop_front();
                } else {
                    i += 1;
                }
                continue;
            };
            let end = e.idx * mss + rec.len as u64;
            if !sent_after((self.xmit_ts, self.end_seq), (e.at, end)) {
                break; // every later entry was sent later still
            }
            let deadline = e.at + self.rtt + reo_wnd;
            if deadline <= now {
                rec.lost = true;
                *lost_bytes += rec.len as u64;
                if rec.tx_count > 1 {
                    self.lost_rtx_sent = Some(self.lost_rtx_sent.map_or(e.at, |t| t.max(e.at)));
                }
                self.rxt_from = self.rxt_from.min(e.idx);
                lowest = Some(lowest.map_or(e.idx, |l| l.min(e.idx)));
                if i == 0 {
                    self.log.pop_front();
                } else {
                    i += 1;
                }
            } else {
                // RFC 8985: wait for the longest remaining time among them.
                wait = wait.max(deadline - now);
                i += 1;
            }
        }
        if wait > Dur::ZERO {
            self.reo_timer = Some(now + wait);
        }
        lowest
    }

    /// Forgets the timers and the probe (on a timeout or on entering recovery).
    pub fn reset_tlp(&mut self) {
        self.pto_at = None;
        self.tlp_end = None;
        self.probe_due = false;
    }

    /// Everything is acknowledged: no entry is a candidate any more.
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    /// Entries in the transmission log (for tests of its bound).
    pub fn log_len(&self) -> usize {
        self.log.len()
    }
}
