//! Transmission: the in-order send pass (new data, or go-back-N after a timeout) and the
//! bookkeeping of every segment that leaves. What may leave when (retransmission first,
//! probe, send-timer rounds, pacing, window) is decided in `Sender::poll_transmit`.

use crate::cc::{Capabilities, CongestionControl};
use crate::records::{FarTable, SendTimes, SentRecord};
use crate::tcp::loss_recovery::LossRecovery;
use crate::tcp::segment::{IpEcn, Segment, Timestamps};
use crate::tcp::send_state::SendState;
use crate::tcp::sender::Sender;
use crate::tcp::timestamps::tsval;
use tcplab_core::Time;

impl SendState {
    /// The next segment in sequence order, if the window allows it: from snd_nxt, which
    /// after a timeout walks back over the outstanding data. Go-back-N skips segments the
    /// receiver SACKed (and with `skip_unlost`, those not deemed lost: RACK may send the
    /// pass back to a lost retransmission).
    pub fn next_in_order(&mut self, skip_unlost: bool) -> Option<u64> {
        let mss = self.mss as u64;
        while self.snd_nxt < self.snd_max {
            match self.recs.get(self.snd_nxt / mss) {
                Some(r) if r.sacked() || (skip_unlost && !r.lost()) => {
                    self.snd_nxt = (self.snd_nxt / mss + 1) * mss
                }
                _ => break,
            }
        }
        if self.snd_nxt >= self.app_end {
            if self.rate_on
                && self.snd_nxt == self.snd_max
                && self.w.cwnd > self.snd_nxt - self.snd_una
            {
                self.rate.on_app_limited(self.snd_nxt - self.snd_una);
            }
            return None;
        }
        // snd_nxt is a segment boundary (segments start at multiples of the MSS, ACKs
        // end segments, the pass above steps by whole segments), so the segment there is
        // an MSS or the rest of the data: its index (a division) is found only when the
        // window lets it go, not on the about half of the polls that find the window full.
        debug_assert_eq!(self.snd_nxt % mss, 0, "snd_nxt inside a segment");
        let len = (self.app_end - self.snd_nxt).min(mss);
        // The peer's window and our own send buffer bound what is outstanding.
        let limit = self.rwnd.min(self.snd_buf);
        if self.in_flight() + len > self.w.cwnd || self.snd_nxt - self.snd_una + len > limit {
            return None;
        }
        Some(self.snd_nxt / mss)
    }

    /// Records the (re)transmission of segment `idx` at `now` and builds it. `idle`:
    /// nothing was in flight before it (a new delivery-rate interval starts).
    #[cfg(test)]
    pub fn record_send(&mut self, now: Time, idx: u64, idle: bool) -> Segment {
        let sent = self.record_sent(now, idx, idle);
        self.segment(now, sent)
    }

    /// The bookkeeping of [`record_send`](Self::record_send); the segment is built from
    /// the result by [`segment`](Self::segment), in the caller's return slot (a segment
    /// returned by value from here would be copied on its way into a packet).
    #[inline(always)]
    pub fn record_sent(&mut self, now: Time, idx: u64, idle: bool) -> Sent {
        let mss = self.mss as u64;
        let seq = idx * mss;
        let len = self.seg_len(idx);
        let retransmission = idx < self.recs.end();
        let base = self.recs.base();
        if retransmission {
            let (rec, far) = (
                self.recs.get_mut(idx).expect("record exists"),
                &mut self.far,
            );
            self.sb.on_resent(idx, rec, base);
            rec.len = len;
            rec.tx_count = rec.tx_count.saturating_add(1);
            rec.set_counted(false);
            let orig_sent_time = rec.orig_sent_time(far);
            let t = if self.rate_on {
                self.rate.on_send(now, idle, rec)
            } else {
                SendTimes::at(now)
            };
            rec.store(
                far,
                now,
                SendTimes {
                    orig_sent_time,
                    ..t
                },
            );
        } else {
            // A new segment's record is built whole and appended (no lookup after the
            // push); the same fields as a resend of a blank record would give.
            let mut rec = SentRecord::new(len, now);
            // (`Scoreboard::on_resent` has nothing to do for it: a new record is not
            // lost, and the IsLost passes never mark beyond the last record.)
            debug_assert!(idx >= self.sb.marked_to());
            if self.rate_on {
                let t = self.rate.on_send(now, idle, &mut rec);
                rec = SentRecord::first(len, now, t, rec.app_limited(), &mut self.far);
            }
            // Without a rate sampler `rec` is what `first` gives for `SendTimes::at(now)`:
            // every offset zero, nothing delivered, not app-limited. Compared by value: a
            // debug build must not allocate per packet either (tests/no_alloc runs in one).
            debug_assert!(
                self.rate_on
                    || rec
                        == SentRecord::first(
                            len,
                            now,
                            SendTimes::at(now),
                            false,
                            &mut FarTable::default()
                        )
            );
            self.recs.push(idx, rec);
        }
        if seq == self.snd_nxt {
            self.snd_nxt += len as u64;
        }
        self.snd_max = self.snd_max.max(seq + len as u64);
        // (The segments and bytes sent follow from the records and snd_max, see
        // `SendState::sent`.)
        let s = &mut self.stats;
        if retransmission {
            s.retransmitted_segments += 1;
            s.retransmitted_bytes += len as u64;
            self.undo.on_retransmit(now);
        }
        self.arm_rto(now);
        let (ip_ecn, cwr) = self.ecn_marks(retransmission);
        Sent {
            seq,
            len,
            retransmission,
            ip_ecn,
            cwr,
        }
    }

    /// The segment [`record_sent`](Self::record_sent) recorded at `now`.
    #[inline(always)]
    pub fn segment(&self, now: Time, sent: Sent) -> Segment {
        let Sent {
            seq,
            len,
            retransmission,
            ip_ecn,
            cwr,
        } = sent;
        Segment {
            flow: self.flow,
            seq,
            len,
            fin: seq + len as u64 == self.app_end,
            retransmission,
            ts: self.timestamps.then(|| Timestamps {
                val: tsval(now),
                ecr: self.peer_ts,
            }),
            ip_ecn,
            cwr,
            ..Segment::default()
        }
    }
}

/// A segment just recorded as sent (what building it needs besides the sender's state).
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub seq: u64,
    pub len: u32,
    pub retransmission: bool,
    /// ECT(0) on new data with ECN on (`ecn.rs`).
    pub ip_ecn: IpEcn,
    pub cwr: bool,
}

impl Sender {
    /// Emits segment `idx` (new or retransmitted): the records, the pacing slot, the
    /// controller and the recovery hear of it. The caller builds the segment
    /// (`s.segment(now, sent)`) where it returns it.
    #[inline(always)]
    pub(super) fn send(&mut self, now: Time, idx: u64, idle: bool) -> Sent {
        let s = &mut self.s;
        let sent = s.record_sent(now, idx, idle);
        // PRR's count is read only with PRR configured (`prr_active`).
        if s.uses_prr() && (s.in_recovery || s.in_cwr()) {
            s.prr.on_sent(sent.len as u64);
        }
        // The wire length only matters to a paced sender.
        if self.can.has(Capabilities::PACES_OR_TIMES) {
            if let rate @ Some(_) = s.cc.pacing_rate() {
                let wire_len = s.segment(now, sent).wire_len();
                self.pacer.on_sent(now, wire_len as u64, rate);
            }
        }
        if self.can.has(Capabilities::HEARS_SENDS) {
            s.cc.on_sent(now, sent.len, s.snd_nxt - s.snd_una);
        }
        self.recovery.on_sent(s, now, idx, sent.retransmission);
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};
    use crate::tcp::config::SenderConfig;

    fn state() -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            total_bytes: Some(6000),
            initial_cwnd: 2,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
        s.started = true;
        s
    }

    /// New data leaves while the window allows; the last segment carries FIN.
    #[test]
    fn new_data_is_window_limited() {
        let mut s = state();
        assert_eq!(s.next_in_order(false), Some(0));
        let a = s.record_send(Time(0), 0, true);
        assert_eq!((a.seq, a.len, a.retransmission), (0, 1000, false));
        assert_eq!(s.next_in_order(false), Some(1));
        s.record_send(Time(0), 1, false);
        assert_eq!(s.next_in_order(false), None, "cwnd 2 segments");
        assert_eq!(s.sent(), (2, 2000));
        assert!(s.rto_at.is_some());
        s.w.cwnd = 10_000;
        for i in 2..6 {
            assert_eq!(s.next_in_order(false), Some(i));
            let seg = s.record_send(Time(1), i, false);
            assert_eq!(seg.fin, i == 5);
        }
        assert_eq!(s.next_in_order(false), None, "all data sent");
    }

    /// After a timeout the pass resends from snd_una, skips SACKed segments and counts
    /// only what it resent as in flight.
    #[test]
    fn go_back_n_skips_sacked_segments() {
        let mut s = state();
        s.w.cwnd = 10_000;
        for i in 0..6 {
            s.record_send(Time(0), i, i == 0);
        }
        s.recs.get_mut(1).unwrap().set_sacked(true);
        s.recs.get_mut(2).unwrap().set_sacked(true);
        s.sb.sacked_bytes = 2000;
        s.go_back(0);
        s.w.cwnd = 2000;
        assert_eq!(s.next_in_order(false), Some(0));
        let seg = s.record_send(Time(5), 0, true);
        assert!(seg.retransmission);
        assert_eq!(s.next_in_order(false), Some(3), "1 and 2 skipped");
        assert_eq!(s.in_flight(), 1000);
        s.record_send(Time(5), 3, false);
        assert_eq!(s.next_in_order(false), None, "two resent: cwnd full");
    }
}
