//! Timestamped UDP probes for measuring an emulated path from outside: a paced sender
//! stamps each datagram with its sequence number and send time, a sink records the
//! kernel's receive timestamp (`SO_TIMESTAMPNS`, so the sink's own scheduling does not
//! count), and [`expected_arrivals`] replays the send times through a fresh link model to
//! get the arrival each probe should have had. Both clocks are the host's
//! `CLOCK_REALTIME`, shared by every namespace.

use crate::sys::clock::realtime_ns;
use crate::sys::cvt;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
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
    let ts = libc::timespec {
        tv_sec: (t_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (t_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `ts` is valid; EINTR just ends the sleep early, and the caller re-checks.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_REALTIME,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        );
    }
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
            Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// Sets the socket's receive buffer to `bytes`, past `rmem_max` when root
/// (`SO_RCVBUFFORCE`), so a sink keeps up with bursts at hundreds of Mbit/s.
pub fn force_recv_buffer(sock: &UdpSocket, bytes: i32) -> io::Result<()> {
    set_int_option(sock, libc::SO_RCVBUFFORCE, bytes, "SO_RCVBUFFORCE")
}

/// Sets the socket's receive buffer to `bytes` (`SO_RCVBUF`, capped by `rmem_max`).
pub fn set_recv_buffer(sock: &UdpSocket, bytes: i32) -> io::Result<()> {
    set_int_option(sock, libc::SO_RCVBUF, bytes, "SO_RCVBUF")
}

/// `setsockopt(SOL_SOCKET, option, value)` for an int-valued option.
fn set_int_option(sock: &UdpSocket, option: libc::c_int, value: i32, what: &str) -> io::Result<()> {
    let v: libc::c_int = value;
    // SAFETY: setsockopt with a c_int option value that outlives the call.
    cvt(
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&v as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        },
        what,
    )?;
    Ok(())
}

/// Asks the kernel to stamp each datagram's arrival (`SO_TIMESTAMPNS`).
pub fn enable_rx_timestamps(sock: &UdpSocket) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: setsockopt with a c_int option value.
    cvt(
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                (&on as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        },
        "SO_TIMESTAMPNS",
    )?;
    Ok(())
}

/// Receives one datagram with its kernel timestamp (ns, `CLOCK_REALTIME`).
fn recv_stamped(sock: &UdpSocket, buf: &mut [u8]) -> io::Result<(usize, u64)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut cmsg = [0u64; 16];
    // SAFETY: an all-zero msghdr is valid; pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cmsg.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&cmsg);
    // SAFETY: `msg` describes valid buffers.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, 0) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut stamp = realtime_ns();
    // SAFETY: walking the control buffer the kernel filled, with the libc macros.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SO_TIMESTAMPNS {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                stamp = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, stamp))
}

/// Collects probes until `idle` passes without one (after the first) or `limit` elapses.
pub fn receive(sock: &UdpSocket, idle: Duration, limit: Duration) -> io::Result<Vec<Received>> {
    enable_rx_timestamps(sock)?;
    sock.set_read_timeout(Some(idle))?;
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::new();
    let t0 = std::time::Instant::now();
    while t0.elapsed() < limit {
        match recv_stamped(sock, &mut buf) {
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
