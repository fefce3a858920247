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
use tcplab_sim::{CcTrace, FlowRows, FlowSeries, FlowSpec};

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
    pub flows: FlowRows,
    pub flow_series: FlowSeries,
    pub cc_trace: CcTrace,
    pub emu: EmuResults,
    /// Receiver-side facts: bytes delivered and (UDP) rejected datagrams.
    pub receiver_bytes: u64,
    pub receiver_rejected: u64,
}

/// How long the path must be quiet before the emulator stops after a transfer.
const QUIET: Duration = Duration::from_millis(200);

/// Runs one transfer of `bytes` (or for `duration`) through `cfg`'s link.
pub fn through_emulator(
    cfg: EmuConfig,
    transport: &Transport,
    bytes: Option<u64>,
    duration: Option<Dur>,
    sample: Dur,
) -> Result<EmulatedTransfer, NetError> {
    let emu = Emulation::start(cfg)?;
    let host = emu.host_addr();
    let mut out = EmulatedTransfer::default();
    match transport {
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
                        ns_exclusive: true,
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
            f.sender.total_bytes = bytes;
            f.receiver.total_bytes = bytes;
            let ro = RecvOptions {
                receiver: f.receiver.clone(),
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
    out.emu = emu.stop_when_idle(QUIET, Duration::from_secs(2))?;
    Ok(out)
}
