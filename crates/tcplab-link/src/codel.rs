//! CoDel, Controlled Delay (RFC 8289): drops (or marks) at dequeue once packets have
//! stayed above `target` for an `interval`, then at times spaced by the control law
//! `interval / sqrt(count)` until the sojourn falls below `target`.
//!
//! The state machine follows RFC 8289's pseudocode (sections 5.3-5.5), which is Linux's
//! `codel_dequeue` (include/net/codel_impl.h); with ECN on, an ECN-capable packet is
//! marked instead of dropped as Linux does (it is then sent, ending the dequeue).

use crate::queued::{Out, Queued};
use crate::Packet;
use tcplab_core::{Dur, Time};

/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelParams {
    /// Acceptable standing queue delay: 5 ms (RFC 8289 section 4.4; Linux sch_codel).
    pub target: Dur,
    /// Window over which the minimum sojourn must exceed `target`: 100 ms (RFC 8289
    /// section 4.3; Linux sch_codel).
    pub interval: Dur,
    /// Mark ECN-capable packets instead of dropping them: off, as in Linux sch_codel
    /// (on in fq_codel).
    pub ecn: bool,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            ecn: false,
        }
    }
}

/// Where CoDel takes its packets from: a FIFO, or one flow of FQ-CoDel.
pub(crate) trait Source<P> {
    fn pop(&mut self) -> Option<Queued<P>>;
    /// Bytes still waiting (after a pop): CoDel never drops when no more than a
    /// packet's worth remains (RFC 8289 section 5.3, `bytes() <= maxpacket`).
    fn backlog_bytes(&self) -> u64;
}

/// CoDel's state (RFC 8289 section 5.2).
#[derive(Clone, Debug, Default)]
pub(crate) struct CoDel {
    /// When the sojourn will have been above target for an interval (`None`: below).
    first_above: Option<Time>,
    /// The next drop while dropping.
    drop_next: Time,
    /// Drops (and marks) since entering the dropping state.
    count: u32,
    /// `count` when the last dropping state began.
    lastcount: u32,
    dropping: bool,
    /// Largest packet seen (RFC 8289's `maxpacket`).
    maxpacket: u32,
}

/// `t + interval / sqrt(count)` (RFC 8289 section 5.5).
pub(crate) fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    t + Dur((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

impl CoDel {
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289's `dodequeue` decision for the packet `x` just taken (`ok_to_drop`).
    fn should_drop<P>(
        &mut self,
        p: &CoDelParams,
        now: Time,
        x: Option<&Queued<P>>,
        backlog: u64,
    ) -> bool {
        let Some(x) = x else {
            self.first_above = None;
            return false;
        };
        self.maxpacket = self.maxpacket.max(x.len);
        let sojourn = now.saturating_since(x.enq);
        if sojourn < p.target || backlog <= self.maxpacket as u64 {
            self.first_above = None;
            return false;
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + p.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// The next packet to send at `now` (RFC 8289's `dequeue`).
    pub fn dequeue<P: Packet, S: Source<P>>(
        &mut self,
        p: &CoDelParams,
        now: Time,
        src: &mut S,
        out: &mut Out<'_, P>,
    ) -> Option<Queued<P>> {
        let mut x = src.pop();
        let drop = self.should_drop(p, now, x.as_ref(), src.backlog_bytes());
        let Some(head) = x.as_mut() else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                let head = x.as_mut().expect("a packet while dropping");
                if p.ecn && head.pkt.ecn_capable() {
                    head.pkt.set_ce();
                    out.counters.marked_ce += 1;
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return x;
                }
                out.drops.push(x.take().expect("checked").pkt);
                out.counters.dropped_aqm += 1;
                x = src.pop();
                if !self.should_drop(p, now, x.as_ref(), src.backlog_bytes()) {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                }
            }
        } else if drop {
            if p.ecn && head.pkt.ecn_capable() {
                head.pkt.set_ce();
                out.counters.marked_ce += 1;
            } else {
                out.drops.push(x.take().expect("checked").pkt);
                out.counters.dropped_aqm += 1;
                x = src.pop();
                // Updates `first_above` for the packet now at the head, as RFC 8289's
                // second `dodequeue` does; its answer is not used.
                self.should_drop(p, now, x.as_ref(), src.backlog_bytes());
            }
            self.dropping = true;
            // RFC 8289 section 5.4 (the Linux version): start from the previous
            // dropping state's rate if it ended recently.
            let delta = self.count.wrapping_sub(self.lastcount);
            let since = now.0 as i128 - self.drop_next.0 as i128;
            self.count = if delta > 1 && since < 16 * p.interval.0 as i128 {
                delta
            } else {
                1
            };
            self.lastcount = self.count;
            self.drop_next = control_law(now, p.interval, self.count);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queued::QdiscCounters;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Pkt {
        id: u32,
        ect: bool,
        ce: bool,
    }
    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            1000
        }
        fn ecn_capable(&self) -> bool {
            self.ect
        }
        fn set_ce(&mut self) {
            self.ce = true;
        }
    }

    /// A queue that always holds packets enqueued `age` before the dequeue.
    struct Standing {
        next: u32,
        age: Dur,
        now: Time,
        ect: bool,
    }
    impl Source<Pkt> for Standing {
        fn pop(&mut self) -> Option<Queued<Pkt>> {
            self.next += 1;
            Some(Queued {
                pkt: Pkt {
                    id: self.next,
                    ect: self.ect,
                    ce: false,
                },
                enq: Time(self.now.0 - self.age.0),
                len: 1000,
            })
        }
        fn backlog_bytes(&self) -> u64 {
            100_000
        }
    }

    /// Dequeues every millisecond from a queue whose sojourn is always 20 ms; returns
    /// the times of the drops (or marks).
    fn drop_times(ecn: bool) -> (Vec<u64>, Vec<Pkt>) {
        let p = CoDelParams {
            ecn,
            ..CoDelParams::default()
        };
        let mut c = CoDel::default();
        let mut src = Standing {
            next: 0,
            age: Dur::from_millis(20),
            now: Time::ZERO,
            ect: ecn,
        };
        let (mut drops, mut counters) = (Vec::new(), QdiscCounters::default());
        let mut times = Vec::new();
        let mut sent = Vec::new();
        for ms in 20..2_000u64 {
            src.now = Time(ms * 1_000_000);
            let before = drops.len() as u64 + counters.marked_ce;
            let mut out = Out {
                drops: &mut drops,
                counters: &mut counters,
            };
            let x = c
                .dequeue(&p, src.now, &mut src, &mut out)
                .expect("always a packet");
            sent.push(x.pkt);
            let after = drops.len() as u64 + counters.marked_ce;
            for _ in before..after {
                times.push(ms);
            }
        }
        (times, sent)
    }

    /// The first drop comes an interval after the sojourn first exceeds target; the
    /// n-th after it comes interval/sqrt(n) after the one before (within the 1 ms
    /// dequeue grid). Fails without the control law (e.g. drops every interval).
    #[test]
    fn drops_are_spaced_by_interval_over_sqrt_count() {
        let (times, _) = drop_times(false);
        assert_eq!(times[0], 120, "first drop an interval after 20 ms");
        for n in 1..times.len().min(40) {
            let gap = (times[n] - times[n - 1]) as f64;
            let want = 100.0 / (n as f64).sqrt();
            assert!(
                (gap - want).abs() <= 1.0,
                "gap {n}: {gap} ms, want {want:.2}"
            );
        }
        assert!(times.len() > 40);
    }

    /// With ECN the same schedule marks instead of dropping, and marked packets are sent.
    #[test]
    fn ecn_capable_packets_are_marked_on_the_same_schedule() {
        let (drops, _) = drop_times(false);
        let (marks, sent) = drop_times(true);
        assert_eq!(&marks[..20], &drops[..20]);
        let ce = sent.iter().filter(|p| p.ce).count();
        assert_eq!(ce, marks.len());
    }

    /// Below target nothing is dropped, however long the queue stands.
    #[test]
    fn a_queue_below_target_is_left_alone() {
        let mut c = CoDel::default();
        let mut src = Standing {
            next: 0,
            age: Dur::from_millis(4),
            now: Time::ZERO,
            ect: false,
        };
        let (mut drops, mut counters) = (Vec::new(), QdiscCounters::default());
        for ms in 4..5_000u64 {
            src.now = Time(ms * 1_000_000);
            let mut out = Out {
                drops: &mut drops,
                counters: &mut counters,
            };
            c.dequeue(&CoDelParams::default(), src.now, &mut src, &mut out);
        }
        assert!(drops.is_empty());
    }
}
