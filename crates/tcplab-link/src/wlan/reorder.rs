//! The recipient's Block Ack reordering buffer (IEEE 802.11-2020 10.25.6, "HT-immediate
//! Block Ack" receive reordering) with Linux mac80211's release rules.
//!
//! Under a Block Ack agreement an originator sends A-MPDUs and retransmits only the MPDUs
//! the Block ACK reports missing, so MPDUs reach the recipient out of sequence. The
//! recipient holds every MPDU after a gap and hands MSDUs up in sequence order; the
//! transport above never sees the MAC's retransmissions as reordering. A gap closes when:
//! - the missing MPDU arrives (a retransmission), releasing it and every held MPDU that
//!   follows without a gap;
//! - the originator gives up on it (retry limit) and moves the window with a BlockAckReq
//!   whose starting sequence number is the dropped MPDU's + 1 (mac80211 `status.c`:
//!   `ieee80211_set_bar_pending(sta, tid, ssn)` with `ssn = seq + 1`): everything held
//!   before it is released;
//! - the reorder timeout expires: mac80211 (`rx.c`, `HT_RX_REORDER_BUF_TIMEOUT` = HZ/10,
//!   100 ms) releases the first held MPDU after the gap once it has waited that long,
//!   skipping the gap, then whatever follows it in sequence. An MPDU that arrives after
//!   its gap was skipped is older than the window and discarded
//!   (`ieee80211_sn_less(mpdu_seq_num, head_seq_num)` in `ieee80211_sta_manage_reorder_buf`).
//!
//! Sequence numbers here are the model's own 64-bit counters per (originator, recipient):
//! they never wrap, so the 12-bit modular arithmetic of the standard is not needed.

use std::collections::VecDeque;
use tcplab_core::{Dur, Time};

/// One (originator, recipient) agreement's receive window (see the module docs).
#[derive(Debug)]
pub(super) struct Reorder<P> {
    /// The next sequence number to hand up (WinStartR).
    head: u64,
    /// Held MPDUs and their arrival times, indexed by `seq - head` (slot 0, `head`
    /// itself, is empty while anything is held: held MPDUs wait for it).
    held: VecDeque<Option<(P, Time)>>,
    /// How many slots of `held` are filled.
    count: usize,
}

/// What the buffer did with one arriving MPDU.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Handed up, possibly with held MPDUs behind it.
    Released,
    /// Held behind a gap.
    Held,
}

impl<P> Default for Reorder<P> {
    fn default() -> Self {
        Reorder {
            head: 0,
            held: VecDeque::new(),
            count: 0,
        }
    }
}

impl<P> Reorder<P> {
    /// Whether any MPDU waits behind a gap.
    #[inline]
    pub fn holding(&self) -> bool {
        self.count > 0
    }

    /// MPDU `seq` arrived at `at`: hands up what is in sequence through `out`. Returns
    /// the packet back when it is older than the window (to be discarded).
    #[inline]
    pub fn receive(
        &mut self,
        seq: u64,
        pkt: P,
        at: Time,
        out: &mut impl FnMut(P),
    ) -> Result<Verdict, P> {
        if seq < self.head {
            return Err(pkt);
        }
        if seq == self.head && self.count == 0 {
            self.head += 1;
            // Nothing is held, so `held` is empty or holds only empty slots ahead.
            self.held.pop_front();
            out(pkt);
            return Ok(Verdict::Released);
        }
        let i = (seq - self.head) as usize;
        if self.held.len() <= i {
            self.held.resize_with(i + 1, || None);
        }
        if self.held[i].is_none() {
            self.held[i] = Some((pkt, at));
            self.count += 1;
        }
        if i == 0 {
            self.release_in_sequence(out);
            Ok(Verdict::Released)
        } else {
            Ok(Verdict::Held)
        }
    }

    /// A BlockAckReq moved the window to `ssn`: everything held before it is handed up
    /// (in order), then what follows in sequence.
    pub fn move_window(&mut self, ssn: u64, out: &mut impl FnMut(P)) {
        while self.head < ssn {
            if let Some(Some((p, _))) = self.held.pop_front() {
                self.count -= 1;
                out(p);
            }
            self.head += 1;
        }
        self.release_in_sequence(out);
    }

    /// When the first held MPDU's reorder timeout expires.
    pub fn deadline(&self, timeout: Dur) -> Option<Time> {
        if self.count == 0 {
            return None;
        }
        self.held
            .iter()
            .flatten()
            .next()
            .map(|&(_, at)| at + timeout)
    }

    /// The reorder timer fired at `now`: while the first held MPDU has waited `timeout`,
    /// the gap before it is skipped and it is handed up with what follows in sequence.
    /// Returns the sequence numbers skipped.
    pub fn expire(&mut self, now: Time, timeout: Dur, out: &mut impl FnMut(P)) -> u64 {
        let mut skipped = 0;
        while let Some(d) = self.deadline(timeout) {
            if d > now {
                break;
            }
            while matches!(self.held.front(), Some(None)) {
                self.held.pop_front();
                self.head += 1;
                skipped += 1;
            }
            self.release_in_sequence(out);
        }
        skipped
    }

    fn release_in_sequence(&mut self, out: &mut impl FnMut(P)) {
        while let Some(Some(_)) = self.held.front() {
            let (p, _) = self.held.pop_front().flatten().expect("checked");
            self.count -= 1;
            self.head += 1;
            out(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn holds_until_the_gap_closes() {
        let mut r = Reorder::default();
        let mut got = vec![];
        let mut out = |p: u32| got.push(p);
        assert_eq!(r.receive(0, 0, t(0), &mut out), Ok(Verdict::Released));
        assert_eq!(r.receive(2, 2, t(0), &mut out), Ok(Verdict::Held));
        assert_eq!(r.receive(3, 3, t(0), &mut out), Ok(Verdict::Held));
        assert_eq!(r.deadline(Dur::from_millis(100)), Some(t(100)));
        assert_eq!(r.receive(1, 1, t(1), &mut out), Ok(Verdict::Released));
        assert!(!r.holding());
        assert_eq!(r.receive(4, 4, t(2), &mut out), Ok(Verdict::Released));
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_block_ack_request_skips_the_gap() {
        let mut r = Reorder::default();
        let mut got = vec![];
        let mut out = |p: u32| got.push(p);
        r.receive(1, 1, t(0), &mut out).unwrap();
        r.receive(3, 3, t(0), &mut out).unwrap();
        r.move_window(1, &mut out); // seq 0 dropped: 1 goes up, 3 still waits for 2
        assert!(r.holding());
        r.move_window(3, &mut out);
        assert!(!r.holding());
        assert_eq!(r.receive(2, 2, t(1), &mut out), Err(2));
        assert_eq!(got, vec![1, 3]);
    }

    #[test]
    fn the_timeout_skips_the_gap_and_late_frames_are_discarded() {
        let mut r = Reorder::default();
        let mut got = vec![];
        let mut out = |p: u32| got.push(p);
        r.receive(1, 1, t(0), &mut out).unwrap();
        r.receive(4, 4, t(50), &mut out).unwrap();
        let to = Dur::from_millis(100);
        assert_eq!(r.expire(t(99), to, &mut out), 0);
        assert_eq!(r.expire(t(100), to, &mut out), 1); // 0 skipped, 1 released
        assert_eq!(r.deadline(to), Some(t(150)));
        assert_eq!(r.expire(t(150), to, &mut out), 2);
        assert_eq!(r.receive(0, 0, t(151), &mut out), Err(0));
        assert_eq!(got, vec![1, 4]);
    }
}
