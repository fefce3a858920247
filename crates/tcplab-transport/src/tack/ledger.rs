//! The sender's record of transmissions (by packet number) and segments (by index).
//!
//! Each segment remembers only its latest packet number, as the paper recommends: an ACK
//! or loss report about an older transmission of a retransmitted segment changes nothing.
//! A segment is queued for retransmission when its latest transmission is reported
//! lost, and retransmitted at most once per RTT. Records below the floor — the first PN
//! still in flight — are dropped; the floor rides in every data packet so the receiver
//! stops reporting below it. Both rings grow to the largest window once and are reused.

use std::collections::VecDeque;
use tcplab_core::{Dur, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PnState {
    InFlight,
    Acked,
    Lost,
}

/// One transmission.
#[derive(Clone, Copy, Debug)]
pub(super) struct PnRec {
    pub seg: u64,
    pub len: u32,
    pub sent: Time,
    /// Bytes delivered when it was sent, and whether the sender was app-limited then
    /// (for BBR's rounds and rate samples).
    pub delivered: u64,
    pub app_limited: bool,
    pub state: PnState,
}

/// One segment of the byte stream.
#[derive(Clone, Copy, Debug)]
pub(super) struct SegRec {
    pub len: u32,
    pub last_pn: u64,
    pub last_tx: Time,
    /// Transmissions so far.
    pub tx: u32,
    pub acked: bool,
    pub queued: bool,
}

/// See the module docs.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    pn_base: u64,
    pns: VecDeque<PnRec>,
    seg_base: u64,
    segs: VecDeque<SegRec>,
    /// Bytes of transmissions in flight.
    pub in_flight: u64,
    /// Segments waiting for a retransmission, in the order their losses were reported.
    retx: VecDeque<u64>,
}

impl Ledger {
    /// The first PN still in flight (or the next to be sent).
    pub fn floor(&self) -> u64 {
        self.pn_base
    }

    pub fn pn(&self, pn: u64) -> Option<&PnRec> {
        pn.checked_sub(self.pn_base)
            .and_then(|i| self.pns.get(i as usize))
    }

    pub fn seg(&self, seg: u64) -> Option<&SegRec> {
        seg.checked_sub(self.seg_base)
            .and_then(|i| self.segs.get(i as usize))
    }

    /// Records transmission `pn` of segment `seg` (new segments come in order).
    pub fn on_send(
        &mut self,
        pn: u64,
        seg: u64,
        len: u32,
        now: Time,
        delivered: u64,
        app_limited: bool,
    ) {
        debug_assert_eq!(pn, self.pn_base + self.pns.len() as u64);
        if self.pns.is_empty() {
            self.pn_base = pn;
        }
        self.pns.push_back(PnRec {
            seg,
            len,
            sent: now,
            delivered,
            app_limited,
            state: PnState::InFlight,
        });
        self.in_flight += len as u64;
        let rec = SegRec {
            len,
            last_pn: pn,
            last_tx: now,
            tx: 1,
            acked: false,
            queued: false,
        };
        match seg.checked_sub(self.seg_base) {
            Some(i) if (i as usize) < self.segs.len() => {
                let s = &mut self.segs[i as usize];
                s.last_pn = pn;
                s.last_tx = now;
                s.tx += 1;
                s.queued = false;
            }
            _ => {
                if self.segs.is_empty() {
                    self.seg_base = seg;
                }
                debug_assert_eq!(seg, self.seg_base + self.segs.len() as u64);
                self.segs.push_back(rec);
            }
        }
    }

    /// Marks segment `seg` delivered; returns its bytes if that is news.
    fn deliver_seg(&mut self, seg: u64) -> u64 {
        match seg
            .checked_sub(self.seg_base)
            .and_then(|i| self.segs.get_mut(i as usize))
        {
            Some(s) if !s.acked => {
                s.acked = true;
                s.len as u64
            }
            _ => 0,
        }
    }

    /// PN `pn` was received; returns the bytes newly delivered.
    pub fn ack(&mut self, pn: u64) -> u64 {
        let Some(r) = pn
            .checked_sub(self.pn_base)
            .and_then(|i| self.pns.get_mut(i as usize))
        else {
            return 0;
        };
        if r.state == PnState::InFlight {
            self.in_flight -= r.len as u64;
        }
        if r.state == PnState::Acked {
            return 0;
        }
        r.state = PnState::Acked;
        let seg = r.seg;
        self.deliver_seg(seg)
    }

    /// PN `pn` was reported missing; returns whether it was in flight (a new loss).
    pub fn lose(&mut self, pn: u64) -> bool {
        let Some(r) = pn
            .checked_sub(self.pn_base)
            .and_then(|i| self.pns.get_mut(i as usize))
        else {
            return false;
        };
        if r.state != PnState::InFlight {
            return false;
        }
        r.state = PnState::Lost;
        self.in_flight -= r.len as u64;
        let seg = r.seg;
        if let Some(s) = seg
            .checked_sub(self.seg_base)
            .and_then(|i| self.segs.get_mut(i as usize))
        {
            // Only the latest transmission of an undelivered segment calls for another.
            if !s.acked && s.last_pn == pn && !s.queued {
                s.queued = true;
                self.retx.push_back(seg);
            }
        }
        true
    }

    /// Every byte below `end` was delivered in order: those segments are done, and their
    /// latest transmissions are no longer in flight. Returns the bytes newly delivered.
    pub fn cumulative(&mut self, end: u64, mss: u32) -> u64 {
        let mut new = 0;
        while let Some(s) = self.segs.front() {
            let seg_end = self.seg_base * mss as u64 + s.len as u64;
            if seg_end > end {
                break;
            }
            let (last_pn, acked, len) = (s.last_pn, s.acked, s.len);
            if !acked {
                new += len as u64;
            }
            if let Some(r) = last_pn
                .checked_sub(self.pn_base)
                .and_then(|i| self.pns.get_mut(i as usize))
            {
                if r.state == PnState::InFlight {
                    self.in_flight -= r.len as u64;
                    r.state = PnState::Acked;
                }
            }
            self.segs.pop_front();
            self.seg_base += 1;
        }
        new
    }

    /// Marks every transmission in flight that left at or before `before` as lost (a
    /// retransmission timeout); returns how many.
    pub fn lose_sent_before(&mut self, before: Time) -> u64 {
        let mut n = 0;
        for i in 0..self.pns.len() {
            let r = self.pns[i];
            if r.state == PnState::InFlight
                && r.sent <= before
                && self.lose(self.pn_base + i as u64)
            {
                n += 1;
            }
        }
        n
    }

    /// Drops records below the first transmission still in flight.
    pub fn trim(&mut self) {
        while let Some(r) = self.pns.front() {
            if r.state == PnState::InFlight {
                break;
            }
            self.pns.pop_front();
            self.pn_base += 1;
        }
    }

    /// The next segment to retransmit, if one may go at `now` (a first retransmission at
    /// once, later ones at most once per `gap` after the previous); otherwise when one may.
    pub fn next_retx(&mut self, now: Time, gap: Dur) -> Result<Option<u64>, Time> {
        while let Some(&seg) = self.retx.front() {
            match self.seg(seg) {
                Some(s) if !s.acked && s.queued => {
                    let at = if s.tx > 1 { s.last_tx + gap } else { s.last_tx };
                    return if at <= now { Ok(Some(seg)) } else { Err(at) };
                }
                _ => {
                    self.retx.pop_front();
                }
            }
        }
        Ok(None)
    }

    /// Takes the segment `next_retx` offered.
    pub fn take_retx(&mut self) -> Option<u64> {
        self.retx.pop_front()
    }

    /// Nothing in flight and nothing to resend.
    pub fn idle(&self) -> bool {
        self.in_flight == 0 && self.retx.is_empty()
    }
}
