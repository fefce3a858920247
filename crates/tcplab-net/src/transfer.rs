//! One flow through the emulator, end to end in one process: the sender in the emulated
//! namespace, the receiver on the host, the link model between them. The building block
//! of `tcplab compare` (the simulator, the kernel's TCP and tcplab's endpoints over UDP
//! on the same link).

use crate::emu::{EmuConfig, EmuResults, Emulation};
use crate::error::NetError;
use crate::ktcp;
use crate::udp::{self, RecvOptions, SendOptions};
use std::net::{TcpListener, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tcplab_core::Dur;
use tcplab_scenario::{FlowSpec, Table, Trace};

/// Which implementation carries the flow.
#[derive(Clone, Debug)]
pub enum Transport {
    /// The Linux kernel's TCP with `TCP_CONGESTION = cc`.
    Kernel { cc: String },
    /// tcplab's sans-IO endpoints over the UDP driver.
    Udp { flow: Box<FlowSpec> },
}

/// The sender's tables and the link's.
#[derive(Clone, Debug, Default)]
pub struct EmulatedTransfer {
    pub flows: Table,
    pub flow_series: Table,
    pub cc_trace: Trace,
    pub emu: EmuResults,
    /// Receiver-side facts: bytes delivered and (UDP) rejected datagrams.
    pub receiver_bytes: u64,
    pub receiver_rejected: u64,
    /// Ctrl-C (the stop flag) cut the transfers short: the tables hold what they had
    /// done by then.
    pub interrupted: bool,
}

/// How long the path must be quiet before the emulator stops after a transfer.
const QUIET: Duration = Duration::from_millis(200);
/// How often a flow waiting for its start looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(20);

/// One flow of a multi-flow run: what carries it, when it starts, how much it sends.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub transport: Transport,
    pub start: Dur,
    pub bytes: Option<u64>,
    /// Stop writing this long after the start.
    pub duration: Option<Dur>,
}

/// Runs one transfer of `bytes` (or for `duration`) through `cfg`'s link.
pub fn through_emulator(
    cfg: EmuConfig,
    transport: &Transport,
    bytes: Option<u64>,
    duration: Option<Dur>,
    sample: Dur,
) -> Result<EmulatedTransfer, NetError> {
    let plan = FlowPlan {
        transport: transport.clone(),
        start: Dur::ZERO,
        bytes,
        duration,
    };
    flows_through_emulator(cfg, &[plan], sample, None)
}

/// Runs several flows at once through `cfg`'s link, each starting at its own time (on
/// its own sender thread in the namespace and receiver thread on the host). Flow `i`'s
/// rows carry `flow = i`, and its series are on the emulation's clock.
///
/// Once `stop` is set (Ctrl-C), flows not yet started never start, running ones are
/// cut short within tens of milliseconds (senders and receivers look at the flag, a
/// blocked kernel-TCP write is freed by shutting its socket down), the link stops at
/// once, and the result holds what was done, marked `interrupted`.
pub fn flows_through_emulator(
    cfg: EmuConfig,
    plans: &[FlowPlan],
    sample: Dur,
    stop: Option<Arc<AtomicBool>>,
) -> Result<EmulatedTransfer, NetError> {
    let stopped = || stop.as_deref().is_some_and(|s| s.load(Ordering::Relaxed));
    let emu = Emulation::start(cfg)?;
    let t0 = std::time::Instant::now();
    let runs: Vec<Result<Option<EmulatedTransfer>, NetError>> = std::thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .map(|p| {
                let emu = &emu;
                let stop = stop.clone();
                s.spawn(move || {
                    let start = Duration::from_nanos(p.start.as_nanos());
                    while t0.elapsed() < start {
                        if stop.as_deref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                            return Ok(None);
                        }
                        std::thread::sleep((start - t0.elapsed().min(start)).min(STOP_POLL));
                    }
                    one_flow(emu, p, sample, plans.len() == 1, stop).map(Some)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(NetError::Protocol("a flow thread panicked".into())))
            })
            .collect()
    });
    let mut out = EmulatedTransfer {
        interrupted: stopped(),
        ..EmulatedTransfer::default()
    };
    for (i, (r, p)) in runs.into_iter().zip(plans).enumerate() {
        let Some(r) = r? else {
            continue; // Ctrl-C before its start
        };
        let off = p.start.as_secs_f64();
        let i = i as u32;
        merge_flow(&mut out, r, i, off);
    }
    out.emu = if out.interrupted {
        emu.stop()?
    } else {
        emu.stop_when_idle(QUIET, Duration::from_secs(2))?
    };
    Ok(out)
}

/// Appends flow `i`'s tables to `out`, shifting its times by `off` seconds.
fn merge_flow(out: &mut EmulatedTransfer, r: EmulatedTransfer, i: u32, off: f64) {
    crate::rows::append_flow(&mut out.flows, &r.flows, i, off);
    crate::rows::append_flow(&mut out.flow_series, &r.flow_series, i, off);
    let c = r.cc_trace;
    out.cc_trace.t_s.extend(c.t_s.iter().map(|t| t + off));
    out.cc_trace.flow.extend(c.flow.iter().map(|_| i));
    out.cc_trace.key.extend(c.key);
    out.cc_trace.value.extend(c.value);
    out.receiver_bytes += r.receiver_bytes;
    out.receiver_rejected += r.receiver_rejected;
}

/// One flow: receiver on the host, sender in the namespace.
/// `alone`: the only flow in the namespace (its TcpExt counters are its own).
fn one_flow(
    emu: &Emulation,
    p: &FlowPlan,
    sample: Dur,
    alone: bool,
    stop: Option<Arc<AtomicBool>>,
) -> Result<EmulatedTransfer, NetError> {
    let stopped = || stop.as_deref().is_some_and(|s| s.load(Ordering::Relaxed));
    let host = emu.host_addr();
    let (bytes, duration) = (p.bytes, p.duration);
    let mut out = EmulatedTransfer::default();
    match &p.transport {
        Transport::Kernel { cc } => {
            let l = TcpListener::bind((host, 0)).map_err(|e| NetError::io("binding", e))?;
            let to = l.local_addr().map_err(|e| NetError::io("binding", e))?;
            let (snd, rcv) = std::thread::scope(|s| {
                let r =
                    s.spawn(|| ktcp::receive_until(&l, Duration::from_secs(30), stop.as_deref()));
                let snd = emu.ns().run_in(|| {
                    ktcp::send(&ktcp::SendConfig {
                        to,
                        cc: cc.clone(),
                        bytes,
                        duration,
                        sample: Some(sample),
                        name: format!("linux-{cc}"),
                        key: 0x6b74_6370,
                        ns_exclusive: alone,
                        stop: stop.clone(),
                    })
                });
                (snd, r.join())
            });
            let snd = match snd.map_err(|e| NetError::io("entering the namespace", e))? {
                Ok(s) => s,
                Err(_) if stopped() => return Ok(out), // cut short before it had a report
                Err(e) => return Err(e),
            };
            let rcv = rcv.map_err(|_| NetError::Protocol("receiver thread panicked".into()))?;
            // Cut short, the receiver may have had nothing to report.
            let rcv_bytes = match rcv {
                Ok(r) => r.bytes,
                Err(_) if stopped() => 0,
                Err(e) => return Err(e),
            };
            out.flows = snd.flows;
            out.flow_series = snd.flow_series;
            out.receiver_bytes = rcv_bytes;
        }
        Transport::Udp { flow } => {
            let sock = UdpSocket::bind((host, 0)).map_err(|e| NetError::io("binding", e))?;
            let to = sock.local_addr().map_err(|e| NetError::io("binding", e))?;
            let mut f = (**flow).clone();
            f.bytes = bytes;
            let tcp = f.tcp_mut().ok_or_else(|| {
                NetError::Protocol(
                    "a transfer through the emulator runs TCP flows (for other transports \
                     use tcplab send --transport inside tcplab emulate)"
                        .into(),
                )
            })?;
            tcp.sender.total_bytes = bytes;
            tcp.receiver.total_bytes = bytes;
            let ro = RecvOptions {
                receiver: tcp.receiver.clone(),
                listen_timeout: Some(Dur::from_secs(10)),
                realtime: true,
                stop: stop.clone(),
                ..RecvOptions::default()
            };
            let mut so = SendOptions::new(to, f);
            so.duration = duration;
            so.sample = Some(sample);
            so.realtime = true;
            so.stop = stop.clone();
            let (snd, rcv) = std::thread::scope(|s| {
                let r = s.spawn(|| udp::receive_on(sock, &ro));
                let snd = emu.ns().run_in(|| udp::send(&so));
                (snd, r.join())
            });
            let snd = match snd.map_err(|e| NetError::io("entering the namespace", e))? {
                Ok(s) => s,
                Err(_) if stopped() => return Ok(out), // cut short before it had a report
                Err(e) => return Err(e),
            };
            let rcv = rcv.map_err(|_| NetError::Protocol("receiver thread panicked".into()))?;
            let rcv = match rcv {
                Ok(r) => Some(r),
                Err(_) if stopped() => None,
                Err(e) => return Err(e),
            };
            out.flows = snd.results.flows;
            out.flow_series = snd.results.flow_series;
            out.cc_trace = snd.results.cc_trace;
            out.receiver_bytes = rcv.as_ref().map_or(0, |r| r.delivered);
            out.receiver_rejected = rcv.as_ref().map_or(0, |r| r.counters.rejected());
        }
    }
    Ok(out)
}
