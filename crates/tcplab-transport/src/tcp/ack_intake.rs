//! ACK intake: checks an ACK against what was sent, takes its SACK blocks into the
//! scoreboard and its cumulative ACK into released records, with an RTT sample — from the
//! echoed timestamp when timestamps are on (RFC 7323 section 4: every ACK of new data,
//! retransmissions included), else Karn-valid (RFC 6298 section 3) — and delivery-rate
//! accounting for every newly delivered segment.
//! What the ACK means for the window and for recovery is decided by the caller.

use crate::error::Violation;
use crate::records::SentRecord;
use crate::rtt::RtoRule;
use crate::tcp::segment::Segment;
use crate::tcp::send_state::SendState;
use crate::tcp::timestamps::elapsed_since;
use tcplab_core::{Dur, Time};

impl SendState {
    /// An ACK may not acknowledge or SACK data never sent.
    pub fn check_ack(&self, seg: &Segment) -> Result<(), Violation> {
        if seg.ack > self.snd_max {
            return Err(Violation::AckBeyondSent {
                flow: self.flow,
                ack: seg.ack,
                snd_max: self.snd_max,
            });
        }
        if let Some(b) = seg.sack_blocks().iter().find(|b| b.end > self.snd_max) {
            return Err(Violation::SackBeyondSent {
                flow: self.flow,
                end: b.end,
                snd_max: self.snd_max,
            });
        }
        Ok(())
    }

    /// Takes the ACK's SACK blocks into the scoreboard; `on_delivered` sees each newly
    /// SACKed segment. Returns the bytes newly SACKed. (Inlined into its one caller,
    /// `Sender::handle_segment`, as [`Self::take_cumulative_ack`] is.)
    #[inline]
    pub fn take_sack(
        &mut self,
        now: Time,
        seg: &Segment,
        on_delivered: impl FnMut(u64, &SentRecord),
    ) -> u64 {
        if seg.n_sack == 0 {
            return 0;
        }
        self.sb.update_blocks(
            &mut self.recs,
            &self.far,
            &seg.sack,
            seg.n_sack as usize,
            self.mss,
            now,
            self.rate_on.then_some(&mut self.rate),
            on_delivered,
        )
    }

    /// Releases the segments below `ack` (new data acknowledged): each counts as
    /// delivered for rate sampling unless a SACK already did, and `on_delivered` sees those
    /// not SACKed before. Advances snd_una and takes the RTT sample: from `ts_ecr`, the
    /// ACK's TSecr, when timestamps are on, else if Karn allows one. Under
    /// [`RtoRule::Linux`] as Linux's `tcp_clean_rtx_queue` and `tcp_ack_update_rtt` take
    /// it instead: from the oldest segment newly acknowledged (Karn: none if the ACK
    /// covers a retransmission), else from the oldest newly SACKed (`sacked_sent`, the
    /// send times of the oldest and newest segment the ACK newly SACKed), else from the
    /// TSecr. Returns the sample the
    /// controller hears (Linux: the newest segment's, `ca_rtt_us`).
    #[inline]
    pub fn take_cumulative_ack(
        &mut self,
        now: Time,
        ack: u64,
        ts_ecr: Option<u32>,
        sacked_sent: Option<(Time, Time)>,
        mut on_delivered: impl FnMut(u64, &SentRecord),
    ) -> Option<Dur> {
        let mss = self.mss as u64;
        let mut rtt_sample = None;
        let mut first_acked: Option<Time> = None;
        let mut covers_retransmission = false;
        let mut retransmission_acked = false;
        let (rate, sb, rate_on) = (&mut self.rate, &mut self.sb, self.rate_on);
        self.recs
            .release_below(ack.div_ceil(mss), &mut self.far, |idx, rec, far| {
                if rate_on && !rec.counted() {
                    rate.on_delivered(now, rec, far);
                }
                if !rec.sacked() {
                    on_delivered(idx, rec);
                }
                sb.on_released(idx, rec);
                if rec.tx_count > 1 {
                    covers_retransmission = true;
                    retransmission_acked |= !rec.sacked();
                } else if !rec.sacked() {
                    // Karn: only segments sent once give samples; the newest wins (the
                    // oldest is kept for Linux's rule).
                    first_acked.get_or_insert(rec.sent_time());
                    rtt_sample = Some(now - rec.sent_time());
                }
            });
        // Karn (RFC 6298 section 3): an ACK that covers retransmitted data was triggered by
        // the retransmission, so no segment it covers gives a valid sample.
        if covers_retransmission {
            rtt_sample = None;
            if retransmission_acked {
                // ns-3's PRR reads it (`m_isRetransDataAcked`, `prr.rs`).
                self.prr.retx_acked_at = ack;
            }
        }
        let ts_rtt = ts_ecr
            .filter(|_| self.timestamps)
            .map(|ecr| elapsed_since(now, ecr));
        // (oldest, newest) RTT: the estimator's sample and the minimum's.
        let sample = if self.rtt.rule() == RtoRule::Linux {
            // tcp_ack_update_rtt: the ACK's own timing first, then the SACK's, then TSecr.
            match (rtt_sample, first_acked) {
                (Some(newest), Some(first)) => Some((now - first, newest)),
                _ => sacked_sent
                    .map(|(first, last)| (now - first, now - last))
                    .or(ts_rtt.map(|r| (r, r))),
            }
        } else {
            // RFC 7323 section 4.1: with timestamps the echoed TSval dates the
            // transmission the ACK answers, whichever it was; no Karn ambiguity.
            ts_rtt.or(rtt_sample).map(|r| (r, r))
        };
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if self.go_back_n && self.recover.is_none_or(|r| ack >= r) && self.snd_nxt >= self.snd_max {
            self.go_back_n = false;
        }
        let (seq_rtt, ca_rtt) = sample?;
        self.feed_rtt(seq_rtt, ca_rtt);
        Some(ca_rtt)
    }

    /// An ACK that moved nothing cumulatively but SACKed segments sent once (`first` and
    /// `last`: the send times of the oldest and newest of them): Linux takes their RTT
    /// (`sack_rtt_us`, `tcp_ack_update_rtt`) and, when the oldest of them was
    /// sent before the head's last (re)transmission, restarts the retransmission timer
    /// (`tcp_clean_rtx_queue`: FLAG_SET_XMIT_TIMER "if the sack RTT is measured from
    /// data sent" before "the head was last (re)transmitted"), so a retransmitted head
    /// keeps its RTO while older data is still being SACKed. RFC 6298 senders do neither
    /// (their caller keeps no send times to give).
    pub fn take_sack_rtt(&mut self, now: Time, (first, last): (Time, Time)) {
        if self.rtt.rule() != RtoRule::Linux {
            return;
        }
        let (seq_rtt, ca_rtt) = (now - first, now - last);
        self.feed_rtt(seq_rtt, ca_rtt);
        let head = self.recs.get(self.snd_una / self.mss as u64);
        if head.is_some_and(|h| now - h.sent_time() < seq_rtt) {
            self.restart_rto(now);
        }
    }

    fn feed_rtt(&mut self, seq_rtt: Dur, ca_rtt: Dur) {
        if self.rtt.rule() == RtoRule::Linux {
            self.rtt
                .on_linux_sample(seq_rtt, ca_rtt, self.snd_una, self.snd_max);
        } else {
            self.rtt.on_sample(seq_rtt, self.snd_una, self.snd_max);
        }
        self.stats.note_rtt(seq_rtt);
    }

    /// The duplicate-ACK test of RFC 5681 (no new data acknowledged, data outstanding,
    /// a pure ACK).
    pub fn is_dup_ack(&self, seg: &Segment) -> bool {
        seg.ack == self.snd_una && self.snd_una < self.snd_max && seg.is_ack()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};
    use crate::rate::RateSampler;
    use crate::tcp::config::SenderConfig;

    /// Segments 0..4 sent at 0 ms; segment 1 retransmitted at 50 ms.
    fn state() -> SendState {
        let cfg = SenderConfig {
            mss: 1000,
            min_rto: Dur::ZERO,
            ..SenderConfig::default()
        };
        let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
        // NewReno reads no rate samples; these tests follow the delivered count.
        s.rate_on = true;
        for i in 0..4 {
            s.recs.push(i, {
                let mut r = SentRecord::new(1000, Time(if i == 1 { 50_000_000 } else { 0 }));
                r.tx_count = if i == 1 { 2 } else { 1 };
                r
            });
        }
        s.snd_nxt = 4000;
        s.snd_max = 4000;
        s
    }

    /// Karn: an ACK covering only segments sent once gives the newest one's RTT; one that
    /// also covers a retransmission gives none. Released segments leave the scoreboard.
    #[test]
    fn karn_rule_and_release() {
        let mut s = state();
        let mut seen = vec![];
        let r = s.take_cumulative_ack(Time(100_000_000), 1000, None, None, |i, _| seen.push(i));
        assert_eq!(r, Some(Dur::from_millis(100)));
        assert_eq!((s.snd_una, s.stats.rtt_samples), (1000, 1));
        let r = s.take_cumulative_ack(Time(120_000_000), 3000, None, None, |i, _| seen.push(i));
        assert_eq!(r, None, "covers the retransmitted segment 1");
        assert_eq!(seen, vec![0, 1, 2]);
        assert_eq!(s.recs.base(), 3);
        assert_eq!(s.rate.delivered, 3000);
    }

    /// A sender whose controller reads no rate samples (NewReno) never asks its sampler:
    /// sends (with the app-limited check of a window that is not full), a SACK and a
    /// cumulative ACK leave it as made, and the records carry no rate times. The same
    /// steps with the sampler on do move it.
    #[test]
    fn without_a_rate_reader_the_sampler_is_never_asked() {
        for rate_on in [false, true] {
            let cfg = SenderConfig {
                mss: 1000,
                total_bytes: Some(4000),
                initial_cwnd: 10,
                ..SenderConfig::default()
            };
            let mut s = SendState::new(0, cfg, Controller::NewReno(NewReno::default()));
            assert!(!s.rate_on, "NewReno reads no samples");
            s.rate_on = rate_on;
            s.started = true;
            while let Some(i) = s.next_in_order(false) {
                s.record_send(Time(5), i, false);
            }
            assert_eq!(s.next_in_order(false), None, "all sent, window not full");
            let rec = *s.recs.get(2).unwrap();
            // Without a sampler a record's rate times are its own send's (the sampler's
            // delivered time, never set here, is 0).
            assert_eq!(rec.times(&s.far).delivered_time == Time(5), !rate_on);
            let mut ack = Segment::default();
            ack.sack[0] = crate::tcp::segment::SackBlock {
                start: 2000,
                end: 3000,
            };
            ack.n_sack = 1;
            s.take_sack(Time(10), &ack, |_, _| {});
            s.take_cumulative_ack(Time(20), 4000, None, None, |_, _| {});
            let untouched = format!("{:?}", s.rate) == format!("{:?}", RateSampler::default());
            assert_eq!(untouched, !rate_on, "rate_on {rate_on}");
            assert_eq!(s.rate.delivered, if rate_on { 4000 } else { 0 });
        }
    }

    /// SACKed segments count as delivered once: not again when cumulatively acknowledged.
    #[test]
    fn sacked_segments_are_delivered_once() {
        let mut s = state();
        let mut ack = Segment {
            ack: 0,
            ..Segment::default()
        };
        ack.sack[0] = crate::tcp::segment::SackBlock {
            start: 2000,
            end: 4000,
        };
        ack.n_sack = 1;
        assert!(s.is_dup_ack(&ack));
        let mut seen = vec![];
        assert_eq!(s.take_sack(Time(1), &ack, |i, _| seen.push(i)), 2000);
        assert_eq!(s.sb.sacked_bytes, 2000);
        s.take_cumulative_ack(Time(2), 4000, None, None, |i, _| seen.push(i));
        assert_eq!(seen, vec![2, 3, 0, 1]);
        assert_eq!(s.rate.delivered, 4000);
        assert_eq!(s.sb.sacked_bytes, 0);
        let beyond = Segment {
            ack: 5000,
            ..Segment::default()
        };
        assert!(s.check_ack(&beyond).is_err());
    }
}
