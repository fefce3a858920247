//! The sending end: connect with a chosen congestion controller, write the pattern,
//! sample `TCP_INFO`, and learn from the receiver what arrived.

use super::info::{set_congestion, NsCounters, TcpInfo};
use super::{RecvStatus, MAGIC, PREAMBLE, REPLY, UNTIL_CLOSED, VERSION};
use crate::error::NetError;
use crate::payload;
use crate::rows::FlowSample;
use crate::sys::clock::Clock;
use rustix::net::{AddressFamily, SocketFlags, SocketType};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tcplab_core::{Dur, Metrics};
use tcplab_scenario::{goodput_bps, FlowOutcome, Table};
use tcplab_transport::tcp::ACKS_SENT;
use tcplab_transport::{Retransmissions, TcpSummary};

/// Linux's "no slow-start threshold yet".
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

#[derive(Clone, Debug)]
pub struct SendConfig {
    pub to: SocketAddr,
    /// `TCP_CONGESTION` name.
    pub cc: String,
    /// Bytes to send; `None` with `duration` sends until then.
    pub bytes: Option<u64>,
    pub duration: Option<Dur>,
    /// `TCP_INFO` sampling interval (`None`: no series).
    pub sample: Option<Dur>,
    pub name: String,
    /// Payload pattern key.
    pub key: u64,
    /// The sender is alone in its network namespace, so the namespace's TcpExt counters
    /// (fast retransmits, timeouts, loss probes) are its own.
    pub ns_exclusive: bool,
    /// Ctrl-C: once set, the transfer is cut short within [`STOP_POLL`] (the socket is
    /// shut down, which also frees a blocked write) and reported as far as it got.
    pub stop: Option<Arc<AtomicBool>>,
}

/// How often a sender with a stop flag looks at it.
pub const STOP_POLL: Duration = Duration::from_millis(20);

/// The sender's view, in the simulator's table layout.
#[derive(Clone, Debug, Default)]
pub struct SendReport {
    pub flows: Table,
    pub flow_series: Table,
    pub bytes_written: u64,
    pub last_info: TcpInfo,
}

fn sample(info: &TcpInfo, t_s: f64) -> FlowSample {
    FlowSample {
        t_s,
        flow: 0,
        cwnd: info.cwnd_bytes(),
        ssthresh: (info.snd_ssthresh < INFINITE_SSTHRESH)
            .then(|| info.snd_ssthresh as u64 * info.snd_mss as u64),
        srtt_s: (info.rtt > 0).then(|| info.rtt as f64 / 1e6),
        // The kernel exposes only the smoothed RTT.
        rtt_s: None,
        rto_s: info.rto as f64 / 1e6,
        in_flight: info.in_flight_bytes(),
        delivered: info.bytes_acked,
        pacing_rate_bps: (info.pacing_rate > 0 && info.pacing_rate < u64::MAX / 8)
            .then_some(info.pacing_rate as f64 * 8.0),
        state: info.ca_state_name(),
    }
}

/// Runs one transfer to a [`super::receive`]r and reports it.
pub fn send(cfg: &SendConfig) -> Result<SendReport, NetError> {
    if cfg.bytes.is_none() && cfg.duration.is_none() {
        return Err(NetError::Protocol(
            "give a byte count or a duration for the kernel-TCP sender".into(),
        ));
    }
    let io = |what: &'static str| move |e| NetError::io(what, e);
    // The controller is chosen before connecting, so the handshake already uses it.
    let SocketAddr::V4(to) = cfg.to else {
        return Err(NetError::Protocol(
            "the kernel-TCP sender speaks IPv4".into(),
        ));
    };
    let owned = rustix::net::socket_with(
        AddressFamily::INET,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| NetError::io("socket", e.into()))?;
    set_congestion(&owned, &cfg.cc).map_err(io("choosing the congestion control"))?;
    rustix::net::connect(&owned, &to)
        .map_err(|e| NetError::io(format!("connecting to {}", cfg.to), e.into()))?;
    let mut c = TcpStream::from(owned);
    let ns_before = NsCounters::read().unwrap_or_default();
    let clock = Clock::start();
    let mut pre = [0u8; PREAMBLE];
    pre[0..4].copy_from_slice(&MAGIC.to_be_bytes());
    pre[4] = VERSION;
    pre[8..16].copy_from_slice(&cfg.key.to_be_bytes());
    pre[16..24].copy_from_slice(&cfg.bytes.unwrap_or(UNTIL_CLOSED).to_be_bytes());
    c.write_all(&pre).map_err(io("sending the preamble"))?;

    let done = AtomicBool::new(false);
    let interrupted = AtomicBool::new(false);
    // The sampler's handle on the same socket: it reads TCP_INFO and, on Ctrl-C, shuts
    // the socket down, which wakes the writer (EPIPE) and the reply's reader (EOF).
    let probe = c.try_clone().map_err(io("socket"))?;
    let (written, samples) = std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let mut out = Vec::new();
            let stop = cfg.stop.as_deref();
            if cfg.sample.is_none() && stop.is_none() {
                return out;
            }
            let mut next = Duration::ZERO;
            while !done.load(Ordering::Relaxed) {
                if stop.is_some_and(|s| s.load(Ordering::Relaxed))
                    && !interrupted.swap(true, Ordering::Relaxed)
                {
                    let _ = probe.shutdown(Shutdown::Both);
                }
                let now = Duration::from_nanos(clock.elapsed().as_nanos());
                if let Some(every) = cfg.sample {
                    if now >= next {
                        if let Ok(info) = TcpInfo::read(&probe) {
                            out.push(sample(&info, clock.now().as_secs_f64()));
                        }
                        next = now + Duration::from_nanos(every.as_nanos());
                    }
                }
                let wait = next.saturating_sub(Duration::from_nanos(clock.elapsed().as_nanos()));
                std::thread::sleep(match (cfg.sample, stop) {
                    (Some(_), None) => wait,
                    (None, _) => STOP_POLL,
                    (Some(_), Some(_)) => wait.min(STOP_POLL),
                });
            }
            out
        });
        let r = write_pattern(&mut c, cfg, &clock);
        let _ = c.shutdown(Shutdown::Write);
        // Keep sampling until the receiver has everything (its reply arrives).
        let mut reply = [0u8; REPLY];
        let rr = c
            .set_read_timeout(Some(Duration::from_secs(120)))
            .and_then(|_| c.read_exact(&mut reply));
        done.store(true, Ordering::Relaxed);
        let samples = sampler.join().unwrap_or_default();
        (r.and_then(|w| rr.map(|_| (w, reply))), samples)
    });
    // The writer or the receiver may have seen the flag before the sampler did.
    let interrupted = interrupted.load(Ordering::Relaxed)
        || cfg
            .stop
            .as_deref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
    let last = TcpInfo::read(&probe).map_err(io("TCP_INFO"))?;
    let ns = NsCounters::read().unwrap_or_default().since(&ns_before);
    let (written, reply) = match written {
        Ok(w) => w,
        // Cut short: what the receiver acknowledged is what it got.
        Err(_) if interrupted => {
            let got = last.bytes_acked.saturating_sub(PREAMBLE as u64);
            (got, interrupted_reply(got))
        }
        Err(e) => return Err(io("sending")(e)),
    };
    if u32::from_be_bytes(reply[0..4].try_into().expect("4")) != MAGIC {
        return Err(NetError::Protocol(
            "the receiver's reply is not tcplab's".into(),
        ));
    }
    let got = u64::from_be_bytes(reply[4..12].try_into().expect("8"));
    let done_mono = u64::from_be_bytes(reply[12..20].try_into().expect("8"));
    let acks = u32::from_be_bytes(reply[20..24].try_into().expect("4"));
    let status = reply[24];
    // Cut short, the receiver has less than was written (it stops reading at once), but
    // what it has must still be right.
    let whole = status == RecvStatus::Ok as u8 && got == written;
    if status == RecvStatus::Corrupt as u8 || !(interrupted || whole) {
        return Err(NetError::Protocol(format!(
            "the receiver got {got} bytes (status {status}) of {written} sent: data lost or \
             corrupted"
        )));
    }
    let done_s = if interrupted {
        clock.now().as_secs_f64()
    } else {
        done_mono.saturating_sub(clock.origin_monotonic_ns()) as f64 / 1e9
    };
    let mut flows = Table::default();
    let srtts: Vec<f64> = samples.iter().filter_map(|s| s.srtt_s).collect();
    let cc = format!("linux-{}", cfg.cc);
    let mut row = flows.row();
    FlowOutcome {
        flow: 0,
        name: &cfg.name,
        transport: "tcp",
        cc: Some(&cc),
        stack: None,
        bytes_target: cfg.bytes,
        bytes_written: written,
        bytes_delivered: got,
        start_s: 0.0,
        completion_s: (!interrupted).then_some(done_s),
        completed: !interrupted,
        // The receiver's reply follows the last byte, so the source is done by then.
        finished_s: (!interrupted).then_some(done_s),
        goodput_bps: goodput_bps(got, done_s),
    }
    .publish(&mut row);
    TcpSummary {
        recovery: "kernel",
        segments: Retransmissions {
            segments_sent: last.data_segs_out as u64,
            retransmitted_segments: last.total_retrans as u64,
        },
        rtos: if cfg.ns_exclusive {
            ns.timeouts
        } else {
            last.total_rto as u64
        },
        fast_retransmits: if cfg.ns_exclusive { ns.fast_retrans } else { 0 },
        tlp_probes: 0,
        syn_retransmits: None,
        established_s: None,
        rack_lost: 0,
        undos: 0,
        ecn_cuts: None,
        rtt_min_s: (last.min_rtt > 0).then(|| last.min_rtt as f64 / 1e6),
        rtt_mean_s: (!srtts.is_empty()).then(|| srtts.iter().sum::<f64>() / srtts.len() as f64),
        rtt_max_s: srtts.iter().copied().reduce(f64::max),
    }
    .publish(&mut row);
    row.put(&ACKS_SENT, u64::from(acks).into());
    drop(row);
    let mut series = Table::default();
    for s in &samples {
        s.push_to(&mut series);
    }
    Ok(SendReport {
        flows,
        flow_series: series,
        bytes_written: written,
        last_info: last,
    })
}

/// The receiver's reply a transfer cut short never got: `got` bytes, status OK.
fn interrupted_reply(got: u64) -> [u8; REPLY] {
    super::encode_reply(got, 0, 0, RecvStatus::Ok)
}

fn write_pattern(c: &mut TcpStream, cfg: &SendConfig, clock: &Clock) -> std::io::Result<u64> {
    let mut buf = vec![0u8; 128 * 1024];
    let mut off = 0u64;
    let limit = cfg.bytes.unwrap_or(u64::MAX);
    while off < limit {
        if cfg
            .stop
            .as_deref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            break;
        }
        if let Some(d) = cfg.duration {
            if clock.elapsed() >= d {
                break;
            }
        }
        let n = (limit - off).min(buf.len() as u64) as usize;
        payload::fill(cfg.key, off, &mut buf[..n]);
        c.write_all(&buf[..n])?;
        off += n as u64;
    }
    Ok(off)
}
