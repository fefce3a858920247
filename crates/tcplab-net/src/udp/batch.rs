//! Batched datagram I/O: `recvmmsg` and `sendmmsg` move up to [`BATCH`] datagrams per
//! system call, which is where a user-space transport spends its time at high rates.
//! Sending goes through rustix's `sendmmsg` (and `setsockopt(IP_TOS)` for each run of
//! datagrams with another ECN field); receiving through `sys::ffi` (rustix has no
//! `recvmmsg` and cannot read the `SO_TIMESTAMPNS` stamp and `IP_TOS` byte each
//! datagram carries).

use crate::sys::ffi::StampedRecv;
use rustix::io::Errno;
use rustix::net::{MMsgHdr, SendAncillaryBuffer, SendFlags, SocketAddrAny};
use std::io::{self, IoSlice};
use std::net::SocketAddr;
use std::os::fd::BorrowedFd;

/// Datagrams per system call.
pub const BATCH: usize = 64;

fn to_sockaddr(a: SocketAddr) -> io::Result<SocketAddrAny> {
    match a {
        SocketAddr::V4(v4) => Ok(SocketAddrAny::from(v4)),
        SocketAddr::V6(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the UDP driver speaks IPv4",
        )),
    }
}

/// Buffers for one `recvmmsg` call.
pub struct RecvBatch {
    bufs: Vec<u8>,
    size: usize,
    raw: StampedRecv,
    n: usize,
}

impl RecvBatch {
    /// `size`: the largest datagram accepted whole (longer ones arrive truncated and fail
    /// to decode).
    pub fn new(size: usize) -> RecvBatch {
        RecvBatch {
            bufs: vec![0; size * BATCH],
            size,
            raw: StampedRecv::new(BATCH),
            n: 0,
        }
    }

    /// Receives what is waiting (up to `BATCH`); `Ok(0)` when nothing is.
    pub fn recv(&mut self, fd: BorrowedFd<'_>) -> io::Result<usize> {
        self.n = match self.raw.recv(fd, &mut self.bufs, self.size, false) {
            Ok(n) => n,
            Err(e) => {
                self.n = 0;
                return match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                    _ => Err(e),
                };
            }
        };
        Ok(self.n)
    }

    /// The kernel's receive timestamp of datagram `i` (`CLOCK_REALTIME` ns), if stamped.
    pub fn stamp(&self, i: usize) -> Option<u64> {
        self.raw.get(i).stamp_ns
    }

    /// The ECN field (RFC 3168 section 5, the TOS byte's two low bits) datagram `i`
    /// arrived with; 0 (Not-ECT) unless the socket has `IP_RECVTOS` on.
    pub fn ecn(&self, i: usize) -> u8 {
        self.raw.get(i).tos & 0b11
    }

    /// Datagram `i` of the last call: sender and bytes.
    pub fn get(&self, i: usize) -> (SocketAddr, &[u8]) {
        let d = self.raw.get(i);
        let off = i * self.size;
        (d.from, &self.bufs[off..off + d.len])
    }
}

/// Datagrams queued for one destination, sent with `sendmmsg`, each with its own IP ECN
/// field: a run of datagrams with the same field goes out in one call after
/// `setsockopt(IP_TOS)` set it (only when it changes: a sender's data is ECT, its
/// retransmissions, control messages and a receiver's ACKs Not-ECT).
pub struct SendBatch {
    bufs: Vec<u8>,
    size: usize,
    lens: Vec<usize>,
    ecn: [u8; BATCH],
    /// The TOS the socket sends with now (a new socket's is 0).
    tos: u8,
    /// Datagrams queued, and how many of them are already sent (after a partial send).
    n: usize,
    sent: usize,
    dest: SocketAddrAny,
    dest_addr: SocketAddr,
}

impl SendBatch {
    pub fn new(size: usize, dest: SocketAddr) -> io::Result<SendBatch> {
        Ok(SendBatch {
            bufs: vec![0; size * BATCH],
            size,
            lens: vec![0; BATCH],
            ecn: [0; BATCH],
            tos: 0,
            n: 0,
            sent: 0,
            dest: to_sockaddr(dest)?,
            dest_addr: dest,
        })
    }

    /// Where the queued datagrams go (set only while none is queued).
    pub fn set_dest(&mut self, dest: SocketAddr) -> io::Result<()> {
        debug_assert!(self.is_empty());
        self.dest = to_sockaddr(dest)?;
        self.dest_addr = dest;
        Ok(())
    }

    pub fn dest(&self) -> SocketAddr {
        self.dest_addr
    }

    pub fn is_full(&self) -> bool {
        self.n == BATCH
    }

    pub fn is_empty(&self) -> bool {
        self.n == self.sent
    }

    /// Fills the next slot with `f(buf) -> Some((len, ecn))` (`ecn`: the IP ECN field it
    /// goes out with); false if `f` produced nothing.
    pub fn push_with(&mut self, f: impl FnOnce(&mut [u8]) -> Option<(usize, u8)>) -> bool {
        debug_assert!(!self.is_full());
        let off = self.n * self.size;
        match f(&mut self.bufs[off..off + self.size]) {
            Some((len, ecn)) => {
                self.lens[self.n] = len;
                self.ecn[self.n] = ecn & 0b11;
                self.n += 1;
                true
            }
            None => false,
        }
    }

    /// Sends what is queued. Returns false when the socket buffer is full (the rest stays
    /// queued for the next call); true once everything left.
    pub fn flush(&mut self, fd: BorrowedFd<'_>) -> io::Result<bool> {
        while self.sent < self.n {
            // The run of datagrams sharing the first one's ECN field.
            let ecn = self.ecn[self.sent];
            let k = self.ecn[self.sent..self.n]
                .iter()
                .take_while(|&&e| e == ecn)
                .count();
            if ecn != self.tos {
                // DSCP 0, the ECN field in the low bits (RFC 3168 section 5).
                rustix::net::sockopt::set_ip_tos(fd, ecn)?;
                self.tos = ecn;
            }
            let iov: [IoSlice<'_>; BATCH] = std::array::from_fn(|j| {
                let i = (self.sent + j).min(BATCH - 1);
                let off = i * self.size;
                IoSlice::new(&self.bufs[off..off + self.lens[i]])
            });
            let mut no_control: [SendAncillaryBuffer<'_, '_, '_>; BATCH] =
                std::array::from_fn(|_| SendAncillaryBuffer::default());
            let mut iov_j = iov.iter();
            let mut msgs = no_control.each_mut().map(|c| {
                let one = std::slice::from_ref(iov_j.next().expect("one iovec per message"));
                MMsgHdr::new_with_addr(&self.dest, one, c)
            });
            match rustix::net::sendmmsg(fd, &mut msgs[..k], SendFlags::empty()) {
                Ok(r) => self.sent += r,
                Err(Errno::AGAIN) => return Ok(false),
                Err(Errno::INTR) => continue,
                // ENOBUFS: the device queue overflowed; the datagrams are lost like any
                // packet a router drops, and the transport recovers them.
                Err(Errno::NOBUFS) => {
                    self.sent = self.n;
                    break;
                }
                // The peer's port is closed (an ICMP error came back): not fatal for a
                // datagram transport; its timers decide.
                Err(Errno::CONNREFUSED) => {
                    self.sent += 1;
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.n = 0;
        self.sent = 0;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsFd;
    use std::time::{Duration, Instant};

    fn pair() -> (UdpSocket, UdpSocket) {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        crate::probe::enable_rx_timestamps(&rx).unwrap();
        (rx, tx)
    }

    /// Receives until `n` datagrams are in `rx`'s batch (one call once they all wait).
    fn recv_all(rx: &UdpSocket, batch: &mut RecvBatch, n: usize) -> usize {
        let t0 = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(20));
            let got = batch.recv(rx.as_fd()).unwrap();
            if got >= n || t0.elapsed() > Duration::from_secs(5) {
                return got;
            }
            assert_eq!(got, 0, "a partial batch");
        }
    }

    #[test]
    fn a_full_batch_goes_out_in_order_with_its_lengths_and_source() {
        let (rx, tx) = pair();
        let mut out = SendBatch::new(256, rx.local_addr().unwrap()).unwrap();
        for i in 0..BATCH {
            assert!(out.push_with(|b| {
                b[..2].copy_from_slice(&(i as u16).to_be_bytes());
                Some((10 + i, 0))
            }));
        }
        assert!(out.is_full());
        assert!(out.flush(tx.as_fd()).unwrap());
        assert!(out.is_empty());
        let mut batch = RecvBatch::new(256);
        assert_eq!(recv_all(&rx, &mut batch, BATCH), BATCH);
        for i in 0..BATCH {
            let (from, bytes) = batch.get(i);
            assert_eq!(from, tx.local_addr().unwrap());
            assert_eq!(bytes.len(), 10 + i);
            assert_eq!(u16::from_be_bytes([bytes[0], bytes[1]]), i as u16);
        }
    }

    #[test]
    fn each_datagram_of_one_call_keeps_its_own_kernel_timestamp() {
        let (rx, tx) = pair();
        let to = rx.local_addr().unwrap();
        for _ in 0..3 {
            tx.send_to(&[1, 2, 3], to).unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut batch = RecvBatch::new(64);
        assert_eq!(recv_all(&rx, &mut batch, 3), 3);
        let stamps: Vec<u64> = (0..3).map(|i| batch.stamp(i).expect("stamped")).collect();
        // 5 ms apart when sent; one stamp for the whole call would give 0.
        assert!(stamps[1] - stamps[0] >= 4_000_000, "{stamps:?}");
        assert!(stamps[2] - stamps[1] >= 4_000_000, "{stamps:?}");
        let now = crate::sys::clock::realtime_ns();
        assert!(
            stamps[2] <= now && now - stamps[0] < 5_000_000_000,
            "{stamps:?}"
        );
    }

    #[test]
    fn a_longer_datagram_is_cut_to_the_slot_and_an_empty_socket_gives_zero() {
        let (rx, tx) = pair();
        let mut batch = RecvBatch::new(8);
        assert_eq!(batch.recv(rx.as_fd()).unwrap(), 0);
        tx.send_to(&[9; 20], rx.local_addr().unwrap()).unwrap();
        assert_eq!(recv_all(&rx, &mut batch, 1), 1);
        assert_eq!(batch.get(0).1, &[9; 8]);
    }
}
