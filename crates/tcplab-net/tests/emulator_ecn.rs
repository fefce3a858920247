//! Queue disciplines in the emulator on real packets: CoDel marks an ECN-capable IPv4
//! packet Congestion Experienced in its own header (with a header checksum the host's
//! kernel accepts) and drops a packet that is not. Needs root and /dev/net/tun; elsewhere
//! each test says why it skips.

use common::{can_run, config};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};
use tcplab_net::emu::{EmuConfig, Emulation, PacketEvent};

mod common;

/// A 2 Mbit/s link whose CoDel (target 5 ms, interval 100 ms) has ECN on.
fn codel_link() -> EmuConfig {
    config(
        r#"
        [link]
        rate = "2Mbps"
        delay = "2ms"
        queue = "1000pkt"
        discipline = { kind = "codel", ecn = true }
        "#,
    )
}

/// One datagram and the TOS byte it arrived with (IP_RECVTOS), or None on timeout.
/// (rustix's `recvmsg` does not decode an `IP_TOS` control message, hence libc here.)
fn recv_tos(sock: &UdpSocket) -> Option<u8> {
    let mut buf = [0u8; 2048];
    let mut cbuf = [0u64; 16];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: zeroed msghdr filled with valid buffers below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&cbuf);
    // SAFETY: `msg` points at live buffers.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, 0) };
    if n < 0 {
        return None;
    }
    // SAFETY: walking the control messages the kernel wrote into `cbuf`.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::IPPROTO_IP && (*c).cmsg_type == libc::IP_TOS {
                return Some(*libc::CMSG_DATA(c));
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Some(0xff)
}

/// The host's count of IPv4 packets dropped for a bad header checksum.
fn in_csum_errors() -> u64 {
    let snmp = std::fs::read_to_string("/proc/net/snmp").unwrap();
    let mut lines = snmp.lines().filter(|l| l.starts_with("Ip:"));
    let (names, values) = (lines.next().unwrap(), lines.next().unwrap());
    let i = names
        .split_whitespace()
        .position(|n| n == "InCsumErrors")
        .unwrap_or(0);
    values
        .split_whitespace()
        .nth(i)
        .unwrap()
        .parse()
        .unwrap_or(0)
}

/// Sends `n` datagrams of 1000 bytes at 4 Mbit/s (twice the link) with IP TOS `tos`
/// from the namespace; returns (the TOS byte of each one received, the emulator's
/// results).
fn overload(
    tos: u8,
    n: usize,
    pcap: Option<std::path::PathBuf>,
) -> (Vec<u8>, tcplab_net::emu::EmuResults) {
    let mut cfg = codel_link();
    cfg.pcap = pcap;
    let emu = Emulation::start(cfg).unwrap();
    let sink = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    rustix::net::sockopt::set_ip_recvtos(&sink, true).unwrap();
    sink.set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let to = sink.local_addr().unwrap();
    let got = std::thread::scope(|s| {
        s.spawn(|| {
            emu.ns()
                .run_in(|| {
                    let sock = UdpSocket::bind("0.0.0.0:0").unwrap();
                    rustix::net::sockopt::set_ip_tos(&sock, tos).unwrap();
                    let t0 = Instant::now();
                    let gap = Duration::from_micros(2_000); // 1000 B per 2 ms: 4 Mbit/s
                    for i in 0..n {
                        let due = gap * i as u32;
                        if let Some(w) = due.checked_sub(t0.elapsed()) {
                            std::thread::sleep(w);
                        }
                        sock.send_to(&[0u8; 1000 - 28], to).unwrap();
                    }
                })
                .unwrap()
        });
        let mut got = Vec::new();
        while let Some(t) = recv_tos(&sink) {
            got.push(t);
            if got.len() == n {
                break;
            }
        }
        got
    });
    (got, emu.stop().unwrap())
}

fn fwd(res: &tcplab_net::emu::EmuResults, col: &str) -> u64 {
    res.links.ints(col).unwrap()[0]
}

#[test]
fn codel_marks_ect_packets_ce_in_their_ip_header() {
    if !can_run() {
        return;
    }
    let csum_before = in_csum_errors();
    let pcap = std::env::temp_dir().join(format!("tcplab-ecn-{}.pcapng", std::process::id()));
    let (got, res) = overload(0x02, 500, Some(pcap.clone())); // ECT(0)
    let ce = got.iter().filter(|&&t| t & 0b11 == 0b11).count() as u64;
    eprintln!(
        "received {} of 500, {ce} CE; link marked {}, dropped_aqm {}, sojourn p50 {:?} ms",
        got.len(),
        fwd(&res, "marked_ce"),
        fwd(&res, "dropped_aqm"),
        res.links.floats("sojourn_p50_ms").map(|v| v[0]),
    );
    // Every packet arrives: marked instead of dropped, and the host's kernel took every
    // rewritten header (a bad IPv4 checksum is dropped on receipt and counted).
    assert_eq!(got.len(), 500, "every ECT datagram is delivered");
    assert_eq!(in_csum_errors(), csum_before, "no header checksum errors");
    assert!(ce > 10, "a standing queue over 5 ms gets CE marks ({ce})");
    assert_eq!(ce, fwd(&res, "marked_ce"), "each mark reached the receiver");
    assert_eq!(fwd(&res, "dropped_aqm"), 0);
    assert!(got.iter().all(|&t| t & 0b11 == 0b10 || t & 0b11 == 0b11));
    // The packet log shows the mark at departure, not at arrival.
    let logged = |ev: PacketEvent, e: &str| {
        (0..res.packets.len())
            .filter(|&i| {
                res.packets.direction[i] == 0
                    && res.packets.event[i] == ev
                    && tcplab_net::emu::ecn_name(res.packets.ecn[i]) == Some(e)
            })
            .count() as u64
    };
    assert_eq!(logged(PacketEvent::Depart, "ce"), ce);
    assert_eq!(logged(PacketEvent::Arrive, "ce"), 0);
    // The capture holds the packets as they left the link: the same CE marks.
    let (udp, udp_ce) = captured_udp(&std::fs::read(&pcap).unwrap());
    std::fs::remove_file(&pcap).unwrap();
    assert_eq!(
        (udp, udp_ce),
        (500, ce),
        "forward UDP packets in the capture, CE among them"
    );
}

/// (forward UDP packets, those with CE) in a pcapng file of the emulator's.
fn captured_udp(b: &[u8]) -> (u64, u64) {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let (mut at, mut udp, mut ce) = (0, 0, 0);
    while at + 12 <= b.len() {
        let (kind, len) = (u32_at(at), u32_at(at + 4) as usize);
        // An enhanced packet block on interface 0 (forward) with an IPv4 UDP packet.
        if kind == 6 && u32_at(at + 8) == 0 {
            let ip = &b[at + 28..];
            if ip[0] >> 4 == 4 && ip[9] == 17 {
                udp += 1;
                ce += u64::from(ip[1] & 0b11 == 0b11);
            }
        }
        at += len;
    }
    (udp, ce)
}

#[test]
fn codel_drops_packets_that_are_not_ecn_capable() {
    if !can_run() {
        return;
    }
    let (got, res) = overload(0x00, 500, None);
    let dropped = fwd(&res, "dropped_aqm");
    eprintln!("received {} of 500; dropped_aqm {dropped}", got.len());
    assert!(dropped > 10, "CoDel drops instead ({dropped})");
    assert_eq!(got.len() as u64, 500 - dropped);
    assert_eq!(fwd(&res, "marked_ce"), 0);
    assert!(got.iter().all(|&t| t & 0b11 == 0));
    let drops_logged = (0..res.packets.len())
        .filter(|&i| {
            res.packets.direction[i] == 0 && res.packets.event[i] == PacketEvent::DropQueue
        })
        .count() as u64;
    assert_eq!(
        drops_logged, dropped,
        "each dequeue drop is in the packet log"
    );
}

/// Two UDP flows through an FQ-CoDel link: one at twice the link's rate, one sparse.
/// Returns each flow's median one-way delay (ns), measured by the receiver against the
/// send time carried in the datagram (one host, one monotonic clock).
fn fq_codel_medians() -> (u64, u64) {
    let emu = Emulation::start(config(
        r#"
        [link]
        rate = "2Mbps"
        delay = "2ms"
        queue = "1000pkt"
        discipline = "fq_codel"
        "#,
    ))
    .unwrap();
    let sink = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    sink.set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let to = sink.local_addr().unwrap();
    let t0 = Instant::now();
    let now_ns = move || t0.elapsed().as_nanos() as u64;
    let (heavy_n, light_n) = (600usize, 30usize);
    let delays = std::thread::scope(|s| {
        for (flow, n, gap_us) in [(0u8, heavy_n, 2_000u64), (1, light_n, 40_000)] {
            let emu = &emu;
            s.spawn(move || {
                emu.ns()
                    .run_in(|| {
                        // Each flow its own socket: its own source port, its own 5-tuple.
                        let sock = UdpSocket::bind("0.0.0.0:0").unwrap();
                        let mut d = [0u8; 1000 - 28];
                        for i in 0..n {
                            let due = Duration::from_micros(gap_us * i as u64);
                            if let Some(w) = due.checked_sub(t0.elapsed()) {
                                std::thread::sleep(w);
                            }
                            d[0] = flow;
                            d[1..9].copy_from_slice(&now_ns().to_le_bytes());
                            sock.send_to(&d, to).unwrap();
                        }
                    })
                    .unwrap()
            });
        }
        let mut delays: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        let mut buf = [0u8; 2048];
        while let Ok(n) = sink.recv(&mut buf) {
            assert!(n > 9);
            let sent = u64::from_le_bytes(buf[1..9].try_into().unwrap());
            delays[buf[0] as usize].push(now_ns() - sent);
        }
        delays
    });
    emu.stop().unwrap();
    let median = |mut v: Vec<u64>| {
        v.sort();
        v[v.len() / 2]
    };
    let [heavy, light] = delays;
    assert_eq!(light.len(), light_n, "the sparse flow loses nothing");
    (median(heavy), median(light))
}

#[test]
fn fq_codel_keeps_a_sparse_flow_out_of_a_heavy_flows_queue() {
    if !can_run() {
        return;
    }
    // The flows are told apart by their real 5-tuple (source ports differ): the sparse
    // flow's packets are served ahead of the heavy flow's standing queue. Hashed as one
    // flow they would wait behind it.
    let (heavy, light) = fq_codel_medians();
    eprintln!(
        "median one-way delay: heavy {:.1} ms, sparse {:.1} ms",
        heavy as f64 / 1e6,
        light as f64 / 1e6
    );
    // A sparse packet's own path: 2 ms propagation, 4 ms to serialise 1,000 bytes at
    // 2 Mbit/s, and up to 4 ms behind the heavy packet already on the wire: 10 ms at
    // most, 8 ms on average. The emulator's timers add host jitter on top (10.1 ms seen
    // on a loaded CI machine), so the bound allows 10 ms of it; hashed as one flow the
    // sparse packets would wait behind the heavy flow's standing queue (hundreds of ms).
    assert!(heavy > 100_000_000, "the heavy flow queues ({heavy} ns)");
    assert!(light < 20_000_000, "the sparse flow does not ({light} ns)");
}
