//! The three-way handshake at the sender: SYN, SYN-ACK, then data (the first data
//! segment carries the third ACK). The SYN timer starts at the initial RTO (RFC 6298
//! section 2.1: 1 s) and doubles on each expiry (section 5.5) up to the maximum RTO. Once
//! established:
//! - a SYN answered without retransmission gives the first RTT sample (Karn);
//! - after a retransmitted SYN the initial window is one segment (RFC 5681 section 3.1)
//!   and, without an RTT sample, the RTO starts at 3 s (RFC 6298 section 5.7).
//!
//! So a lost SYN costs a real stack's price: 1 s (then 2 s, 4 s, ...) before the data
//! starts, and a slow start from one segment after.

use crate::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::sender::Sender;
use tcplab_core::{Dur, Time};

/// RFC 6298 section 5.7: the RTO once data transmission begins after a SYN timeout.
pub const RTO_AFTER_SYN_TIMEOUT: Dur = Dur::from_secs(3);

/// Where the handshake is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Handshake {
    /// Established (or configured without a handshake).
    #[default]
    Done,
    /// A SYN is due now.
    SynDue { syns: u32, timeout: Dur },
    /// The last SYN was sent at `sent`; it is resent at `at`.
    SynSent {
        syns: u32,
        sent: Time,
        at: Time,
        timeout: Dur,
    },
}

impl Sender {
    /// At start: with a handshake configured, the first thing to send is a SYN.
    pub(super) fn open(&mut self) -> bool {
        if !self.s.cfg.handshake {
            return true;
        }
        self.hs = Handshake::SynDue {
            syns: 0,
            timeout: self.s.cfg.syn_rto.unwrap_or(self.s.cfg.initial_rto),
        };
        false
    }

    #[inline]
    pub(super) fn established(&self) -> bool {
        matches!(self.hs, Handshake::Done)
    }

    /// The SYN, if one is due (outside window and pacing).
    #[cold]
    #[inline(never)]
    pub(super) fn poll_syn(&mut self, now: Time) -> Option<Segment> {
        let Handshake::SynDue { syns, timeout } = self.hs else {
            return None;
        };
        self.hs = Handshake::SynSent {
            syns: syns + 1,
            sent: now,
            at: now + timeout,
            timeout,
        };
        if syns > 0 {
            self.s.stats.syn_retransmits += 1;
        }
        Some(Segment {
            flow: self.s.flow,
            syn: true,
            retransmission: syns > 0,
            ..Segment::default()
        })
    }

    /// When the SYN timer expires.
    #[cold]
    #[inline(never)]
    pub(super) fn syn_timeout(&self) -> Option<Time> {
        match self.hs {
            Handshake::SynSent { at, .. } => Some(at),
            _ => None,
        }
    }

    /// The SYN timer: resend with the timeout doubled (RFC 6298 section 5.5).
    #[cold]
    #[inline(never)]
    pub(super) fn on_syn_timeout(&mut self, now: Time) {
        if let Handshake::SynSent {
            syns, at, timeout, ..
        } = self.hs
        {
            if at <= now {
                self.hs = Handshake::SynDue {
                    syns,
                    timeout: (timeout * 2).min(self.s.cfg.max_rto),
                };
            }
        }
    }

    /// A segment arrived before the connection is established: a SYN-ACK completes it.
    #[cold]
    #[inline(never)]
    pub(super) fn on_handshake_segment(&mut self, now: Time, seg: &Segment) {
        let Handshake::SynSent { syns, sent, .. } = self.hs else {
            return;
        };
        if !seg.syn {
            return;
        }
        self.hs = Handshake::Done;
        self.s.rwnd = seg.wnd;
        let s = &mut self.s;
        s.stats.established_at = Some(now);
        if syns == 1 {
            let r = now - sent;
            s.rtt.on_sample(r);
            s.stats.note_rtt(r);
        } else {
            s.rtt.reinit_without_sample(RTO_AFTER_SYN_TIMEOUT);
        }
        self.begin_data(now);
        if syns > 1 {
            // RFC 5681 section 3.1: one segment after a lost SYN or SYN-ACK.
            self.s.w.cwnd = self.s.mss as u64;
        }
    }

    /// Data may flow: the pacer and the controller start now.
    pub(super) fn begin_data(&mut self, now: Time) {
        self.pacer.start(now);
        let s = &mut self.s;
        s.cc.init(&mut s.w, now);
    }
}
