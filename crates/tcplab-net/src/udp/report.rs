//! `send` and `receive`: run a session over a socket and report it in the simulator's
//! tables.

use super::counters::InputCounters;
use super::driver::{self, LoopStats};
use super::receiver_session::ReceiverSession;
use super::sender_session::{PeerReport, SenderSession};
use super::SessionState;
use crate::emu::LatenessHistogram;
use crate::error::NetError;
use crate::rows::{FlowRow, FlowSample};
use crate::sys::clock::Clock;
use crate::wire::{COMMON_HEADER, DATA_HEADER_WITH_TS};
use std::net::{SocketAddr, UdpSocket};
use tcplab_core::{Dur, Time};
use tcplab_sim::{
    parse_scenario_table, CcTrace, ConfigError, FlowRows, FlowSeries, FlowSpec, Results, RunInfo,
};
use tcplab_transport::cc::{self, CongestionControl};
use tcplab_transport::{ReceiverConfig, ReceiverStats, RecoveryMode, DATA_HEADER_BYTES};

/// IPv4 (20) + UDP (8) + tcplab data header with timestamps (42) bytes per segment.
pub const UDP_OVERHEAD: u32 = 28 + DATA_HEADER_WITH_TS as u32;
/// Largest datagram the receive buffers take whole (IPv4's UDP maximum).
const MAX_DATAGRAM: usize = 65_507;
const _: () = assert!(COMMON_HEADER < DATA_HEADER_WITH_TS);

/// A flow as the simulator would run it, from one `[[flow]]` table (the same keys,
/// defaults and errors). Its MSS is reduced by the UDP driver's extra header bytes
/// (`UDP_OVERHEAD` − 40), so each data segment is as long on the wire as the simulated
/// TCP segment with the same settings.
pub fn flow_spec(flow: &toml::Table, source: &str) -> Result<FlowSpec, ConfigError> {
    let mut t = toml::Table::new();
    let mut link = toml::Table::new();
    link.insert("rate".into(), toml::Value::String("1Gbps".into()));
    t.insert("link".into(), toml::Value::Table(link));
    t.insert("duration".into(), toml::Value::String("1s".into()));
    t.insert(
        "flow".into(),
        toml::Value::Array(vec![toml::Value::Table(flow.clone())]),
    );
    let sc = parse_scenario_table(&t, source)?;
    let f = sc.flows.into_iter().next().expect("one flow parsed");
    for_udp(f, source)
}

/// A simulator flow adapted to the UDP driver: the MSS shrinks by the driver's extra
/// header bytes so data segments keep their length on the wire.
pub fn for_udp(mut f: FlowSpec, source: &str) -> Result<FlowSpec, ConfigError> {
    let extra = UDP_OVERHEAD - DATA_HEADER_BYTES;
    if f.sender.mss <= extra {
        return Err(ConfigError {
            file: source.into(),
            key: "flow.mss".into(),
            value: f.sender.mss.to_string(),
            why: format!("the UDP driver needs an MSS above {extra} bytes"),
        });
    }
    f.sender.mss -= extra;
    f.receiver.mss = f.sender.mss;
    Ok(f)
}

/// How to run a sender.
#[derive(Clone, Debug)]
pub struct SendOptions {
    pub to: SocketAddr,
    pub flow: FlowSpec,
    /// Stop writing after this long (for `bytes = "unlimited"` flows).
    pub duration: Option<Dur>,
    /// Flow-series sampling interval (`None`: no series).
    pub sample: Option<Dur>,
    /// Connection id; random when `None`.
    pub conn: Option<u64>,
    /// How long to wait for the receiver's answer to HELLO (and CLOSE).
    pub connect_timeout: Dur,
    /// Run the event loop at `SCHED_FIFO` priority when permitted (precise timers on a
    /// busy machine; a CPU-bound sender then holds one core).
    pub realtime: bool,
}

impl SendOptions {
    pub fn new(to: SocketAddr, flow: FlowSpec) -> SendOptions {
        SendOptions {
            to,
            flow,
            duration: None,
            sample: Some(Dur::from_millis(10)),
            conn: None,
            connect_timeout: super::sender_session::CONTROL_TIMEOUT,
            realtime: false,
        }
    }
}

/// A finished transfer, from the sender's side.
#[derive(Clone, Debug)]
pub struct SendOutcome {
    /// `flows`, `flow_series` and `cc_trace` as a simulation fills them.
    pub results: Results,
    pub counters: InputCounters,
    pub loop_stats: LoopStats,
    /// Timer wake-up lateness against the armed deadline.
    pub timer: LatenessHistogram,
    pub peer: PeerReport,
    pub wall_s: f64,
    pub datagrams_sent: u64,
}

/// Runs the event loop on its own thread, so a real-time policy never sticks to the
/// caller's thread (e.g. Python's main thread).
fn on_driver_thread<T: Send>(realtime: bool, f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(move || {
            if realtime {
                crate::sys::sched::try_realtime(10);
            }
            f()
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

fn random_conn() -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: getrandom writes at most 8 bytes into `b`.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), 8, 0) };
    let v = u64::from_ne_bytes(b);
    if n == 8 && v != 0 {
        v
    } else {
        crate::sys::clock::realtime_ns() | 1
    }
}

/// Sends one flow to a `receive`r at `opts.to` from an ephemeral port.
pub fn send(opts: &SendOptions) -> Result<SendOutcome, NetError> {
    let sock = UdpSocket::bind("0.0.0.0:0").map_err(|e| NetError::io("binding a UDP socket", e))?;
    send_from(sock, opts)
}

/// Sends one flow from `sock`.
pub fn send_from(sock: UdpSocket, opts: &SendOptions) -> Result<SendOutcome, NetError> {
    let f = &opts.flow;
    if f.sender.total_bytes.is_none() && opts.duration.is_none() {
        return Err(NetError::Protocol(
            "an unlimited flow needs a duration (--time)".into(),
        ));
    }
    let controller = cc::build(&f.cc, &f.cc_params).map_err(|why| {
        NetError::Config(ConfigError {
            file: String::new(),
            key: "flow.cc".into(),
            value: f.cc.clone(),
            why,
        })
    })?;
    let clock = Clock::start();
    let conn = opts.conn.unwrap_or_else(random_conn);
    let mut sess = SenderSession::new(clock.now(), opts.to, conn, f.sender.clone(), controller)
        .with_control_timeout(clock.now(), opts.connect_timeout);
    let mut series = FlowSeries::default();
    let mut trace = CcTrace::default();
    let mut next_sample: Option<Time> = None;
    let mut stopped = false;
    let mut timer = LatenessHistogram::default();
    let max_dgram = (f.sender.mss as usize + DATA_HEADER_WITH_TS).max(256);
    let t0 = std::time::Instant::now();
    let mut tick = |s: &mut SenderSession, now: Time| -> Option<Time> {
        let start = s.started_at()?;
        let mut next = None;
        if let Some(d) = opts.duration {
            if !stopped && now >= start + d {
                s.stop(now);
                stopped = true;
            }
            if !stopped {
                next = Some(start + d);
            }
        }
        if let Some(every) = opts.sample {
            let at = next_sample.get_or_insert(start);
            if now >= *at && !s.sender().is_complete() {
                sample(
                    s,
                    now.saturating_since(start).as_secs_f64(),
                    &mut series,
                    &mut trace,
                );
                *at = now + every;
            }
            next = Some(next.map_or(*at, |n: Time| n.min(*at)));
        }
        next
    };
    let st = on_driver_thread(opts.realtime, || {
        driver::run(
            &sock,
            &mut sess,
            &clock,
            max_dgram.max(4096),
            &mut tick,
            &mut timer,
        )
    })?;
    if let SessionState::Failed(why) = sess.state() {
        return Err(NetError::Protocol(why.clone()));
    }
    let peer = sess.report().unwrap_or_default();
    let start = sess.started_at().unwrap_or(Time::ZERO);
    let mut flows = FlowRows::default();
    row(&sess, f, &peer, start, clock.now()).push_to(&mut flows);
    Ok(SendOutcome {
        results: Results {
            info: RunInfo {
                scenario: f.name.clone(),
                end_time_s: clock.now().saturating_since(start).as_secs_f64(),
                events: st.wakeups,
                packet_hops: st.datagrams_out + st.datagrams_in,
                ..RunInfo::default()
            },
            flows,
            flow_series: series,
            cc_trace: trace,
            ..Results::default()
        },
        counters: *sess.counters(),
        loop_stats: st,
        timer,
        peer,
        wall_s: t0.elapsed().as_secs_f64(),
        datagrams_sent: sess.datagrams_sent(),
    })
}

fn sample(s: &SenderSession, t_s: f64, series: &mut FlowSeries, trace: &mut CcTrace) {
    let snd = s.sender();
    let p = snd.snapshot();
    FlowSample {
        t_s,
        flow: 0,
        cwnd: p.cwnd,
        ssthresh: (p.ssthresh < u64::MAX / 8).then_some(p.ssthresh),
        srtt_s: p.srtt.map(Dur::as_secs_f64),
        rtt_s: p.latest_rtt.map(Dur::as_secs_f64),
        rto_s: p.rto.as_secs_f64(),
        in_flight: p.in_flight,
        // The sender sees cumulative ACKs, not the receiver's reads: acked bytes.
        delivered: p.acked,
        pacing_rate_bps: p.pacing_rate.map(|r| r as f64 * 8.0),
        state: p.state,
    }
    .push_to(series);
    snd.controller().trace(&mut |k, v| {
        trace.t_s.push(t_s);
        trace.flow.push(0);
        trace.key.push(k);
        trace.value.push(v);
    });
}

fn recovery_name(m: RecoveryMode) -> &'static str {
    match m {
        RecoveryMode::Reno => "reno",
        RecoveryMode::NewReno => "newreno",
        RecoveryMode::Sack => "sack",
    }
}

fn row(s: &SenderSession, f: &FlowSpec, peer: &PeerReport, start: Time, end: Time) -> FlowRow {
    let snd = s.sender();
    let st = snd.stats();
    let completed = snd.is_complete();
    let done = st.acked_all_at.filter(|_| completed);
    let until = done.unwrap_or(end);
    let secs = until.saturating_since(start).as_secs_f64();
    FlowRow {
        flow: 0,
        name: f.name.clone(),
        cc: f.cc.clone(),
        recovery: recovery_name(f.sender.recovery).into(),
        bytes_target: f.sender.total_bytes,
        bytes_delivered: peer.delivered,
        start_s: 0.0,
        completion_s: done.map(|t| t.saturating_since(start).as_secs_f64()),
        completed,
        goodput_bps: if secs > 0.0 {
            peer.delivered as f64 * 8.0 / secs
        } else {
            0.0
        },
        segments_sent: st.segments_sent,
        retransmitted_segments: st.retransmitted_segments,
        rtos: st.rtos,
        fast_retransmits: st.fast_retransmits,
        tlp_probes: st.tlp_probes,
        rack_lost: st.rack_lost,
        rtt_min_s: st.rtt_min.map(Dur::as_secs_f64),
        rtt_mean_s: st.rtt_mean().map(Dur::as_secs_f64),
        rtt_max_s: st.rtt_max.map(Dur::as_secs_f64),
        acks_sent: peer.acks_sent,
    }
}

/// How to run a receiver.
#[derive(Clone, Debug)]
pub struct RecvOptions {
    /// ACK policy, SACK and receive buffer (MSS and size come from the sender).
    pub receiver: ReceiverConfig,
    /// Give up if no sender connects within this time (`None`: wait forever).
    pub listen_timeout: Option<Dur>,
    /// Give up on a sender silent this long.
    pub idle_timeout: Dur,
    /// As [`SendOptions::realtime`].
    pub realtime: bool,
}

impl Default for RecvOptions {
    fn default() -> Self {
        RecvOptions {
            receiver: ReceiverConfig::default(),
            listen_timeout: None,
            idle_timeout: super::IDLE_TIMEOUT,
            realtime: false,
        }
    }
}

/// A finished transfer, from the receiver's side.
#[derive(Clone, Debug)]
pub struct RecvOutcome {
    pub peer: SocketAddr,
    pub conn_mss: u32,
    pub delivered: u64,
    pub stats: ReceiverStats,
    /// From the HELLO to the last byte delivered.
    pub duration_s: f64,
    pub goodput_bps: f64,
    pub counters: InputCounters,
    pub loop_stats: LoopStats,
}

/// Binds `listen` and receives one transfer.
pub fn receive(listen: SocketAddr, opts: &RecvOptions) -> Result<RecvOutcome, NetError> {
    let sock = UdpSocket::bind(listen).map_err(|e| NetError::io(format!("binding {listen}"), e))?;
    receive_on(sock, opts)
}

/// Receives one transfer on `sock`.
pub fn receive_on(sock: UdpSocket, opts: &RecvOptions) -> Result<RecvOutcome, NetError> {
    let clock = Clock::start();
    let listen_until = opts.listen_timeout.map(|d| clock.now() + d);
    let mut sess = ReceiverSession::new(opts.receiver.clone(), listen_until, opts.idle_timeout);
    let mut timer = LatenessHistogram::default();
    let st = on_driver_thread(opts.realtime, || {
        driver::run(
            &sock,
            &mut sess,
            &clock,
            MAX_DATAGRAM,
            &mut |_, _| None,
            &mut timer,
        )
    })?;
    if let SessionState::Failed(why) = sess.state() {
        return Err(NetError::Protocol(why.clone()));
    }
    let rcv = sess.receiver().expect("a finished session had a sender");
    let stats = *rcv.stats();
    let start = sess.started_at().unwrap_or(Time::ZERO);
    let end = stats.completed_at.unwrap_or_else(|| clock.now());
    let secs = end.saturating_since(start).as_secs_f64();
    Ok(RecvOutcome {
        peer: sess.peer().expect("a finished session had a sender"),
        conn_mss: sess.mss(),
        delivered: rcv.rcv_nxt(),
        stats,
        duration_s: secs,
        goodput_bps: if secs > 0.0 {
            rcv.rcv_nxt() as f64 * 8.0 / secs
        } else {
            0.0
        },
        counters: *sess.counters(),
        loop_stats: st,
    })
}
