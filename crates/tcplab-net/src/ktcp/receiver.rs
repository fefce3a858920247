//! The receiving end: accept one connection, check every byte, answer with the count.

use super::{encode_reply, RecvStatus, TcpInfo, MAGIC, PREAMBLE, UNTIL_CLOSED, VERSION};
use crate::error::NetError;
use crate::payload;
use crate::sys::clock::monotonic_ns;
use rustix::event::{PollFd, PollFlags, Timespec};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What one received transfer looked like.
#[derive(Clone, Debug)]
pub struct RecvReport {
    pub peer: SocketAddr,
    pub bytes: u64,
    /// The byte count the sender announced (`None`: until it closed).
    pub expected: Option<u64>,
    pub first_byte_mono_ns: u64,
    pub last_byte_mono_ns: u64,
    pub status: RecvStatus,
    /// Segments the receiver sent (almost all ACKs), from its `TCP_INFO`.
    pub acks_sent: u32,
}

/// Accepts one connection on `listener` and receives it to the end. `idle` bounds the
/// wait for the connection and for each read.
pub fn receive(listener: &TcpListener, idle: Duration) -> Result<RecvReport, NetError> {
    receive_until(listener, idle, None)
}

/// How often a receiver with a stop flag looks at it.
const STOP_POLL: Duration = Duration::from_millis(20);

/// [`receive`], stopped when `stop` is set (Ctrl-C): then [`NetError::Interrupted`]
/// before a connection, else what arrived until then (status `Short` if a size was
/// announced), within [`STOP_POLL`].
pub fn receive_until(
    listener: &TcpListener,
    idle: Duration,
    stop: Option<&AtomicBool>,
) -> Result<RecvReport, NetError> {
    let io = |what: &'static str| move |e| NetError::io(what, e);
    let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
    listener.set_nonblocking(false).map_err(io("listener"))?;
    let (mut c, peer) = accept_within(listener, idle, stop)?;
    // The preamble follows the handshake at once (a sender that is stopped before
    // sending it shuts its socket down, so this read ends too).
    c.set_read_timeout(Some(idle)).map_err(io("socket"))?;
    let mut pre = [0u8; PREAMBLE];
    c.read_exact(&mut pre).map_err(io("reading the preamble"))?;
    let slice = if stop.is_some() {
        idle.min(STOP_POLL)
    } else {
        idle
    };
    c.set_read_timeout(Some(slice)).map_err(io("socket"))?;
    if u32::from_be_bytes(pre[0..4].try_into().expect("4")) != MAGIC || pre[4] != VERSION {
        return Err(NetError::Protocol(format!(
            "{peer} is not a tcplab kernel-TCP sender (bad preamble)"
        )));
    }
    let key = u64::from_be_bytes(pre[8..16].try_into().expect("8"));
    let total = u64::from_be_bytes(pre[16..24].try_into().expect("8"));
    let expected = (total != UNTIL_CLOSED).then_some(total);
    let mut buf = vec![0u8; 256 * 1024];
    let mut got = 0u64;
    let mut first = 0;
    let mut last = 0;
    let mut status = RecvStatus::Ok;
    let mut quiet = Duration::ZERO;
    loop {
        let n = match c.read(&mut buf) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) && !stopped()
                    && quiet + slice < idle =>
            {
                quiet += slice;
                continue;
            }
            Err(_) if stopped() => break,
            Err(e) => return Err(io("receiving")(e)),
        };
        if n == 0 || stopped() {
            break;
        }
        quiet = Duration::ZERO;
        last = monotonic_ns();
        if got == 0 {
            first = last;
        }
        if status == RecvStatus::Ok && payload::verify(key, got, &buf[..n]).is_some() {
            status = RecvStatus::Corrupt;
        }
        got += n as u64;
    }
    if status == RecvStatus::Ok && expected.is_some_and(|e| e != got) {
        status = RecvStatus::Short;
    }
    let acks = TcpInfo::read(&c).map_or(0, |t| t.segs_out);
    let _ = c.write_all(&encode_reply(got, last, acks, status));
    Ok(RecvReport {
        peer,
        bytes: got,
        expected,
        first_byte_mono_ns: first,
        last_byte_mono_ns: last,
        status,
        acks_sent: acks,
    })
}

fn accept_within(
    l: &TcpListener,
    idle: Duration,
    stop: Option<&AtomicBool>,
) -> Result<(std::net::TcpStream, SocketAddr), NetError> {
    let slice = if stop.is_some() {
        idle.min(STOP_POLL)
    } else {
        idle
    };
    // Whole milliseconds, as poll(2) takes them.
    let ms = slice.as_millis().min(i32::MAX as u128) as i64;
    let timeout = Timespec {
        tv_sec: ms / 1000,
        tv_nsec: ms % 1000 * 1_000_000,
    };
    let mut waited = Duration::ZERO;
    let r = loop {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(NetError::Interrupted);
        }
        let mut pfd = [PollFd::new(l, PollFlags::IN)];
        // An error (EINTR) counts as readiness, as a connection does: accept decides.
        let r = rustix::event::poll(&mut pfd, Some(&timeout)).unwrap_or(1);
        waited += slice;
        if r != 0 || waited >= idle {
            break r;
        }
    };
    if r == 0 {
        return Err(NetError::Protocol(format!(
            "no sender connected within {:.1} s",
            idle.as_secs_f64()
        )));
    }
    l.accept().map_err(|e| NetError::io("accept", e))
}
