//! One flow through the emulator, end to end in one process: the sender in the emulated
//! namespace, the receiver on the host, the link model between them. The building block
//! of `tcplab compare` (the simulator, the kernel's TCP and tcplab's endpoints over UDP
//! on the same link).

use crate::emu::{EmuConfig, EmuResults, Emulation};
use crate::error::NetError;
use crate::ktcp;
use crate::udp::{self, RecvOptions, SendOptions};
use std::net::{TcpListener, UdpSocket};
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
}

/// How long the path must be quiet before the emulator stops after a transfer.
const QUIET: Duration = Duration::from_millis(200);

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
    flows_through_emulator(cfg, &[plan], sample)
}

/// Runs several flows at once through `cfg`'s link, each starting at its own time (on
/// its own sender thread in the namespace and receiver thread on the host). Flow `i`'s
/// rows carry `flow = i`, and its series are on the emulation's clock.
pub fn flows_through_emulator(
    cfg: EmuConfig,
    plans: &[FlowPlan],
    sample: Dur,
) -> Result<EmulatedTransfer, NetError> {
    let emu = Emulation::start(cfg)?;
    let t0 = std::time::Instant::now();
    let runs: Vec<Result<EmulatedTransfer, NetError>> = std::thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .map(|p| {
                let emu = &emu;
                s.spawn(move || {
                    let wait =
                        Duration::from_nanos(p.start.as_nanos()).saturating_sub(t0.elapsed());
                    std::thread::sleep(wait);
                    one_flow(emu, p, sample, plans.len() == 1)
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
    let mut out = EmulatedTransfer::default();
    for (i, (r, p)) in runs.into_iter().zip(plans).enumerate() {
        let r = r?;
        let off = p.start.as_secs_f64();
        let i = i as u32;
        merge_flow(&mut out, r, i, off);
    }
    out.emu = emu.stop_when_idle(QUIET, Duration::from_secs(2))?;
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
) -> Result<EmulatedTransfer, NetError> {
    let host = emu.host_addr();
    let (bytes, duration) = (p.bytes, p.duration);
    let mut out = EmulatedTransfer::default();
    match &p.transport {
        Transport::Kernel { cc } => {
            let l = TcpListener::bind((host, 0)).map_err(|e| NetError::io("binding", e))?;
            let to = l.local_addr().map_err(|e| NetError::io("binding", e))?;
            let (snd, rcv) = std::thread::scope(|s| {
                let r = s.spawn(|| ktcp::receive(&l, Duration::from_secs(30)));
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
                    })
                });
                (snd, r.join())
            });
            let snd = snd.map_err(|e| NetError::io("entering the namespace", e))??;
            let rcv = rcv.map_err(|_| NetError::Protocol("receiver thread panicked".into()))??;
            out.flows = snd.flows;
            out.flow_series = snd.flow_series;
            out.receiver_bytes = rcv.bytes;
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
                ..RecvOptions::default()
            };
            let mut so = SendOptions::new(to, f);
            so.duration = duration;
            so.sample = Some(sample);
            so.realtime = true;
            let (snd, rcv) = std::thread::scope(|s| {
                let r = s.spawn(|| udp::receive_on(sock, &ro));
                let snd = emu.ns().run_in(|| udp::send(&so));
                (snd, r.join())
            });
            let snd = snd.map_err(|e| NetError::io("entering the namespace", e))??;
            let rcv = rcv.map_err(|_| NetError::Protocol("receiver thread panicked".into()))??;
            out.flows = snd.results.flows;
            out.flow_series = snd.results.flow_series;
            out.cc_trace = snd.results.cc_trace;
            out.receiver_bytes = rcv.delivered;
            out.receiver_rejected = rcv.counters.rejected();
        }
    }
    Ok(out)
}
