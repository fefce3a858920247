//! ECN over real loopback sockets: a relay between `send` and `receive_on` reads each
//! datagram's IP ECN field (`IP_RECVTOS`), may set CE on ECN-capable data as a router
//! would, and forwards it with that field.

use super::batch::{RecvBatch, SendBatch};
use super::{RecvOptions, SendOptions};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tcplab_core::Dur;
use tcplab_transport::tcp::wire::{ACK_TYPE, DATA_TYPE};
use tcplab_transport::{FLAG_CWR, FLAG_ECE};

/// What the relay saw, per message type and ECN field (index: the codepoint).
#[derive(Debug, Default)]
struct Seen {
    data: [u64; 4],
    acks: [u64; 4],
    other: [u64; 4],
    /// DATA with CWR, ACKs with ECE.
    cwr: u64,
    ece: u64,
    marked: u64,
}

/// Forwards between the first peer heard (the sender) and `to` (the receiver) until
/// `done`; marks CE on every `mark_every`-th ECN-capable DATA datagram (0: never).
fn relay(sock: &UdpSocket, to: SocketAddr, mark_every: u64, done: &AtomicBool) -> Seen {
    rustix::net::sockopt::set_ip_recvtos(sock, true).unwrap();
    let mut rx = RecvBatch::new(4096);
    let mut tx = SendBatch::new(4096, to).unwrap();
    let mut sender: Option<SocketAddr> = None;
    let mut seen = Seen::default();
    let mut ect_data = 0u64;
    while !done.load(Ordering::Relaxed) {
        // `RecvBatch::recv` does not wait: poll.
        let n = rx.recv(sock.as_fd()).unwrap();
        if n == 0 {
            std::thread::sleep(Duration::from_micros(200));
            continue;
        }
        for i in 0..n {
            let (from, bytes) = rx.get(i);
            let mut ecn = rx.ecn(i);
            let (ty, flags) = (bytes[3], bytes[4]);
            let dest = if from == to {
                sender.expect("the sender spoke first")
            } else {
                sender = Some(from);
                to
            };
            if ty == DATA_TYPE {
                seen.data[ecn as usize] += 1;
                seen.cwr += u64::from(flags & FLAG_CWR != 0);
                if ecn == 0b10 || ecn == 0b01 {
                    ect_data += 1;
                    if mark_every > 0 && ect_data % mark_every == 0 {
                        ecn = 0b11;
                        seen.marked += 1;
                    }
                }
            } else if ty == ACK_TYPE {
                seen.acks[ecn as usize] += 1;
                seen.ece += u64::from(flags & FLAG_ECE != 0);
            } else {
                seen.other[ecn as usize] += 1;
            }
            tx.set_dest(dest).unwrap();
            let b = bytes.to_vec();
            assert!(tx.push_with(|buf| {
                buf[..b.len()].copy_from_slice(&b);
                Some((b.len(), ecn))
            }));
            tx.flush(sock.as_fd()).unwrap();
        }
    }
    seen
}

/// One transfer of the flow `table` through the relay.
fn through_relay(table: &str, mark_every: u64) -> (super::SendOutcome, super::RecvOutcome, Seen) {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let relay_sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let via = relay_sock.local_addr().unwrap();
    let done = AtomicBool::new(false);
    std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(10)),
                ..RecvOptions::default()
            };
            super::receive_on(rsock, &o).unwrap()
        });
        let relay_h = sc.spawn(|| relay(&relay_sock, to, mark_every, &done));
        let o = SendOptions::from_table(via, &table.parse().unwrap(), "test.toml").unwrap();
        let s = super::send(&o).unwrap();
        let r = rh.join().unwrap();
        done.store(true, Ordering::Relaxed);
        (s, r, relay_h.join().unwrap())
    })
}

/// An ECN flow's new data leaves ECT(0); the receiver's ACKs and the driver's own
/// messages Not-ECT (RFC 3168 section 6.1.4); with no mark, no ECE and no CWR.
#[test]
fn ecn_data_leaves_ect_and_acks_not_ect() {
    let (s, r, seen) = through_relay("bytes = \"2MB\"\necn = true", 0);
    assert_eq!(r.delivered, 2_000_000);
    assert_eq!(s.peer.delivered, 2_000_000);
    let retx = s.results.flows.ints("retransmitted_segments").unwrap()[0];
    let segments = s.results.flows.ints("segments_sent").unwrap()[0] - retx;
    // Each segment's first transmission is ECT(0); the relay may drop a few before it
    // counts them (its socket buffer), which the sender retransmits.
    assert!(seen.data[0b10] + retx >= segments, "{retx} {seen:?}");
    assert!(
        seen.data[0b00] <= retx,
        "only retransmissions Not-ECT ({retx}): {seen:?}"
    );
    assert!(seen.acks[0] > 0, "{seen:?}");
    assert_eq!(seen.acks[1..], [0, 0, 0], "{seen:?}");
    assert_eq!(seen.other[1..], [0, 0, 0], "{seen:?}");
    assert_eq!((seen.ece, seen.cwr), (0, 0), "{seen:?}");
    // Without ECN: every datagram Not-ECT.
    let (_, _, plain) = through_relay("bytes = \"1MB\"", 0);
    assert_eq!(plain.data[1..], [0, 0, 0], "{plain:?}");
}

/// CE marks set on the path reach the receiver, which echoes them (ECE); the sender
/// cuts its window once per round trip (`ecn_cuts`) and says so (CWR); every byte
/// arrives. For Cubic (RFC 3168) and DCTCP (RFC 8257).
#[test]
fn ce_marks_are_echoed_and_answered() {
    for table in [
        "bytes = \"3MB\"\ncc = \"cubic\"\necn = true",
        "bytes = \"3MB\"\ncc = \"dctcp\"",
    ] {
        let (s, r, seen) = through_relay(table, 10);
        assert_eq!(r.delivered, 3_000_000, "{table}");
        assert_eq!(s.peer.delivered, 3_000_000, "{table}");
        let f = &s.results.flows;
        let cuts = f.ints("ecn_cuts").unwrap()[0];
        assert!(seen.marked > 10, "{table}: {seen:?}");
        // Each mark the relay set that reached the receiver's socket was counted.
        assert!(
            r.ce_received > 0 && r.ce_received <= seen.marked,
            "{table}: {} CE received, {seen:?}",
            r.ce_received
        );
        assert!(seen.ece > 0, "{table}: {seen:?}");
        assert!(seen.cwr > 0, "{table}: {seen:?}");
        assert!(cuts > 0, "{table}: {cuts} cuts, {seen:?}");
        assert_eq!(f.ints("rtos").unwrap()[0], 0, "{table}");
    }
}
