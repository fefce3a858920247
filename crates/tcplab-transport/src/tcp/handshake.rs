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

use crate::tcp::config::SenderConfig;
use crate::tcp::segment::Segment;
use crate::tcp::send_state::SendState;
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

/// The handshake completed after `syns` SYNs (see [`Handshake::on_segment`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Opened {
    syns: u32,
}

impl Handshake {
    /// At start: with a handshake configured, the first thing to send is a SYN.
    pub fn open(cfg: &SenderConfig) -> Handshake {
        if !cfg.handshake {
            return Handshake::Done;
        }
        Handshake::SynDue {
            syns: 0,
            timeout: cfg.syn_rto.unwrap_or(cfg.initial_rto),
        }
    }

    /// Established: data may flow.
    #[inline]
    pub fn is_done(&self) -> bool {
        matches!(self, Handshake::Done)
    }

    /// The SYN of flow `s`, if one is due (outside window and pacing).
    #[cold]
    #[inline(never)]
    pub fn poll_syn(&mut self, s: &mut SendState, now: Time) -> Option<Segment> {
        let Handshake::SynDue { syns, timeout } = *self else {
            return None;
        };
        *self = Handshake::SynSent {
            syns: syns + 1,
            sent: now,
            at: now + timeout,
            timeout,
        };
        if syns > 0 {
            s.stats.syn_retransmits += 1;
        }
        Some(Segment {
            flow: s.flow,
            syn: true,
            retransmission: syns > 0,
            // RFC 3168 section 6.1.1: an ECN-setup SYN has ECE and CWR set.
            ece: s.cfg.ecn,
            cwr: s.cfg.ecn,
            ..Segment::default()
        })
    }

    /// When the SYN timer expires.
    #[cold]
    #[inline(never)]
    pub fn timeout(&self) -> Option<Time> {
        match *self {
            Handshake::SynSent { at, .. } => Some(at),
            _ => None,
        }
    }

    /// The SYN timer: resend with the timeout doubled (RFC 6298 section 5.5), up to
    /// `max_rto`.
    #[cold]
    #[inline(never)]
    pub fn on_timeout(&mut self, now: Time, max_rto: Dur) {
        if let Handshake::SynSent {
            syns, at, timeout, ..
        } = *self
        {
            if at <= now {
                *self = Handshake::SynDue {
                    syns,
                    timeout: (timeout * 2).min(max_rto),
                };
            }
        }
    }

    /// A segment arrived before the connection is established: a SYN-ACK completes it,
    /// giving `s` the peer's window and the first RTT sample (or, after a retransmitted
    /// SYN, the RTO of section 5.7). Then the data starts, and after the controller's
    /// `init` the initial window is [`Opened::initial_window`]'s.
    #[cold]
    #[inline(never)]
    pub fn on_segment(&mut self, s: &mut SendState, now: Time, seg: &Segment) -> Option<Opened> {
        let Handshake::SynSent { syns, sent, .. } = *self else {
            return None;
        };
        if !seg.syn {
            return None;
        }
        *self = Handshake::Done;
        s.rwnd = seg.wnd;
        // ECN is used if the SYN-ACK agrees (ECE set).
        s.set_ecn(s.cfg.ecn && seg.ece);
        s.stats.established_at = Some(now);
        if syns == 1 {
            let r = now - sent;
            s.rtt.on_sample(r, s.snd_una, s.snd_max);
            s.stats.note_rtt(r);
        } else {
            s.rtt.reinit_without_sample(RTO_AFTER_SYN_TIMEOUT);
        }
        Some(Opened { syns })
    }
}

impl Opened {
    /// RFC 5681 section 3.1: one segment after a lost SYN or SYN-ACK (else the window
    /// the controller set stays).
    pub fn initial_window(self, s: &mut SendState) {
        if self.syns > 1 {
            s.w.cwnd = s.mss as u64;
        }
    }
}
