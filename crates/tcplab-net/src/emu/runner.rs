//! The packet loop: both TUN devices in, the link model in the middle, both out, on the
//! wall clock.
//!
//! One thread, one `epoll` set (mio) with four sources: the two TUN devices, a `timerfd`
//! armed at the model's next departure, schedule change or sample, and a waker for
//! `stop`. Each wake-up first writes out what the model says has arrived, applies due
//! link changes, then reads everything waiting (each packet admitted at its own clock
//! reading). Departures are collected with `poll_transmit(due)` at the exact time the
//! model scheduled them, so the log records each packet's lateness against the model.

use super::buffer::{Buf, BufPool};
use super::capture::Capture;
use super::config::EmuConfig;
use super::log::{LatenessHistogram, PacketEvent, PacketFacts, PacketLog};
use super::net::EmuNet;
use super::results::{fill_lateness, link_rows, sample_links, EmuInfo, EmuResults};
use crate::error::NetError;
use crate::sys::clock::Clock;
use crate::sys::netns::NetNs;
use crate::sys::sched;
use crate::sys::timer::TimerFd;
use crate::sys::tun::Tun;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tcplab_core::{Rng, Time};
use tcplab_link::{Admit, Link};
use tcplab_scenario::Sampling;

const TUN_TOKENS: [Token; 2] = [Token(0), Token(1)];
const TIMER: Token = Token(2);
const WAKE: Token = Token(3);
/// Packets read from one device before the loop looks at its timers again.
const READ_BUDGET: usize = 128;

/// The master seed of replication 0 of `seed`, as the simulator derives it, so a link
/// draws the same losses and jitter in emulation as in simulation with the same seed.
/// (A copy of `tcplab_scenario`'s private `master_seed`.)
fn master_seed(seed: u64) -> u64 {
    Rng::named(seed, "replication").next_u64() ^ seed
}

/// A running emulator. Threads and commands started in [`Emulation::ns`] reach the host
/// at [`Emulation::host_addr`] through the link model.
pub struct Emulation {
    ns: NetNs,
    host_addr: Ipv4Addr,
    ns_addr: Ipv4Addr,
    waker: Arc<Waker>,
    stop: Arc<StopRequest>,
    thread: Option<JoinHandle<Result<EmuResults, NetError>>>,
}

impl Emulation {
    /// Creates the namespace and devices and starts the packet loop.
    pub fn start(cfg: EmuConfig) -> Result<Emulation, NetError> {
        let net = EmuNet::create(cfg.mtu, cfg.tcp_ecn)?;
        let EmuNet {
            ns,
            host_addr,
            ns_addr,
            host_tun,
            ns_tun,
        } = net;
        let poll = Poll::new().map_err(|e| NetError::io("epoll", e))?;
        let waker =
            Arc::new(Waker::new(poll.registry(), WAKE).map_err(|e| NetError::io("eventfd", e))?);
        let stop = Arc::new(StopRequest::default());
        let stop_loop = stop.clone();
        let (ready_tx, ready_rx) = mpsc::channel();
        let names = (host_tun.name().to_string(), super::net::NS_IF.to_string());
        let thread = std::thread::Builder::new()
            .name("tcplab-emu".into())
            .spawn(move || {
                let mut lp = Loop::new(cfg, poll, [ns_tun, host_tun], ready_tx, stop_loop)?;
                lp.info.host_if = names.0;
                lp.info.ns_if = names.1;
                lp.info.host_addr = host_addr.to_string();
                lp.info.ns_addr = ns_addr.to_string();
                lp.run()
            })
            .map_err(|e| NetError::io("starting the emulator thread", e))?;
        // Wait until the loop is polling; if it failed to start, report why.
        if ready_rx.recv().is_err() {
            return Err(match thread.join() {
                Ok(Err(e)) => e,
                Ok(Ok(_)) => NetError::Protocol("emulator loop ended before it started".into()),
                Err(_) => NetError::Protocol("emulator thread panicked while starting".into()),
            });
        }
        Ok(Emulation {
            ns,
            host_addr,
            ns_addr,
            waker,
            stop,
            thread: Some(thread),
        })
    }

    /// The host's address as seen from the namespace.
    pub fn host_addr(&self) -> Ipv4Addr {
        self.host_addr
    }

    /// The namespace's address as seen from the host.
    pub fn ns_addr(&self) -> Ipv4Addr {
        self.ns_addr
    }

    /// The namespace the emulated path starts in.
    pub fn ns(&self) -> &NetNs {
        &self.ns
    }

    /// Stops the loop at once and returns what it recorded.
    pub fn stop(mut self) -> Result<EmuResults, NetError> {
        self.finish(Duration::ZERO, Duration::ZERO)
    }

    /// Stops once the path has been quiet for `idle` (both link directions empty and no
    /// packet read), or after `max` at the latest: a command that exits leaves data in
    /// its sockets that the kernel still sends through the link.
    pub fn stop_when_idle(mut self, idle: Duration, max: Duration) -> Result<EmuResults, NetError> {
        self.finish(idle, max)
    }

    fn finish(&mut self, idle: Duration, max: Duration) -> Result<EmuResults, NetError> {
        let Some(t) = self.thread.take() else {
            return Err(NetError::Protocol("emulator already stopped".into()));
        };
        self.stop
            .idle_ns
            .store(idle.as_nanos() as u64, Ordering::SeqCst);
        self.stop
            .max_ns
            .store(max.as_nanos() as u64, Ordering::SeqCst);
        self.waker
            .wake()
            .map_err(|e| NetError::io("waking the emulator", e))?;
        t.join()
            .map_err(|_| NetError::Protocol("the emulator thread panicked".into()))?
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.finish(Duration::ZERO, Duration::ZERO);
        }
    }
}

/// How the loop should stop once woken by `stop`.
#[derive(Default)]
struct StopRequest {
    idle_ns: AtomicU64,
    max_ns: AtomicU64,
}

/// A stop that waits for the path to go quiet.
struct Draining {
    idle: tcplab_core::Dur,
    deadline: Time,
}

struct Loop {
    cfg: EmuConfig,
    stop: Arc<StopRequest>,
    draining: Option<Draining>,
    /// Last packet read or written.
    last_activity: Time,
    poll: Poll,
    /// [namespace side, host side]: direction `d` reads `tuns[d]` and writes `tuns[1-d]`.
    tuns: [Tun; 2],
    links: [Link<Buf>; 2],
    pool: BufPool,
    timer: TimerFd,
    clock: Clock,
    ready: Option<mpsc::Sender<()>>,
    /// Devices that may still hold packets (edge-triggered readiness not yet drained).
    readable: [bool; 2],
    next_change: usize,
    next_sample: Option<Time>,
    last_admit: Time,
    log: PacketLog,
    capture: Option<Capture>,
    /// Writing the capture failed (reported when the emulator stops).
    capture_error: Option<NetError>,
    /// Per direction, the drops the log accounts for (see `collect_drops`).
    accounted: [tcplab_link::LinkCounters; 2],
    late: LatenessHistogram,
    series: tcplab_scenario::Table,
    info: EmuInfo,
}

impl Loop {
    fn new(
        cfg: EmuConfig,
        poll: Poll,
        tuns: [Tun; 2],
        ready: mpsc::Sender<()>,
        stop: Arc<StopRequest>,
    ) -> Result<Loop, NetError> {
        let timer = TimerFd::new().map_err(|e| NetError::io("timerfd", e))?;
        for (tok, fd) in [
            (TUN_TOKENS[0], tuns[0].as_raw_fd()),
            (TUN_TOKENS[1], tuns[1].as_raw_fd()),
            (TIMER, timer.as_raw_fd()),
        ] {
            poll.registry()
                .register(&mut SourceFd(&fd), tok, Interest::READABLE)
                .map_err(|e| NetError::io("epoll_ctl", e))?;
        }
        let spec = &cfg.scenario.links[0];
        let master = master_seed(cfg.seed);
        let links = [
            Link::new(
                spec.fwd.clone(),
                Rng::named_parts(master, &["link.", &spec.name, ".fwd"]),
            ),
            Link::new(
                spec.rev.clone(),
                Rng::named_parts(master, &["link.", &spec.name, ".rev"]),
            ),
        ];
        let next_sample = match cfg.scenario.sampling {
            Sampling::Interval(_) => Some(Time::ZERO),
            _ => None,
        };
        let capture = match &cfg.pcap {
            Some(p) => Some(Capture::create(p, cfg.snaplen, &cfg.scenario.name)?),
            None => None,
        };
        let info = EmuInfo {
            scenario: cfg.scenario.name.clone(),
            seed: cfg.seed,
            ..EmuInfo::default()
        };
        Ok(Loop {
            stop,
            draining: None,
            last_activity: Time::ZERO,
            pool: BufPool::new(cfg.mtu as usize + 64, 512),
            cfg,
            poll,
            tuns,
            links,
            timer,
            clock: Clock::start(),
            ready: Some(ready),
            readable: [true, true],
            next_change: 0,
            next_sample,
            last_admit: Time::ZERO,
            log: PacketLog::default(),
            capture,
            capture_error: None,
            accounted: Default::default(),
            late: LatenessHistogram::default(),
            series: tcplab_scenario::Table::default(),
            info,
        })
    }

    fn run(&mut self) -> Result<EmuResults, NetError> {
        sched::tighten_timer_slack();
        self.info.realtime = self.cfg.realtime && sched::try_realtime(20);
        self.clock = Clock::start();
        let mut events = Events::with_capacity(16);
        if let Some(r) = self.ready.take() {
            let _ = r.send(());
        }
        let mut stop = false;
        let mut stop_asked = false;
        while !stop {
            self.arm_timer()?;
            let busy = self.readable.iter().any(|&r| r);
            let timeout = busy.then_some(Duration::ZERO);
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(NetError::io("epoll_wait", e));
                }
            }
            for ev in events.iter() {
                match ev.token() {
                    WAKE => stop_asked = true,
                    TIMER => self.timer.clear(),
                    t if t == TUN_TOKENS[0] => self.readable[0] = true,
                    t if t == TUN_TOKENS[1] => self.readable[1] = true,
                    _ => {}
                }
            }
            let now = self.clock.now();
            self.depart(now);
            self.apply_changes(now);
            self.sample(now);
            for d in 0..2 {
                if self.readable[d] {
                    self.read(d)?;
                }
            }
            let now = self.clock.now();
            self.depart(now);
            if stop_asked {
                stop_asked = false;
                let idle = tcplab_core::Dur(self.stop.idle_ns.load(Ordering::SeqCst));
                let max = tcplab_core::Dur(self.stop.max_ns.load(Ordering::SeqCst));
                self.draining = Some(Draining {
                    idle,
                    deadline: now + max,
                });
            }
            if let Some(d) = &self.draining {
                let quiet = self.links.iter().all(|l| l.poll_timeout().is_none())
                    && now.saturating_since(self.last_activity) >= d.idle;
                stop = quiet || now >= d.deadline;
            }
        }
        if let Some(c) = self.capture.take() {
            let done = c.finish();
            if let Some(e) = self.capture_error.take() {
                return Err(e);
            }
            done?;
        }
        Ok(self.results())
    }

    /// Writes out every packet the model has delivered by `now`.
    fn depart(&mut self, now: Time) {
        for d in 0..2 {
            while let Some(due) = self.links[d].poll_timeout() {
                if due > now {
                    break;
                }
                // Collected at its own scheduled time: `due` is exactly its arrival.
                let Some(b) = self.links[d].poll_transmit(due) else {
                    continue; // a packet the channel lost: it only held the FIFO's head
                };
                let t = self.clock.now();
                self.last_activity = t;
                let late = t.saturating_since(due).as_nanos();
                let ev = match self.tuns[1 - d].send(b.bytes()) {
                    Ok(()) => {
                        self.late.add(late);
                        if let Some(c) = &mut self.capture {
                            if let Err(e) = c.packet(d, t.0, b.bytes()) {
                                self.capture_error.get_or_insert(e);
                            }
                        }
                        PacketEvent::Depart
                    }
                    Err(_) => PacketEvent::DropWrite,
                };
                if self.cfg.packet_log {
                    let delay = t.saturating_since(b.arrived).as_nanos();
                    let facts = PacketFacts::of(b.bytes());
                    self.log.push(t.0, d as u8, ev, facts, delay, late);
                }
                self.pool.put(b);
            }
            if self.links[d].has_dropped() {
                self.collect_drops(d, now);
            }
        }
    }

    /// Logs and recycles the packets direction `d`'s link dropped after admitting them:
    /// a discipline's drops (at dequeue, or FQ-CoDel's to make room), losses on the wire
    /// on a discipline's path, packets in flight when the link went down. The counters
    /// say how many of each cause since the last look, and the log names them in that
    /// order; a packet lost to an outage that the link does not hand back is logged
    /// with no size.
    fn collect_drops(&mut self, d: usize, t: Time) {
        let c = self.links[d].counters();
        let seen = std::mem::replace(&mut self.accounted[d], c);
        let mut queue = c.dropped_queue - seen.dropped_queue;
        let mut loss = c.dropped_loss - seen.dropped_loss;
        let mut down = c.dropped_down - seen.dropped_down;
        while let Some(b) = self.links[d].poll_dropped() {
            let ev = if queue > 0 {
                queue -= 1;
                PacketEvent::DropQueue
            } else if loss > 0 {
                loss -= 1;
                PacketEvent::DropLoss
            } else {
                down = down.saturating_sub(1);
                PacketEvent::DropDown
            };
            if self.cfg.packet_log {
                self.log
                    .push(t.0, d as u8, ev, PacketFacts::of(b.bytes()), 0, 0);
            }
            self.pool.put(b);
        }
        if self.cfg.packet_log {
            for _ in 0..down {
                self.log
                    .push(t.0, d as u8, PacketEvent::DropDown, PacketFacts::GONE, 0, 0);
            }
        }
    }

    /// Reads up to a budget of packets from device `d` into direction `d`.
    fn read(&mut self, d: usize) -> Result<(), NetError> {
        for _ in 0..READ_BUDGET {
            let mut data = self.pool.take();
            let n = match self.tuns[d].recv(&mut data) {
                Ok(Some(n)) => n,
                Ok(None) => {
                    self.pool.put_raw(data);
                    self.readable[d] = false;
                    return Ok(());
                }
                Err(e) => {
                    self.pool.put_raw(data);
                    return Err(NetError::io(
                        format!("reading from {}", ["tcplab0", "the host TUN"][d]),
                        e,
                    ));
                }
            };
            let now = self.clock.now().max(self.last_admit);
            self.last_admit = now;
            self.last_activity = now;
            let facts = PacketFacts::of(&data[..n]);
            let buf = self.pool.fill(data, n, now);
            let fate = self.links[d].handle_packet(now, buf);
            // A refusal is logged here; what the link drops after admitting is
            // collected below.
            let a = &mut self.accounted[d];
            match fate {
                Admit::Queued => {}
                Admit::DroppedQueue => a.dropped_queue += 1,
                Admit::DroppedLoss => a.dropped_loss += 1,
                Admit::DroppedDown => a.dropped_down += 1,
            }
            if self.cfg.packet_log {
                self.log
                    .push(now.0, d as u8, PacketEvent::Arrive, facts, 0, 0);
                let drop = match fate {
                    Admit::Queued => None,
                    Admit::DroppedQueue => Some(PacketEvent::DropQueue),
                    Admit::DroppedLoss => Some(PacketEvent::DropLoss),
                    Admit::DroppedDown => Some(PacketEvent::DropDown),
                };
                if let Some(ev) = drop {
                    self.log.push(now.0, d as u8, ev, facts, 0, 0);
                }
            }
            if self.links[d].has_dropped() {
                self.collect_drops(d, now);
            }
        }
        Ok(())
    }

    /// Applies the schedule's changes that are due (outages, rate steps, handovers).
    fn apply_changes(&mut self, now: Time) {
        while let Some(c) = self.cfg.scenario.links[0]
            .schedule
            .get(self.next_change)
            .cloned()
        {
            let at = Time::ZERO + c.at;
            if at > now {
                break;
            }
            // Never before a packet already admitted: the model's clock only moves forward.
            let t = at.max(self.last_admit);
            for (d, p) in [c.fwd, c.rev].into_iter().enumerate() {
                self.links[d].set_params(t, p);
                self.collect_drops(d, t);
            }
            self.next_change += 1;
        }
    }

    fn sample(&mut self, now: Time) {
        let Sampling::Interval(every) = self.cfg.scenario.sampling else {
            return;
        };
        while let Some(t) = self.next_sample {
            if t > now {
                break;
            }
            sample_links(
                &mut self.series,
                &self.cfg.scenario.links[0].name,
                t.as_secs_f64(),
                &mut self.links,
                t.0,
            );
            self.next_sample = Some(t + every);
        }
        for d in 0..2 {
            if self.links[d].has_dropped() {
                self.collect_drops(d, now);
            }
        }
    }

    /// Arms the timer at the earliest of the next departure, change and sample.
    fn arm_timer(&mut self) -> Result<(), NetError> {
        let spec = &self.cfg.scenario.links[0];
        let mut next = None::<Time>;
        let mut consider = |t: Option<Time>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        consider(self.links[0].poll_timeout());
        consider(self.links[1].poll_timeout());
        consider(
            spec.schedule
                .get(self.next_change)
                .map(|c| Time::ZERO + c.at),
        );
        consider(self.next_sample);
        if let Some(d) = &self.draining {
            consider(Some(d.deadline));
            consider(Some(self.last_activity + d.idle));
        }
        self.timer
            .set(next.map(|t| self.clock.to_monotonic_ns(t)))
            .map_err(|e| NetError::io("arming the emulator timer", e))
    }

    fn results(&mut self) -> EmuResults {
        let now = self.clock.now();
        if matches!(self.cfg.scenario.sampling, Sampling::Interval(_)) {
            sample_links(
                &mut self.series,
                &self.cfg.scenario.links[0].name,
                now.as_secs_f64(),
                &mut self.links,
                now.0,
            );
        }
        let mut info = std::mem::take(&mut self.info);
        info.duration_s = now.as_secs_f64();
        info.cpu_s = crate::sys::clock::thread_cpu_s();
        for d in 0..2 {
            let c = self.links[d].counters();
            info.in_flight_at_end[d] = c.offered_pkts
                - c.delivered_pkts
                - c.dropped_queue
                - c.dropped_loss
                - c.dropped_down;
        }
        fill_lateness(&mut info, &self.late);
        let name = self.cfg.scenario.links[0].name.clone();
        EmuResults {
            info,
            links: link_rows(&name, &self.links),
            link_series: std::mem::take(&mut self.series),
            packets: std::mem::take(&mut self.log),
        }
    }
}
