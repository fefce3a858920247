//! The simulation loop: wires endpoints and links on a virtual clock.
//!
//! Every component exposes `poll_timeout`; the loop keeps one pending wake-up per
//! component and pushes a new one only when the component wants to wake earlier. A
//! wake-up that no longer matches the component's slot is stale and skipped, so timers
//! that move later (an RTO restarted on every ACK) cost no queue operations.

use crate::error::SimError;
use crate::event::EventQueue;
use crate::results::{Results, RunInfo};
use crate::scenario::{Sampling, Scenario};
use tcplab_core::{Dur, Rng, Time};
use tcplab_link::{Link, Packet};
use tcplab_transport::cc::{self, CongestionControl};
use tcplab_transport::{Receiver, RecoveryMode, Segment, Sender, Violation};

/// A segment travelling along a flow's path.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    seg: Segment,
    hop: u8,
    /// True for ACKs (receiver → sender).
    to_sender: bool,
}

impl Packet for Pkt {
    #[inline]
    fn wire_len(&self) -> u32 {
        self.seg.wire_len()
    }
}

/// Link-direction ids along a path (direction id = 2·link + (0 forward | 1 reverse)).
#[derive(Clone, Copy, Debug)]
struct Path {
    hops: [u32; 8],
    n: u8,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Link(u32),
    Sender(u32),
    Receiver(u32),
    Start(u32),
    Stop(u32),
    Change { link: u32, idx: u32 },
    Sample,
}

struct Flow {
    snd: Sender,
    rcv: Receiver,
    fwd: Path,
    rev: Path,
    snd_wake: Option<Time>,
    rcv_wake: Option<Time>,
    started: bool,
    finished: bool,
    finite: bool,
}

struct World<'s> {
    sc: &'s Scenario,
    seed: u64,
    now: Time,
    q: EventQueue<Ev>,
    links: Vec<Link<Pkt>>,
    link_wake: Vec<Option<Time>>,
    flows: Vec<Flow>,
    unfinished: usize,
    unlimited_active: usize,
    hops: u64,
    res: Results,
}

/// The master seed of replication `r` of seed `seed`.
fn master_seed(seed: u64, replication: u32) -> u64 {
    let mut r = Rng::named(seed, "replication");
    for _ in 0..replication {
        r.next_u64();
    }
    r.next_u64() ^ seed
}

/// Runs `sc` with `seed` (and replication index) and returns its tables.
pub fn simulate(sc: &Scenario, seed: u64, replication: u32) -> Result<Results, SimError> {
    let master = master_seed(seed, replication);
    let mut links = Vec::with_capacity(sc.links.len() * 2);
    for l in &sc.links {
        links.push(Link::new(
            l.fwd.clone(),
            Rng::named(master, &format!("link.{}.fwd", l.name)),
        ));
        links.push(Link::new(
            l.rev.clone(),
            Rng::named(master, &format!("link.{}.rev", l.name)),
        ));
    }
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let controller = cc::build(&f.cc, &f.cc_params).map_err(|why| {
            SimError::Config(crate::ConfigError {
                file: sc.source.clone(),
                key: format!("flow[{i}].cc"),
                value: f.cc.clone(),
                why,
            })
        })?;
        let mut fwd = Path { hops: [0; 8], n: 0 };
        let mut rev = Path { hops: [0; 8], n: 0 };
        if f.path.is_empty() || f.path.len() > 8 {
            return Err(SimError::Config(crate::ConfigError {
                file: sc.source.clone(),
                key: format!("flow[{i}]"),
                value: String::new(),
                why: "a path must cross between 1 and 8 links".into(),
            }));
        }
        for (k, &l) in f.path.iter().enumerate() {
            fwd.hops[k] = 2 * l as u32;
            rev.hops[f.path.len() - 1 - k] = 2 * l as u32 + 1;
        }
        fwd.n = f.path.len() as u8;
        rev.n = f.path.len() as u8;
        let finite = f.sender.total_bytes.is_some() || f.stop.is_some();
        flows.push(Flow {
            snd: Sender::new(i as u32, f.sender.clone(), controller),
            rcv: Receiver::new(i as u32, f.receiver.clone()),
            fwd,
            rev,
            snd_wake: None,
            rcv_wake: None,
            started: false,
            finished: false,
            finite,
        });
    }
    let unfinished = flows.iter().filter(|f| f.finite).count();
    let unlimited_active = flows.len() - unfinished;
    let mut w = World {
        sc,
        seed,
        now: Time::ZERO,
        q: EventQueue::with_capacity(1024),
        link_wake: vec![None; links.len()],
        links,
        flows,
        unfinished,
        unlimited_active,
        hops: 0,
        res: Results {
            info: RunInfo {
                scenario: sc.name.clone(),
                seed,
                replication,
                ..RunInfo::default()
            },
            link_names: sc.links.iter().map(|l| l.name.clone()).collect(),
            ..Results::default()
        },
    };
    w.run()?;
    Ok(w.res)
}

impl World<'_> {
    fn run(&mut self) -> Result<(), SimError> {
        let end = Time::ZERO + self.sc.duration.unwrap_or(self.sc.max_time);
        for (i, f) in self.sc.flows.iter().enumerate() {
            self.q.push(Time::ZERO + f.start, Ev::Start(i as u32));
            if let Some(s) = f.stop {
                self.q.push(Time::ZERO + s, Ev::Stop(i as u32));
            }
        }
        for (l, spec) in self.sc.links.iter().enumerate() {
            for (idx, c) in spec.schedule.iter().enumerate() {
                self.q.push(
                    Time::ZERO + c.at,
                    Ev::Change {
                        link: l as u32,
                        idx: idx as u32,
                    },
                );
            }
        }
        if let Sampling::Interval(_) = self.sc.sampling {
            self.q.push(Time::ZERO, Ev::Sample);
        }
        let mut events = 0u64;
        while let Some((t, ev)) = self.q.pop() {
            if t > end {
                self.now = end;
                break;
            }
            self.now = t;
            events += 1;
            match ev {
                Ev::Link(d) => {
                    let d = d as usize;
                    if self.link_wake[d] != Some(t) {
                        continue;
                    }
                    self.link_wake[d] = None;
                    while let Some(p) = self.links[d].poll_transmit(t) {
                        self.hops += 1;
                        self.forward(p)?;
                    }
                    self.wake_link(d);
                }
                Ev::Sender(f) => {
                    let fl = &mut self.flows[f as usize];
                    if fl.snd_wake != Some(t) {
                        continue;
                    }
                    fl.snd_wake = None;
                    fl.snd.handle_timeout(t);
                    self.drain_sender(f as usize);
                }
                Ev::Receiver(f) => {
                    let fl = &mut self.flows[f as usize];
                    if fl.rcv_wake != Some(t) {
                        continue;
                    }
                    fl.rcv_wake = None;
                    fl.rcv.handle_timeout(t);
                    self.drain_receiver(f as usize);
                }
                Ev::Start(f) => {
                    let fl = &mut self.flows[f as usize];
                    fl.started = true;
                    fl.snd.start(t);
                    self.drain_sender(f as usize);
                }
                Ev::Stop(f) => {
                    self.flows[f as usize].snd.stop();
                    self.drain_sender(f as usize);
                }
                Ev::Change { link, idx } => self.apply_change(link as usize, idx as usize),
                Ev::Sample => {
                    self.sample();
                    if let Sampling::Interval(d) = self.sc.sampling {
                        self.q.push(t + d, Ev::Sample);
                    }
                }
            }
            if self.unfinished == 0 && self.unlimited_active == 0 {
                break;
            }
        }
        self.res.info.events = events;
        self.res.info.packet_hops = self.hops;
        self.res.info.end_time_s = self.now.as_secs_f64();
        if !matches!(self.sc.sampling, Sampling::Off) {
            self.sample();
        }
        self.check_end()?;
        self.collect();
        Ok(())
    }

    fn violation(&self, v: Violation) -> SimError {
        SimError::Invariant {
            scenario: self.sc.name.clone(),
            seed: self.seed,
            at: self.now.to_string(),
            violation: v,
        }
    }

    /// Moves a packet that reached the end of a link to its next hop or endpoint.
    fn forward(&mut self, mut p: Pkt) -> Result<(), SimError> {
        let f = p.seg.flow as usize;
        let path = if p.to_sender {
            self.flows[f].rev
        } else {
            self.flows[f].fwd
        };
        let next = p.hop + 1;
        if next < path.n {
            p.hop = next;
            self.enqueue(path.hops[next as usize] as usize, p);
            return Ok(());
        }
        let now = self.now;
        if p.to_sender {
            let r = self.flows[f].snd.handle_segment(now, &p.seg);
            r.map_err(|v| self.violation(v))?;
            if matches!(self.sc.sampling, Sampling::PerAck) {
                self.sample_flow(f);
            }
            self.drain_sender(f);
        } else {
            let r = self.flows[f].rcv.handle_segment(now, &p.seg);
            r.map_err(|v| self.violation(v))?;
            self.drain_receiver(f);
        }
        Ok(())
    }

    #[inline]
    fn enqueue(&mut self, d: usize, p: Pkt) {
        self.links[d].handle_packet(self.now, p);
        self.wake_link(d);
    }

    #[inline]
    fn wake_link(&mut self, d: usize) {
        if let Some(t) = self.links[d].poll_timeout() {
            if self.link_wake[d].is_none_or(|w| t < w) {
                self.link_wake[d] = Some(t);
                self.q.push(t, Ev::Link(d as u32));
            }
        }
    }

    fn drain_sender(&mut self, f: usize) {
        let now = self.now;
        while let Some(seg) = self.flows[f].snd.poll_transmit(now) {
            let first = self.flows[f].fwd.hops[0] as usize;
            self.enqueue(
                first,
                Pkt {
                    seg,
                    hop: 0,
                    to_sender: false,
                },
            );
        }
        let fl = &mut self.flows[f];
        if fl.finite && !fl.finished && fl.snd.is_complete() {
            fl.finished = true;
            self.unfinished -= 1;
        }
        if let Some(t) = fl.snd.poll_timeout() {
            let t = t.max(now);
            if fl.snd_wake.is_none_or(|w| t < w) {
                fl.snd_wake = Some(t);
                self.q.push(t, Ev::Sender(f as u32));
            }
        }
    }

    fn drain_receiver(&mut self, f: usize) {
        let now = self.now;
        while let Some(seg) = self.flows[f].rcv.poll_transmit(now) {
            let first = self.flows[f].rev.hops[0] as usize;
            self.enqueue(
                first,
                Pkt {
                    seg,
                    hop: 0,
                    to_sender: true,
                },
            );
        }
        let fl = &mut self.flows[f];
        if let Some(t) = fl.rcv.poll_timeout() {
            let t = t.max(now);
            if fl.rcv_wake.is_none_or(|w| t < w) {
                fl.rcv_wake = Some(t);
                self.q.push(t, Ev::Receiver(f as u32));
            }
        }
    }

    fn apply_change(&mut self, link: usize, idx: usize) {
        let c = &self.sc.links[link].schedule[idx];
        self.links[2 * link].set_params(self.now, c.fwd.clone());
        self.links[2 * link + 1].set_params(self.now, c.rev.clone());
        // Re-timed packets may now arrive earlier than the pending wake-up.
        for d in [2 * link, 2 * link + 1] {
            self.link_wake[d] = None;
            self.wake_link(d);
        }
    }

    fn sample_flow(&mut self, f: usize) {
        let t = self.now.as_secs_f64();
        let fl = &self.flows[f];
        let s = fl.snd.snapshot();
        let fs = &mut self.res.flow_series;
        fs.t_s.push(t);
        fs.flow.push(f as u32);
        fs.cwnd.push(s.cwnd);
        fs.ssthresh
            .push((s.ssthresh < u64::MAX / 8).then_some(s.ssthresh));
        fs.srtt_s.push(s.srtt.map(Dur::as_secs_f64));
        fs.rtt_s.push(s.latest_rtt.map(Dur::as_secs_f64));
        fs.rto_s.push(s.rto.as_secs_f64());
        fs.in_flight.push(s.in_flight);
        fs.delivered.push(fl.rcv.rcv_nxt());
        fs.pacing_rate_bps
            .push(s.pacing_rate.map(|r| r as f64 * 8.0));
        fs.state.push(s.state);
        let tr = &mut self.res.cc_trace;
        fl.snd.controller().trace(&mut |k, v| {
            tr.t_s.push(t);
            tr.flow.push(f as u32);
            tr.key.push(k);
            tr.value.push(v);
        });
    }

    fn sample(&mut self) {
        for f in 0..self.flows.len() {
            if self.flows[f].started && !self.flows[f].finished {
                self.sample_flow(f);
            }
        }
        let t = self.now.as_secs_f64();
        for d in 0..self.links.len() {
            let (qp, qb) = self.links[d].queue_len(self.now);
            let c = *self.links[d].counters();
            let ls = &mut self.res.link_series;
            ls.t_s.push(t);
            ls.link.push((d / 2) as u32);
            ls.direction.push(if d % 2 == 0 { "fwd" } else { "rev" });
            ls.queue_pkts.push(qp);
            ls.queue_bytes.push(qb);
            ls.delivered_bytes.push(c.delivered_bytes);
            ls.dropped_queue.push(c.dropped_queue);
            ls.dropped_loss.push(c.dropped_loss);
            ls.dropped_down.push(c.dropped_down);
        }
    }

    /// No data lost silently: what the receiver delivered must match what was sent.
    fn check_end(&self) -> Result<(), SimError> {
        for fl in &self.flows {
            let delivered = fl.rcv.rcv_nxt();
            let flow = fl.snd.flow();
            if delivered > fl.snd.snd_max() {
                return Err(self.violation(Violation::DeliveredMismatch {
                    flow,
                    delivered,
                    expected: fl.snd.snd_max(),
                }));
            }
            if fl.snd.is_complete() {
                let expected = fl.snd.app_bytes().unwrap_or(0);
                if delivered != expected {
                    return Err(self.violation(Violation::DeliveredMismatch {
                        flow,
                        delivered,
                        expected,
                    }));
                }
            }
        }
        Ok(())
    }

    fn collect(&mut self) {
        let end = self.now;
        let r = &mut self.res.flows;
        for (i, (fl, spec)) in self.flows.iter().zip(&self.sc.flows).enumerate() {
            let s = fl.snd.stats();
            let rs = fl.rcv.stats();
            let start = Time::ZERO + spec.start;
            let done_at = rs.completed_at.or(s.acked_all_at);
            let completed = fl.snd.is_complete();
            let until = if completed {
                done_at.unwrap_or(end)
            } else {
                end
            };
            let secs = (until - start).as_secs_f64();
            let delivered = fl.rcv.rcv_nxt();
            r.flow.push(i as u32);
            r.name.push(spec.name.clone());
            r.cc.push(spec.cc.clone());
            r.recovery.push(
                match spec.sender.recovery {
                    RecoveryMode::Reno => "reno",
                    RecoveryMode::NewReno => "newreno",
                    RecoveryMode::Sack => "sack",
                }
                .to_string(),
            );
            r.bytes_target.push(spec.sender.total_bytes);
            r.bytes_delivered.push(delivered);
            r.start_s.push(start.as_secs_f64());
            r.completion_s.push(if completed {
                done_at.map(Time::as_secs_f64)
            } else {
                None
            });
            r.completed.push(completed);
            r.goodput_bps.push(if secs > 0.0 {
                delivered as f64 * 8.0 / secs
            } else {
                0.0
            });
            r.segments_sent.push(s.segments_sent);
            r.retransmitted_segments.push(s.retransmitted_segments);
            r.retransmission_ratio.push(if s.segments_sent > 0 {
                s.retransmitted_segments as f64 / s.segments_sent as f64
            } else {
                0.0
            });
            r.rtos.push(s.rtos);
            r.fast_retransmits.push(s.fast_retransmits);
            r.tlp_probes.push(s.tlp_probes);
            r.rack_lost.push(s.rack_lost);
            r.rtt_min_s.push(s.rtt_min.map(Dur::as_secs_f64));
            r.rtt_mean_s.push(s.rtt_mean().map(Dur::as_secs_f64));
            r.rtt_max_s.push(s.rtt_max.map(Dur::as_secs_f64));
            r.acks_sent.push(rs.acks_sent);
        }
        let lr = &mut self.res.links;
        for (d, l) in self.links.iter().enumerate() {
            let c = l.counters();
            lr.link.push(self.sc.links[d / 2].name.clone());
            lr.direction.push(if d % 2 == 0 { "fwd" } else { "rev" });
            lr.offered_pkts.push(c.offered_pkts);
            lr.sent_pkts.push(c.sent_pkts);
            lr.sent_bytes.push(c.sent_bytes);
            lr.delivered_pkts.push(c.delivered_pkts);
            lr.dropped_queue.push(c.dropped_queue);
            lr.dropped_loss.push(c.dropped_loss);
            lr.dropped_down.push(c.dropped_down);
            lr.max_queue_pkts.push(c.max_queue_pkts);
        }
    }
}
