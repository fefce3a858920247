//! The emulator on real packets: a few seconds of UDP probes and a TCP transfer through
//! an emulated link. Needs root and /dev/net/tun; elsewhere each test says why it skips.

use common::{can_run, config};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::time::Duration;
use tcplab_net::emu::{Emulation, PacketEvent};
use tcplab_net::probe;

mod common;

#[test]
fn udp_probes_see_the_configured_rate_and_delay() {
    if !can_run() {
        return;
    }
    let cfg = config(
        r#"
        sample = "50ms"
        [link]
        rate = "10Mbps"
        delay = "5ms"
        queue = "1000pkt"
        "#,
    );
    let params = cfg.scenario.links[0].fwd.clone();
    let emu = Emulation::start(cfg).unwrap();
    let sink = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    let to: SocketAddr = sink.local_addr().unwrap();
    // 1.5x the link rate for 0.5 s: the queue builds and the link runs flat out.
    let sender = std::thread::scope(|s| {
        let h = s.spawn(|| {
            emu.ns()
                .run_in(|| {
                    let sock = UdpSocket::bind("0.0.0.0:0").unwrap();
                    probe::send_paced(&sock, to, 1172, 15_000_000, 800).unwrap()
                })
                .unwrap()
        });
        let recv =
            probe::receive(&sink, Duration::from_millis(500), Duration::from_secs(10)).unwrap();
        (h.join().unwrap(), recv)
    });
    let (sent, recv) = sender;
    let res = emu.stop().unwrap();
    assert_eq!(sent.len(), 800);
    assert_eq!(recv.len(), 800, "unlimited-enough queue: nothing dropped");
    let rate = probe::delivered_rate_bps(&recv).unwrap();
    assert!(
        (rate / 10e6 - 1.0).abs() < 0.02,
        "delivered {rate:.0} bit/s on a 10 Mbit/s link"
    );
    // One-way delay against the model replayed on the send times.
    let expect = probe::expected_arrivals(&params, &sent);
    let mut err: Vec<i64> = recv
        .iter()
        .map(|r| r.recv_ns as i64 - expect[r.seq as usize].unwrap() as i64)
        .collect();
    err.sort();
    let p50 = err[err.len() / 2];
    assert!(
        (0..2_000_000).contains(&p50),
        "median one-way delay error {p50} ns"
    );
    // The link tables count what crossed, the packet log has every packet.
    let fwd = 0;
    assert!(res.links.ints("delivered_pkts").unwrap()[fwd] >= 800);
    assert_eq!(res.links.ints("dropped_queue").unwrap()[fwd], 0);
    let departs = res
        .packets
        .event
        .iter()
        .zip(&res.packets.direction)
        .filter(|(e, d)| **e == PacketEvent::Depart && **d == 0)
        .count() as u64;
    assert_eq!(departs, res.links.ints("delivered_pkts").unwrap()[fwd]);
    assert!(res.link_series.rows() >= 2 * 10, "sampled every 50 ms");
    let maxq = *res
        .link_series
        .ints("queue_pkts")
        .unwrap()
        .iter()
        .max()
        .unwrap();
    assert!(maxq > 100, "1.5x overload builds a queue (max {maxq})");
    eprintln!(
        "rate {:.3} Mbit/s, delay error p50 {} us, lateness p99 {} us, realtime {}",
        rate / 1e6,
        p50 / 1000,
        res.info.late_p99_ns / 1000,
        res.info.realtime
    );
}

#[test]
fn tcp_transfer_through_a_lossy_link_arrives_intact() {
    if !can_run() {
        return;
    }
    let cfg = config(
        r#"
        [link]
        rate = "20Mbps"
        delay = "2ms"
        queue = "50pkt"
        loss = "1%"
        "#,
    );
    let emu = Emulation::start(cfg).unwrap();
    let listener = TcpListener::bind((emu.host_addr(), 0)).unwrap();
    let to = listener.local_addr().unwrap();
    const N: usize = 1 << 20;
    let got = std::thread::scope(|s| {
        s.spawn(|| {
            emu.ns()
                .run_in(|| {
                    let mut c = TcpStream::connect(to).unwrap();
                    let data: Vec<u8> = (0..N).map(|i| (i * 7 % 251) as u8).collect();
                    c.write_all(&data).unwrap();
                })
                .unwrap()
        });
        let (mut c, _) = listener.accept().unwrap();
        let mut v = Vec::new();
        c.read_to_end(&mut v).unwrap();
        v
    });
    let res = emu.stop().unwrap();
    assert_eq!(got.len(), N);
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &b)| b == (i * 7 % 251) as u8));
    assert!(
        res.links.ints("dropped_loss").unwrap()[0] > 0,
        "1 % loss on ~750 packets"
    );
    let lost = res
        .packets
        .event
        .iter()
        .filter(|e| **e == PacketEvent::DropLoss)
        .count() as u64;
    assert_eq!(
        lost,
        res.links.ints("dropped_loss").unwrap()[0] + res.links.ints("dropped_loss").unwrap()[1]
    );
    // 1 MiB at 20 Mbit/s takes at least 0.42 s.
    assert!(res.info.duration_s > 0.42, "{}", res.info.duration_s);
}

/// Without root the emulator refuses with one clear sentence. As root, the test re-runs
/// itself as `nobody` to see that refusal for real.
#[test]
fn without_root_the_error_says_so() {
    use std::os::unix::process::CommandExt;
    let as_nobody = std::env::var_os("TCPLAB_TEST_AS_NOBODY").is_some();
    if as_nobody || !tcplab_net::sys::is_root() {
        let e = Emulation::start(config("[link]\nrate = \"10Mbps\"\n"))
            .err()
            .expect("no namespace without root");
        let msg = e.to_string();
        assert!(msg.contains("needs root"), "{msg}");
        assert!(msg.contains("CAP_NET_ADMIN"), "{msg}");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "--exact",
        "without_root_the_error_says_so",
        "--test-threads",
        "1",
    ])
    .env("TCPLAB_TEST_AS_NOBODY", "1");
    cmd.gid(65534).uid(65534);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
}

/// A handover (outage, then a slower rate) happens on the wall clock: packets offered
/// during the outage are dropped as `drop_down`, and afterwards each takes the new
/// serialisation time.
#[test]
fn handover_schedule_runs_on_the_wall_clock() {
    if !can_run() {
        return;
    }
    let cfg = config(
        r#"
        [link]
        rate = "10Mbps"
        delay = "1ms"
        [[link.handover]]
        at = "300ms"
        outage = "200ms"
        to = { rate = "4Mbps" }
        "#,
    );
    let emu = Emulation::start(cfg).unwrap();
    let sink = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    let to = sink.local_addr().unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            emu.ns()
                .run_in(|| {
                    let sock = UdpSocket::bind("0.0.0.0:0").unwrap();
                    // 1250-byte IP packets at 2 Mbit/s for 0.9 s.
                    probe::send_paced(&sock, to, 1222, 2_000_000, 180).unwrap()
                })
                .unwrap()
        });
        probe::receive(&sink, Duration::from_millis(300), Duration::from_secs(5)).unwrap()
    });
    let res = emu.stop().unwrap();
    let p = &res.packets;
    let fwd = |i: usize| p.direction[i] == 0;
    let downs: Vec<u64> = (0..p.len())
        .filter(|&i| fwd(i) && p.event[i] == PacketEvent::DropDown)
        .map(|i| p.t_ns[i])
        .collect();
    assert!(
        downs.len() >= 30,
        "~40 probes offered during 200 ms of outage: {}",
        downs.len()
    );
    assert!(downs
        .iter()
        .all(|&t| (300_000_000..520_000_000).contains(&t)));
    // Before: 1 ms + 1.0 ms serialisation; after: 1 ms + 2.5 ms.
    let delays = |lo: u64, hi: u64| -> Vec<u64> {
        (0..p.len())
            .filter(|&i| fwd(i) && p.event[i] == PacketEvent::Depart)
            .filter(|&i| (lo..hi).contains(&p.t_ns[i]))
            .map(|i| p.delay_ns[i])
            .collect()
    };
    let before = delays(0, 290_000_000);
    let after = delays(550_000_000, u64::MAX);
    assert!(!before.is_empty() && !after.is_empty());
    assert!(before.iter().all(|&d| d >= 2_000_000), "{before:?}");
    assert!(*before.iter().min().unwrap() < 3_000_000, "{before:?}");
    assert!(after.iter().all(|&d| d >= 3_500_000), "{after:?}");
    assert_eq!(
        res.links.ints("dropped_down").unwrap()[0],
        downs.len() as u64
    );
}
