//! FQ-CoDel (RFC 8290): packets are hashed by flow into `flows` queues, each with its own
//! CoDel state; a deficit round robin with a byte `quantum` serves new flows (those that
//! just became active) before old ones.
//!
//! As RFC 8290 section 4 and Linux sch_fq_codel: a flow that becomes active joins the
//! new list with a deficit of one quantum; the scheduler takes the first flow of the new
//! list, else of the old list; a flow whose deficit is used up gets another quantum and
//! goes to the back of the old list; a new flow that empties moves to the old list (so
//! it cannot regain priority at once) unless the old list is empty, and an old flow that
//! empties leaves the lists. Over the limit, packets are dropped from the head of the
//! flow with the most bytes (RFC 8290 section 4.1) in a batch, as Linux's `fq_codel_drop`
//! (net/sched/sch_fq_codel.c) and ns-3's `FqCoDelDrop` do: until half of that flow's
//! bytes are gone, at most 64 packets, and the flow's CoDel `count` rises by the number
//! dropped. Packets live in one slab with a free list and per-flow linked lists, so the
//! per-packet path allocates nothing once the slab has grown.

use crate::codel::{CoDel, CoDelParams, Source};
use crate::queued::{Out, Queued};
use crate::Packet;
use std::collections::VecDeque;
use tcplab_core::Time;

/// FQ-CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCoDelParams {
    /// Flow queues (hash buckets): 1024 (RFC 8290 section 5.2.2; Linux sch_fq_codel).
    pub flows: u32,
    /// Bytes a flow may send per round: 1514, an Ethernet MTU with its header (RFC
    /// 8290 section 5.2.1; Linux sch_fq_codel).
    pub quantum: u32,
    /// Each flow's CoDel; ECN marking on, as Linux sch_fq_codel's default.
    pub codel: CoDelParams,
}

impl Default for FqCoDelParams {
    fn default() -> Self {
        FqCoDelParams {
            flows: 1024,
            quantum: 1514,
            codel: CoDelParams {
                ecn: true,
                ..CoDelParams::default()
            },
        }
    }
}

const NIL: u32 = u32::MAX;

/// Most packets one overflow drops from the fattest flow: Linux sch_fq_codel's
/// `drop_batch_size` default (64), ns-3 FqCoDelQueueDisc's `DropBatchSize` (64).
const DROP_BATCH: u32 = 64;

/// Which scheduling list a flow is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct Flow {
    head: u32,
    tail: u32,
    pkts: u32,
    bytes: u64,
    deficit: i64,
    list: List,
    codel: CoDel,
}

#[derive(Debug)]
struct Slot<P> {
    item: Option<Queued<P>>,
    next: u32,
}

/// The flows' packets: a slab of linked slots.
#[derive(Debug)]
struct Slab<P> {
    slots: Vec<Slot<P>>,
    free: Vec<u32>,
    /// Packets and bytes in all flows.
    pkts: u64,
    bytes: u64,
}

#[derive(Debug)]
pub(crate) struct FqCoDel<P> {
    p: FqCoDelParams,
    perturbation: u64,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    slab: Slab<P>,
}

/// A flow of the slab, seen by CoDel as its source.
struct FlowSource<'a, P> {
    flow: &'a mut Flow,
    slab: &'a mut Slab<P>,
}

impl<P> Source<P> for FlowSource<'_, P> {
    fn pop(&mut self) -> Option<Queued<P>> {
        pop_head(self.flow, self.slab)
    }
    fn backlog_bytes(&self) -> u64 {
        // Linux's fq_codel hands CoDel the whole discipline's backlog.
        self.slab.bytes
    }
}

fn pop_head<P>(f: &mut Flow, slab: &mut Slab<P>) -> Option<Queued<P>> {
    if f.head == NIL {
        return None;
    }
    let i = f.head;
    let s = &mut slab.slots[i as usize];
    let x = s.item.take().expect("a linked slot holds a packet");
    f.head = s.next;
    if f.head == NIL {
        f.tail = NIL;
    }
    slab.free.push(i);
    f.pkts -= 1;
    f.bytes -= x.len as u64;
    slab.pkts -= 1;
    slab.bytes -= x.len as u64;
    Some(x)
}

/// A 64-bit mix (splitmix64's finaliser).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<P: Packet> FqCoDel<P> {
    /// `perturbation` is drawn from the discipline's stream, as Linux draws its hash
    /// perturbation at random.
    pub fn new(p: FqCoDelParams, perturbation: u64) -> FqCoDel<P> {
        let n = p.flows as usize;
        FqCoDel {
            p,
            perturbation,
            flows: (0..n)
                .map(|_| Flow {
                    head: NIL,
                    tail: NIL,
                    pkts: 0,
                    bytes: 0,
                    deficit: 0,
                    list: List::None,
                    codel: CoDel::default(),
                })
                .collect(),
            new_flows: VecDeque::with_capacity(n),
            old_flows: VecDeque::with_capacity(n),
            slab: Slab {
                slots: Vec::new(),
                free: Vec::new(),
                pkts: 0,
                bytes: 0,
            },
        }
    }

    pub fn backlog(&self) -> (u64, u64) {
        (self.slab.pkts, self.slab.bytes)
    }

    /// Flows on the new or old list.
    pub fn active_flows(&self) -> u64 {
        (self.new_flows.len() + self.old_flows.len()) as u64
    }

    fn bucket(&self, pkt: &P) -> usize {
        (mix(pkt.flow_key() ^ self.perturbation) % self.p.flows as u64) as usize
    }

    pub fn enqueue(&mut self, now: Time, pkt: P, len: u32) {
        let b = self.bucket(&pkt);
        let item = Queued { pkt, enq: now, len };
        let i = match self.slab.free.pop() {
            Some(i) => {
                self.slab.slots[i as usize] = Slot {
                    item: Some(item),
                    next: NIL,
                };
                i
            }
            None => {
                self.slab.slots.push(Slot {
                    item: Some(item),
                    next: NIL,
                });
                (self.slab.slots.len() - 1) as u32
            }
        };
        let f = &mut self.flows[b];
        if f.tail == NIL {
            f.head = i;
        } else {
            self.slab.slots[f.tail as usize].next = i;
        }
        f.tail = i;
        f.pkts += 1;
        f.bytes += len as u64;
        self.slab.pkts += 1;
        self.slab.bytes += len as u64;
        if f.list == List::None {
            f.list = List::New;
            f.deficit = self.p.quantum as i64;
            self.new_flows.push_back(b as u32);
        }
    }

    /// Over the limit: drops packets from the head of the flow with the most bytes
    /// until half of its bytes are gone, at least one and at most `DROP_BATCH`, and
    /// raises that flow's CoDel count by as many (Linux's `fq_codel_drop`: "tell codel
    /// to increase its signal strength also"). Returns the packets dropped.
    pub fn drop_from_fattest(&mut self, drops: &mut Vec<P>) -> u64 {
        let fattest = (0..self.flows.len())
            .max_by_key(|&i| (self.flows[i].bytes, std::cmp::Reverse(i)))
            .expect("at least one flow");
        let f = &mut self.flows[fattest];
        let threshold = f.bytes / 2;
        let (mut n, mut len) = (0u32, 0u64);
        while let Some(x) = pop_head(f, &mut self.slab) {
            n += 1;
            len += x.len as u64;
            drops.push(x.pkt);
            if n >= DROP_BATCH || len >= threshold {
                break;
            }
        }
        f.codel.add_count(n);
        n as u64
    }

    /// RFC 8290 section 4.2's scheduler.
    pub fn dequeue(&mut self, now: Time, out: &mut Out<'_, P>) -> Option<Queued<P>> {
        loop {
            let (b, from_new) = match self.new_flows.front() {
                Some(&b) => (b, true),
                None => (*self.old_flows.front()?, false),
            };
            let f = &mut self.flows[b as usize];
            if f.deficit <= 0 {
                f.deficit += self.p.quantum as i64;
                f.list = List::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(b);
                continue;
            }
            let mut src = FlowSource {
                flow: f,
                slab: &mut self.slab,
            };
            let mut codel = std::mem::take(&mut src.flow.codel);
            let got = codel.dequeue(&self.p.codel, now, &mut src, out);
            src.flow.codel = codel;
            match got {
                None => {
                    self.pop_list(from_new);
                    let f = &mut self.flows[b as usize];
                    if from_new && !self.old_flows.is_empty() {
                        f.list = List::Old;
                        self.old_flows.push_back(b);
                    } else {
                        f.list = List::None;
                    }
                }
                Some(x) => {
                    self.flows[b as usize].deficit -= x.len as i64;
                    return Some(x);
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub fn flush(&mut self, drops: &mut Vec<P>) {
        for f in &mut self.flows {
            while let Some(x) = pop_head(f, &mut self.slab) {
                drops.push(x.pkt);
            }
            f.list = List::None;
        }
        self.new_flows.clear();
        self.old_flows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queued::QdiscCounters;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Pkt {
        flow: u64,
        len: u32,
    }
    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            self.len
        }
        fn flow_key(&self) -> u64 {
            self.flow
        }
    }

    fn order(q: &mut FqCoDel<Pkt>, now: Time, n: usize) -> Vec<u64> {
        let (mut drops, mut counters) = (Vec::new(), QdiscCounters::default());
        let mut out = Out {
            drops: &mut drops,
            counters: &mut counters,
        };
        (0..n)
            .filter_map(|_| q.dequeue(now, &mut out).map(|x| x.pkt.flow))
            .collect()
    }

    /// Flows 1 to 3 in distinct buckets.
    fn fq(quantum: u32) -> FqCoDel<Pkt> {
        let p = FqCoDelParams {
            quantum,
            ..FqCoDelParams::default()
        };
        let q = FqCoDel::new(p, 7);
        let buckets: Vec<usize> = (1..=3)
            .map(|k| q.bucket(&Pkt { flow: k, len: 1 }))
            .collect();
        assert!(buckets[0] != buckets[1] && buckets[1] != buckets[2] && buckets[0] != buckets[2]);
        q
    }

    /// Deficit round robin: with a quantum of 3000 bytes, a flow of 1500-byte packets
    /// sends two per round, one of 500-byte packets six.
    #[test]
    fn each_flow_sends_a_quantum_per_round() {
        let mut q = fq(3000);
        for _ in 0..12 {
            q.enqueue(Time::ZERO, Pkt { flow: 1, len: 1500 }, 1500);
        }
        for _ in 0..24 {
            q.enqueue(Time::ZERO, Pkt { flow: 2, len: 500 }, 500);
        }
        let got = order(&mut q, Time::ZERO, 16);
        assert_eq!(
            got,
            vec![1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 2],
            "two of flow 1, six of flow 2, per round"
        );
    }

    /// A flow that becomes active is served before the old flows (the new list), once:
    /// having used its quantum it joins the back of the old list.
    #[test]
    fn a_new_flow_goes_first_then_joins_the_old_ones() {
        let mut q = fq(1500);
        for _ in 0..4 {
            q.enqueue(Time::ZERO, Pkt { flow: 1, len: 1500 }, 1500);
            q.enqueue(Time::ZERO, Pkt { flow: 2, len: 1500 }, 1500);
        }
        // Both are new: 1, 2, then both old: 1, 2 alternate.
        assert_eq!(order(&mut q, Time::ZERO, 3), vec![1, 2, 1]);
        assert_eq!(q.new_flows.len(), 0);
        // Flow 3 arrives: it jumps the old flows, then takes its turn among them.
        for _ in 0..3 {
            q.enqueue(Time::ZERO, Pkt { flow: 3, len: 1500 }, 1500);
        }
        assert_eq!(order(&mut q, Time::ZERO, 6), vec![3, 2, 3, 1, 2, 3]);
    }

    /// A sparse flow (one small packet now and then) always finds itself new and goes
    /// ahead of a backlogged bulk flow.
    #[test]
    fn a_sparse_flow_jumps_the_queue() {
        let mut q = fq(1514);
        for _ in 0..100 {
            q.enqueue(Time::ZERO, Pkt { flow: 1, len: 1500 }, 1500);
        }
        order(&mut q, Time::ZERO, 5);
        q.enqueue(Time::ZERO, Pkt { flow: 2, len: 100 }, 100);
        assert_eq!(order(&mut q, Time::ZERO, 1), vec![2]);
    }

    /// Each flow has its own CoDel: a standing queue in one flow is dropped from while
    /// a flow that keeps its queue short loses nothing.
    #[test]
    fn flows_have_their_own_codel() {
        let mut q = fq(1514);
        let (mut drops, mut counters) = (Vec::new(), QdiscCounters::default());
        for ms in 0..3000u64 {
            let t = Time(ms * 1_000_000);
            // Flow 1 offers two packets per millisecond, flow 2 one every 4 ms; one
            // packet leaves per millisecond.
            q.enqueue(t, Pkt { flow: 1, len: 1500 }, 1500);
            q.enqueue(t, Pkt { flow: 1, len: 1500 }, 1500);
            if ms % 4 == 0 {
                q.enqueue(t, Pkt { flow: 2, len: 1500 }, 1500);
            }
            let mut out = Out {
                drops: &mut drops,
                counters: &mut counters,
            };
            q.dequeue(t, &mut out);
        }
        assert!(drops.iter().all(|p| p.flow == 1));
        assert!(drops.len() > 100, "flow 1's standing queue was controlled");
    }

    #[test]
    fn over_the_limit_the_fattest_flow_loses_its_head() {
        let mut q = fq(1514);
        for _ in 0..2 {
            q.enqueue(Time::ZERO, Pkt { flow: 1, len: 1500 }, 1500);
        }
        q.enqueue(Time::ZERO, Pkt { flow: 2, len: 1500 }, 1500);
        let mut drops = Vec::new();
        assert_eq!(q.drop_from_fattest(&mut drops), 1);
        assert_eq!(drops, vec![Pkt { flow: 1, len: 1500 }]);
        assert_eq!(q.backlog(), (2, 3000));
    }

    /// Linux's fq_codel_drop (and ns-3's FqCoDelDrop): one overflow drops half of the
    /// fattest flow's bytes from its head, at most 64 packets, and adds them to its
    /// CoDel count; the other flows keep theirs.
    #[test]
    fn an_overflow_drops_half_the_fattest_flow_in_a_batch() {
        let mut q = fq(1514);
        for _ in 0..10 {
            q.enqueue(Time::ZERO, Pkt { flow: 1, len: 1500 }, 1500);
        }
        for _ in 0..3 {
            q.enqueue(Time::ZERO, Pkt { flow: 2, len: 1500 }, 1500);
        }
        let mut drops = Vec::new();
        assert_eq!(q.drop_from_fattest(&mut drops), 5);
        assert!(drops.iter().all(|p| p.flow == 1));
        assert_eq!(q.backlog(), (8, 12_000));
        let b = q.bucket(&Pkt { flow: 1, len: 1 });
        assert_eq!(q.flows[b].codel.count(), 5);
        // A flow of 200 small packets loses at most 64 of them.
        let mut q = fq(1514);
        for _ in 0..200 {
            q.enqueue(Time::ZERO, Pkt { flow: 3, len: 100 }, 100);
        }
        drops.clear();
        assert_eq!(q.drop_from_fattest(&mut drops), 64);
        assert_eq!(q.backlog(), (136, 13_600));
    }
}
