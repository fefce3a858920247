//! Shared harness for the transport integration tests.
//!
//! Two ways to drive the endpoints:
//! - scripted: build ACK / data segments with [`ack`], [`sack`] and [`data`], feed them to
//!   one endpoint and collect its output with [`drain_sender`] / [`drain_receiver`];
//! - wired: [`Net`] connects a sender and a receiver through a deterministic wire whose
//!   fate functions decide, per packet, whether it is dropped and how long it takes.
//!
//! MSS is 1000 bytes so that the window arithmetic in assertions reads as whole segments.

#![allow(dead_code)] // every test binary uses a different subset

use tcplab_core::{Dur, Time};
use tcplab_transport::cc::{Controller, NewReno};
use tcplab_transport::{
    AckPolicy, Receiver, ReceiverConfig, RecoveryMode, SackBlock, Segment, Sender, SenderConfig,
    SsthreshBasis, Violation,
};

pub const MSS: u32 = 1000;
pub const M: u64 = MSS as u64;

pub fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// RFC settings: ssthresh from FlightSize (RFC 5681 eq. 4, also the default), so window
/// arithmetic in the assertions is the RFCs'; `send_state.rs` tests the in-flight basis.
pub fn sender_cfg(recovery: RecoveryMode, total: Option<u64>) -> SenderConfig {
    SenderConfig {
        mss: MSS,
        total_bytes: total,
        recovery,
        ssthresh_basis: SsthreshBasis::FlightSize,
        ..SenderConfig::default()
    }
}

/// A started sender (at t = 0) with the NewReno window controller.
pub fn sender_with(cfg: SenderConfig) -> Sender {
    let mut s = Sender::new(0, cfg, Controller::NewReno(NewReno::default()));
    s.start(Time::ZERO);
    s
}

pub fn sender(recovery: RecoveryMode, total: Option<u64>) -> Sender {
    sender_with(sender_cfg(recovery, total))
}

pub fn receiver_cfg(ack_policy: AckPolicy, sack: bool, total: Option<u64>) -> ReceiverConfig {
    ReceiverConfig {
        ack_policy,
        sack,
        mss: MSS,
        total_bytes: total,
        ..ReceiverConfig::default()
    }
}

pub fn receiver(ack_policy: AckPolicy, sack: bool, total: Option<u64>) -> Receiver {
    Receiver::new(0, receiver_cfg(ack_policy, sack, total))
}

pub fn delayed() -> AckPolicy {
    AckPolicy::Delayed {
        every: 2,
        max_delay: Dur::from_millis(200),
    }
}

/// A pure ACK with a large window and the given SACK blocks `[start, end)`.
pub fn sack(ack: u64, blocks: &[(u64, u64)]) -> Segment {
    let mut s = Segment {
        ack,
        wnd: 1 << 30,
        ..Segment::default()
    };
    for (i, &(start, end)) in blocks.iter().enumerate() {
        s.sack[i] = SackBlock { start, end };
    }
    s.n_sack = blocks.len() as u8;
    s
}

pub fn ack(ack: u64) -> Segment {
    sack(ack, &[])
}

/// A data segment `[seq, seq + len)`.
pub fn data(seq: u64, len: u32) -> Segment {
    Segment {
        seq,
        len,
        ..Segment::default()
    }
}

/// The data segment carrying segment number `i` (full-sized).
pub fn seg(i: u64) -> Segment {
    data(i * M, MSS)
}

pub fn drain_sender(s: &mut Sender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now))
        .take(10_000)
        .collect()
}

pub fn drain_receiver(r: &mut Receiver, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| r.poll_transmit(now))
        .take(10_000)
        .collect()
}

/// Sequence numbers of a batch of segments.
pub fn seqs(v: &[Segment]) -> Vec<u64> {
    v.iter().map(|s| s.seq).collect()
}

/// Feeds `seg` to the sender, which must accept it.
pub fn feed(s: &mut Sender, now: Time, seg: &Segment) -> Vec<Segment> {
    s.handle_segment(now, seg).expect("valid ACK");
    drain_sender(s, now)
}

/// Per-packet fate on the wire: `None` drops it, `Some(d)` delivers it after `d`.
/// Arguments: the packet's number in its direction (from 0) and the packet.
pub type Fate = Box<dyn FnMut(usize, &Segment) -> Option<Dur>>;

#[derive(Clone, Copy, Debug)]
struct InFlight {
    at: Time,
    order: u64,
    seg: Segment,
}

/// Puts `seg` on the wire unless its fate drops it.
fn launch(q: &mut Vec<InFlight>, order: &mut u64, now: Time, fate: Option<Dur>, seg: Segment) {
    if let Some(d) = fate {
        *order += 1;
        q.push(InFlight {
            at: now + d,
            order: *order,
            seg,
        });
    }
}

/// A sender and a receiver joined by a deterministic wire (no bandwidth limit: a packet
/// takes exactly the delay its fate gives it, so equal delays keep FIFO order).
pub struct Net {
    pub snd: Sender,
    pub rcv: Receiver,
    pub now: Time,
    data_fate: Fate,
    ack_fate: Fate,
    to_rcv: Vec<InFlight>,
    to_snd: Vec<InFlight>,
    order: u64,
    /// Every data segment the sender emitted, with its time.
    pub sent: Vec<(Time, Segment)>,
    /// Every ACK the receiver emitted, with its time.
    pub acks: Vec<(Time, Segment)>,
    /// Times at which the sender's retransmission timer expired.
    pub rto_times: Vec<Time>,
    /// Independent record of which bytes reached the receiver (for exactly-once checks).
    pub arrived: Vec<bool>,
    pub events: u64,
}

impl Net {
    /// Joins the endpoints; packets take `one_way` in both directions.
    pub fn new(snd: Sender, rcv: Receiver, one_way: Dur) -> Net {
        Net::with_fates(snd, rcv, fixed(one_way), fixed(one_way))
    }

    /// Joins the endpoints with the given fates for data and ACK packets. The sender must
    /// already be started; its first flight leaves at t = 0.
    pub fn with_fates(snd: Sender, rcv: Receiver, data_fate: Fate, ack_fate: Fate) -> Net {
        let total = snd.app_bytes().unwrap_or(0) as usize;
        let mut n = Net {
            snd,
            rcv,
            now: Time::ZERO,
            data_fate,
            ack_fate,
            to_rcv: Vec::new(),
            to_snd: Vec::new(),
            order: 0,
            sent: Vec::new(),
            acks: Vec::new(),
            rto_times: Vec::new(),
            arrived: vec![false; total],
            events: 0,
        };
        n.drain();
        n
    }

    fn drain(&mut self) {
        let now = self.now;
        while let Some(seg) = self.snd.poll_transmit(now) {
            let fate = (self.data_fate)(self.sent.len(), &seg);
            self.sent.push((now, seg));
            launch(&mut self.to_rcv, &mut self.order, now, fate, seg);
        }
        while let Some(seg) = self.rcv.poll_transmit(now) {
            let fate = (self.ack_fate)(self.acks.len(), &seg);
            self.acks.push((now, seg));
            launch(&mut self.to_snd, &mut self.order, now, fate, seg);
        }
    }

    fn next_time(&self) -> Option<Time> {
        let arrivals = self.to_rcv.iter().chain(&self.to_snd).map(|p| p.at);
        let timers = [self.snd.poll_timeout(), self.rcv.poll_timeout()];
        arrivals
            .chain(timers.into_iter().flatten())
            .min()
            .map(|t| t.max(self.now))
    }

    fn pop_due(q: &mut Vec<InFlight>, now: Time) -> Option<Segment> {
        let i = q
            .iter()
            .enumerate()
            .filter(|(_, p)| p.at <= now)
            .min_by_key(|(_, p)| (p.at, p.order))?
            .0;
        Some(q.swap_remove(i).seg)
    }

    /// Processes everything due at the next event time. `Ok(false)` when nothing is left.
    pub fn step(&mut self) -> Result<bool, Violation> {
        let Some(t) = self.next_time() else {
            return Ok(false);
        };
        self.now = t;
        self.events += 1;
        loop {
            if let Some(seg) = Self::pop_due(&mut self.to_rcv, t) {
                let end = (seg.seq + seg.len as u64).min(self.arrived.len() as u64);
                for b in seg.seq.min(end)..end {
                    self.arrived[b as usize] = true;
                }
                let before = self.rcv.rcv_nxt();
                self.rcv.handle_segment(t, &seg)?;
                let after = self.rcv.rcv_nxt();
                assert!(after >= before, "rcv_nxt went backwards");
                // Every byte the receiver claims to have delivered really arrived.
                let upto = (after as usize).min(self.arrived.len());
                assert!(
                    self.arrived[..upto].iter().all(|&b| b),
                    "receiver delivered bytes below {after} that never arrived"
                );
            } else if let Some(seg) = Self::pop_due(&mut self.to_snd, t) {
                let una = self.snd.snd_una();
                self.snd.handle_segment(t, &seg)?;
                assert!(self.snd.snd_una() >= una, "snd_una went backwards");
                assert!(self.snd.snd_una() <= self.snd.snd_max());
            } else {
                break;
            }
            self.drain();
        }
        if self.snd.poll_timeout().is_some_and(|x| x <= t) {
            let rtos = self.snd.stats().rtos;
            self.snd.handle_timeout(t);
            if self.snd.stats().rtos > rtos {
                self.rto_times.push(t);
            }
        }
        if self.rcv.poll_timeout().is_some_and(|x| x <= t) {
            self.rcv.handle_timeout(t);
        }
        self.drain();
        Ok(true)
    }

    /// Runs until the sender has nothing left to do, `deadline` passes, or `max_events`.
    pub fn run(&mut self, deadline: Time, max_events: u64) -> Result<(), Violation> {
        while self.events < max_events && !self.snd.is_complete() {
            match self.next_time() {
                Some(t) if t <= deadline => {}
                _ => break,
            }
            if !self.step()? {
                break;
            }
        }
        // Let the last ACKs and delayed-ACK timers play out (bounded).
        let mut extra = 0;
        while extra < 1000 && self.next_time().is_some_and(|t| t <= deadline) {
            self.step()?;
            extra += 1;
        }
        Ok(())
    }

    /// Data segments sent that were retransmissions, with their times.
    pub fn retransmissions(&self) -> Vec<(Time, u64)> {
        self.sent
            .iter()
            .filter(|(_, s)| s.retransmission)
            .map(|(t, s)| (*t, s.seq))
            .collect()
    }
}

/// A fate that drops the data packets whose numbers (from 0) are in `drops` and delays
/// every other packet by `one_way`.
pub fn drop_list(drops: &'static [usize], one_way: Dur) -> Fate {
    Box::new(move |i, _| (!drops.contains(&i)).then_some(one_way))
}

pub fn fixed(one_way: Dur) -> Fate {
    Box::new(move |_, _| Some(one_way))
}

/// Runs a whole transfer through a wire with one-way delay `half` in both directions,
/// dropping the data packets numbered in `drops`; checks every byte was delivered.
pub fn transfer(snd: Sender, rcv: Receiver, drops: &'static [usize], half: Dur) -> Net {
    let total = snd.app_bytes().expect("finite transfer");
    let mut net = Net::with_fates(snd, rcv, drop_list(drops, half), fixed(half));
    net.run(Time(u64::MAX / 2), 100_000).unwrap();
    assert!(net.snd.is_complete());
    assert_eq!(net.rcv.rcv_nxt(), total);
    net
}
