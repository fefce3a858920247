//! Timestamped UDP probes for measuring an emulated path from outside: a paced sender
//! stamps each datagram with its sequence number and send time, a sink records the
//! kernel's receive timestamp (`SO_TIMESTAMPNS`, so the sink's own scheduling does not
//! count), and [`expected_arrivals`] replays the send times through a fresh link model to
//! get the arrival each probe should have had. Both clocks are the host's
//! `CLOCK_REALTIME`, shared by every namespace.

use crate::sys::clock::realtime_ns;
use crate::sys::{ffi, named};
use rustix::io::Errno;
use rustix::thread::ClockId;
use rustix::time::Timespec;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsFd;
use std::time::Duration;
use tcplab_core::{Dur, Rng, Time};
use tcplab_link::{Link, LinkParams, Packet};

/// IPv4 + UDP headers: a probe with `n` payload bytes is `n + 28` bytes on the link.
pub const IP_UDP_HEADER: u32 = 28;
const MAGIC: u32 = 0x7470_7262; // "tprb"

/// One probe as sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub seq: u32,
    pub t_ns: u64,
    /// Bytes on the link (IP packet).
    pub ip_len: u32,
}

/// One probe as received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received {
    pub seq: u32,
    pub sent_ns: u64,
    pub recv_ns: u64,
    pub ip_len: u32,
}

fn sleep_until_realtime(t_ns: u64) {
    let ts = Timespec {
        tv_sec: (t_ns / 1_000_000_000) as i64,
        tv_nsec: (t_ns % 1_000_000_000) as i64,
    };
    // EINTR just ends the sleep early, and the caller re-checks.
    let _ = rustix::thread::clock_nanosleep_absolute(ClockId::Realtime, &ts);
}

/// Sends `count` probes of `payload` bytes to `to` at `rate_bps` (counting IP bytes),
/// evenly spaced. Returns what was sent.
pub fn send_paced(
    sock: &UdpSocket,
    to: SocketAddr,
    payload: usize,
    rate_bps: u64,
    count: u32,
) -> io::Result<Vec<Sent>> {
    let payload = payload.max(16);
    let ip_len = payload as u32 + IP_UDP_HEADER;
    let gap = Dur::transmission(ip_len as u64, rate_bps).as_nanos();
    // Above ~50 kpackets/s a sleep per packet costs more than the gap: wake up every
    // 20 µs and send the probes that are due (each still stamped when it leaves).
    let mut buf = vec![0u8; payload];
    let mut out = Vec::with_capacity(count as usize);
    crate::sys::sched::tighten_timer_slack();
    let start = realtime_ns() + 1_000_000;
    for seq in 0..count {
        let due = start + seq as u64 * gap;
        if gap >= 20_000 || realtime_ns() + 20_000 < due {
            sleep_until_realtime(due);
        }
        let t = realtime_ns();
        buf[0..4].copy_from_slice(&MAGIC.to_be_bytes());
        buf[4..8].copy_from_slice(&seq.to_be_bytes());
        buf[8..16].copy_from_slice(&t.to_be_bytes());
        match sock.send_to(&buf, to) {
            Ok(_) => out.push(Sent {
                seq,
                t_ns: t,
                ip_len,
            }),
            // A full socket buffer is a local drop; the probe simply never arrives.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) if e.raw_os_error() == Some(Errno::NOBUFS.raw_os_error()) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// Sets the socket's receive buffer to `bytes`, past `rmem_max` when root
/// (`SO_RCVBUFFORCE`), so a sink keeps up with bursts at hundreds of Mbit/s.
pub fn force_recv_buffer(sock: &UdpSocket, bytes: i32) -> io::Result<()> {
    rustix::net::sockopt::set_socket_recv_buffer_size_force(sock, buffer_size(bytes)?)
        .map_err(|e| named(e, "SO_RCVBUFFORCE"))
}

/// Sets the socket's receive buffer to `bytes` (`SO_RCVBUF`, capped by `rmem_max`).
pub fn set_recv_buffer(sock: &UdpSocket, bytes: i32) -> io::Result<()> {
    rustix::net::sockopt::set_socket_recv_buffer_size(sock, buffer_size(bytes)?)
        .map_err(|e| named(e, "SO_RCVBUF"))
}

fn buffer_size(bytes: i32) -> io::Result<usize> {
    usize::try_from(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("socket buffer size {bytes} is negative"),
        )
    })
}

/// Asks the kernel to stamp each datagram's arrival (`SO_TIMESTAMPNS`).
pub fn enable_rx_timestamps(sock: &UdpSocket) -> io::Result<()> {
    ffi::enable_rx_timestamps(sock.as_fd()).map_err(|e| named(e, "SO_TIMESTAMPNS"))
}

/// Receives one datagram (waiting up to the socket's read timeout) with its kernel
/// timestamp (ns, `CLOCK_REALTIME`; the time of the call when unstamped).
fn recv_stamped(
    sock: &UdpSocket,
    rx: &mut ffi::StampedRecv,
    buf: &mut [u8],
) -> io::Result<(usize, u64)> {
    let size = buf.len();
    if rx.recv(sock.as_fd(), buf, size, true)? == 0 {
        return Err(io::ErrorKind::WouldBlock.into());
    }
    let d = rx.get(0);
    Ok((d.len, d.stamp_ns.unwrap_or_else(realtime_ns)))
}

/// Collects probes until `idle` passes without one (after the first) or `limit` elapses.
pub fn receive(sock: &UdpSocket, idle: Duration, limit: Duration) -> io::Result<Vec<Received>> {
    enable_rx_timestamps(sock)?;
    sock.set_read_timeout(Some(idle))?;
    let mut buf = vec![0u8; 65536];
    let mut rx = ffi::StampedRecv::new(1);
    let mut out = Vec::new();
    let t0 = std::time::Instant::now();
    while t0.elapsed() < limit {
        match recv_stamped(sock, &mut rx, &mut buf) {
            Ok((n, recv_ns)) if n >= 16 => {
                if u32::from_be_bytes(buf[0..4].try_into().expect("4 bytes")) != MAGIC {
                    continue;
                }
                out.push(Received {
                    seq: u32::from_be_bytes(buf[4..8].try_into().expect("4 bytes")),
                    sent_ns: u64::from_be_bytes(buf[8..16].try_into().expect("8 bytes")),
                    recv_ns,
                    ip_len: n as u32 + IP_UDP_HEADER,
                });
            }
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                if !out.is_empty() {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

#[derive(Clone, Copy)]
struct Len(u32);
impl Packet for Len {
    fn wire_len(&self) -> u32 {
        self.0
    }
}

/// When each probe should have arrived (ns, same clock as the send times) had it crossed
/// `params` exactly at its send time; `None` for probes the model drops.
pub fn expected_arrivals(params: &LinkParams, sent: &[Sent]) -> Vec<Option<u64>> {
    let Some(first) = sent.first() else {
        return Vec::new();
    };
    let origin = first.t_ns;
    let mut link: Link<Len> = Link::new(params.clone(), Rng::from_seed(0));
    let mut out = vec![None; sent.len()];
    let mut idx = std::collections::VecDeque::new();
    let collect = |link: &mut Link<Len>,
                   until: Time,
                   idx: &mut std::collections::VecDeque<usize>,
                   out: &mut Vec<Option<u64>>| {
        while let Some(due) = link.poll_timeout() {
            if due > until {
                break;
            }
            if link.poll_transmit(due).is_some() {
                let i = idx.pop_front().expect("one index per admitted probe");
                out[i] = Some(origin + due.0);
            }
        }
    };
    for (i, s) in sent.iter().enumerate() {
        let t = Time(s.t_ns - origin);
        collect(&mut link, t, &mut idx, &mut out);
        if link.handle_packet(t, Len(s.ip_len)) == tcplab_link::Admit::Queued {
            idx.push_back(i);
        }
    }
    collect(&mut link, Time::MAX, &mut idx, &mut out);
    out
}

/// Delivered IP-layer rate (bit/s) between the first and last probe received, not
/// counting the first (it opens the interval).
pub fn delivered_rate_bps(recv: &[Received]) -> Option<f64> {
    let (first, last) = (recv.first()?, recv.last()?);
    let span = last.recv_ns.checked_sub(first.recv_ns)? as f64 / 1e9;
    if span <= 0.0 {
        return None;
    }
    let bytes: u64 = recv[1..].iter().map(|r| r.ip_len as u64).sum();
    Some(bytes as f64 * 8.0 / span)
}
