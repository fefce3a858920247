//! The event loop: one non-blocking UDP socket, one session, timers from `poll_timeout`.
//!
//! mio rather than tokio: the endpoints are single-threaded state machines that already
//! say when they next need the clock, so what the driver needs is readiness of one socket
//! plus a precise timer, not a task scheduler. tokio's timer wheel has millisecond
//! resolution and its sockets hide `recvmmsg`/`sendmmsg`; mio gives the raw descriptor
//! for batched calls, and a `timerfd` (nanosecond deadline, 1 ns timer slack) registered
//! beside the socket wakes the loop for pacing gaps of a few microseconds.

use super::batch::{RecvBatch, SendBatch, BATCH};
use crate::emu::LatenessHistogram;
use crate::error::NetError;
use crate::sys::clock::Clock;
use crate::sys::sched;
use crate::sys::timer::TimerFd;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tcplab_core::Time;

const SOCK: Token = Token(0);
const TIMER: Token = Token(1);

/// What the loop needs from a session (both sides implement it).
pub trait Session {
    /// A datagram arrived at `now` with the IP ECN field `ecn` (RFC 3168 section 5).
    fn handle_datagram(&mut self, now: Time, from: SocketAddr, bytes: &[u8], ecn: u8);
    fn handle_timeout(&mut self, now: Time);
    /// The next datagram written into `buf`: its length and the IP ECN field it is
    /// sent with.
    fn poll_datagram(&mut self, now: Time, buf: &mut [u8]) -> Option<(usize, u8)>;
    fn poll_timeout(&self) -> Option<Time>;
    /// Where the next datagram goes (`None` until a peer is known).
    fn peer(&self) -> Option<SocketAddr>;
    fn finished(&self, now: Time) -> bool;
    /// Stop at once (Ctrl-C), telling the peer if there is one.
    fn interrupt(&mut self, now: Time);
}

/// Counts of the loop's own work, for performance reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub wakeups: u64,
    pub recv_calls: u64,
    pub datagrams_in: u64,
    pub send_calls: u64,
    pub datagrams_out: u64,
    /// Timer wake-ups and how late they came, against the deadline armed (ns).
    pub timer_fires: u64,
    pub timer_late_sum_ns: u64,
    pub timer_late_max_ns: u64,
}

/// Called once per loop iteration with the current time (sampling, stopping).
pub type Tick<'a, S> = dyn FnMut(&mut S, Time) -> Option<Time> + 'a;

/// Queues everything `sess` wants to send at `now`, flushing full batches and the batch
/// before a datagram for another destination (a receiver's RESET to a refused HELLO's
/// source). False when the socket pushed back (the rest waits for writability).
fn drain<S: Session>(
    sess: &mut S,
    now: Time,
    tx: &mut SendBatch,
    fd: BorrowedFd<'_>,
    st: &mut LoopStats,
) -> Result<bool, NetError> {
    let sendmmsg = |e| NetError::io("sendmmsg", e);
    loop {
        while !tx.is_full() {
            if let Some(d) = sess.peer().filter(|&d| d != tx.dest()) {
                if !tx.is_empty() {
                    st.send_calls += 1;
                    if !tx.flush(fd).map_err(sendmmsg)? {
                        return Ok(false);
                    }
                }
                tx.set_dest(d)
                    .map_err(|e| NetError::io("socket address", e))?;
            }
            if !tx.push_with(|b| sess.poll_datagram(now, b)) {
                break;
            }
            st.datagrams_out += 1;
        }
        if !tx.is_full() {
            return Ok(true);
        }
        st.send_calls += 1;
        if !tx.flush(fd).map_err(sendmmsg)? {
            return Ok(false);
        }
    }
}

/// Input batches read per wake-up before timers, the tick and the stop flag are looked
/// at: 256 datagrams, as the kernel bounds the packets one receive softirq handles
/// (`net.core.netdev_budget`, default 300) before other work. Without a bound, a
/// sender whose ACKs arrive faster than it reads them never reaches its stop time.
const INPUT_BATCHES: usize = 4;

/// With a stop flag, the loop looks at it at least this often (Ctrl-C is honoured
/// within it plus the session's own closing).
const STOP_POLL: Duration = Duration::from_millis(50);

/// Runs `sess` on `sock` until it finishes. `tick` runs every iteration and may return
/// its own next deadline (a sample or a stop time). `max_datagram` sizes the buffers.
/// Once `stop` is set (Ctrl-C), the session is interrupted and runs on until it is
/// finished (an interrupted sender closes within a fraction of a second).
#[allow(clippy::too_many_arguments)]
pub fn run<S: Session>(
    sock: &UdpSocket,
    sess: &mut S,
    clock: &Clock,
    max_datagram: usize,
    tick: &mut Tick<'_, S>,
    late: &mut LatenessHistogram,
    stop: Option<&AtomicBool>,
) -> Result<LoopStats, NetError> {
    let io = |what: &'static str| move |e| NetError::io(what, e);
    sock.set_nonblocking(true).map_err(io("socket"))?;
    sched::tighten_timer_slack();
    let fd = sock.as_fd();
    let mut poll = Poll::new().map_err(io("epoll"))?;
    let mut timer = TimerFd::new().map_err(io("timerfd"))?;
    poll.registry()
        .register(&mut SourceFd(&sock.as_raw_fd()), SOCK, Interest::READABLE)
        .map_err(io("epoll_ctl"))?;
    poll.registry()
        .register(&mut SourceFd(&timer.as_raw_fd()), TIMER, Interest::READABLE)
        .map_err(io("epoll_ctl"))?;
    // Each datagram is handed over at the kernel's receive time, not the batch's: a
    // burst read in one call keeps its spacing (ACK-train dispersion, RTT samples).
    crate::probe::enable_rx_timestamps(sock).map_err(io("SO_TIMESTAMPNS"))?;
    // Each datagram's IP ECN field reaches the endpoint (a CE mark a router set).
    rustix::net::sockopt::set_ip_recvtos(sock, true).map_err(|e| io("IP_RECVTOS")(e.into()))?;
    let rt_minus_mono = crate::sys::clock::realtime_ns() as i128
        - clock.to_monotonic_ns(clock.now()) as i128
        + clock.origin_monotonic_ns() as i128;
    let mut last = Time::ZERO;
    let mut rx = RecvBatch::new(max_datagram);
    let placeholder: SocketAddr = "127.0.0.1:9".parse().expect("valid");
    let mut tx = SendBatch::new(max_datagram, sess.peer().unwrap_or(placeholder))
        .map_err(io("socket address"))?;
    let mut events = Events::with_capacity(8);
    let mut st = LoopStats::default();
    let mut want_write = false;
    let mut blocked = false;
    let mut interrupted = false;
    loop {
        let now = clock.now().max(last);
        st.wakeups += 1;
        if !interrupted && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            interrupted = true;
            sess.interrupt(now);
        }
        if !tx.is_empty() {
            st.send_calls += 1;
            blocked = !tx.flush(fd).map_err(io("sendmmsg"))?;
        }
        // Input: drain the socket in batches; after each datagram collect what the
        // session answers (an ACK per segment pair, data clocked out by an ACK) as the
        // simulator does, so batching changes no protocol behaviour.
        // (mio's readiness is edge-triggered: input left for later makes the next wait
        // return at once.)
        let mut more_input = false;
        for _ in 0..INPUT_BATCHES {
            let n = rx.recv(fd).map_err(io("recvmmsg"))?;
            st.recv_calls += 1;
            more_input = n == BATCH;
            for i in 0..n {
                let (from, bytes) = rx.get(i);
                let t = rx.stamp(i).map_or(now, |rt| {
                    let mono = (rt as i128 - rt_minus_mono).max(0) as u64;
                    Time(mono).clamp(last, now)
                });
                last = t;
                sess.handle_datagram(t, from, bytes, rx.ecn(i));
                if !blocked {
                    blocked = !drain(sess, t, &mut tx, fd, &mut st)?;
                }
            }
            st.datagrams_in += n as u64;
            if n < BATCH {
                break;
            }
        }
        last = now;
        if sess.poll_timeout().is_some_and(|t| t <= now) {
            sess.handle_timeout(now);
        }
        let tick_at = tick(sess, now);
        // Output: whatever the session has now.
        if !blocked {
            blocked = !drain(sess, now, &mut tx, fd, &mut st)?;
        }
        if !blocked && !tx.is_empty() {
            st.send_calls += 1;
            blocked = !tx.flush(fd).map_err(io("sendmmsg"))?;
        }
        if sess.finished(now) {
            return Ok(st);
        }
        if blocked != want_write {
            let interest = if blocked {
                Interest::READABLE | Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            poll.registry()
                .reregister(&mut SourceFd(&sock.as_raw_fd()), SOCK, interest)
                .map_err(io("epoll_ctl"))?;
            want_write = blocked;
        }
        // Sleep until the socket, the session's next timer or the tick's deadline.
        let next = match (sess.poll_timeout(), tick_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let next = next.map(|t| t.max(now));
        timer
            .set(next.map(|t| clock.to_monotonic_ns(t)))
            .map_err(io("timerfd"))?;
        let armed = next;
        let due_now = more_input || next.is_some_and(|t| t <= clock.now());
        let timeout = if due_now {
            Some(Duration::ZERO)
        } else {
            stop.map(|_| STOP_POLL)
        };
        if let Err(e) = poll.poll(&mut events, timeout) {
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(NetError::io("epoll_wait", e));
            }
        }
        for ev in events.iter() {
            if ev.token() == TIMER {
                timer.clear();
                if let Some(t) = armed {
                    let l = clock.now().saturating_since(t).as_nanos();
                    st.timer_fires += 1;
                    st.timer_late_sum_ns += l;
                    st.timer_late_max_ns = st.timer_late_max_ns.max(l);
                    late.add(l);
                }
            }
        }
    }
}
