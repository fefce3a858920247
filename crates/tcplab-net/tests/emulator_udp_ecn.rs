//! tcplab's own ECN over the UDP driver through the emulator: DCTCP (`tcplab send` in
//! the emulator's namespace, `tcplab recv` on the host) on a step-marking queue gets CE
//! marks in its datagrams' IP headers, echoes them and cuts its window, and every byte
//! arrives. Needs root and /dev/net/tun; elsewhere it says why it skips.

use common::{can_run, config};
use std::net::UdpSocket;
use tcplab_core::Dur;
use tcplab_net::emu::{EmuConfig, Emulation};
use tcplab_net::udp::{self, RecvOptions, SendOptions};

mod common;

/// 10 Mbit/s, 10 ms each way, marking above K = 20 packets (DCTCP's step queue, RFC 8257
/// section 3.1; K as the examples' 1 Gbit/s setting scaled down, about 0.17 BDP here).
fn step_link() -> EmuConfig {
    config(
        r#"
        [link]
        rate = "10Mbps"
        delay = "10ms"
        queue = "1000pkt"
        discipline = { kind = "step", k = 20 }
        "#,
    )
}

#[test]
fn dctcp_over_the_udp_driver_answers_the_emulators_step_marks() {
    if !can_run() {
        return;
    }
    let bytes: u64 = 6_000_000;
    let emu = Emulation::start(step_link()).unwrap();
    let rsock = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    let to = rsock.local_addr().unwrap();
    let table: toml::Table = format!("cc = \"dctcp\"\nbytes = {bytes}\nack = \"per-packet\"")
        .parse()
        .unwrap();
    // The receiver's ACK policy is its own (`tcplab recv --set ack=per-packet`).
    let receiver = udp::flow_spec(&table, "test.toml")
        .unwrap()
        .tcp()
        .unwrap()
        .receiver
        .clone();
    let (s, r) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                receiver,
                listen_timeout: Some(Dur::from_secs(10)),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o).unwrap()
        });
        let o = SendOptions::from_table(to, &table, "test.toml").unwrap();
        let s = emu.ns().run_in(|| udp::send(&o)).unwrap().unwrap();
        (s, rh.join().unwrap())
    });
    let res = emu.stop().unwrap();
    let f = &s.results.flows;
    let marked = res.links.ints("marked_ce").unwrap()[0];
    let cuts = f.ints("ecn_cuts").unwrap()[0];
    let goodput = f.floats("goodput_bps").unwrap()[0];
    let p50 = res.links.floats("sojourn_p50_ms").map(|v| v[0]);
    let p99 = res.links.floats("sojourn_p99_ms").map(|v| v[0]);
    eprintln!(
        "DCTCP over UDP through step K=20: {marked} CE marks, {cuts} window cuts, \
         {} retransmitted, goodput {:.2} Mbit/s, sojourn p50 {p50:?} p99 {p99:?} ms",
        f.ints("retransmitted_segments").unwrap()[0],
        goodput / 1e6
    );
    assert_eq!(r.delivered, bytes);
    assert_eq!(s.peer.delivered, bytes);
    assert!(marked > 10, "the queue passed K: {marked} marks");
    assert!(cuts > 3, "DCTCP answered the echoed marks: {cuts} cuts");
    // The marks, not losses, held the queue: no drop at the 1,000-packet limit.
    assert_eq!(res.links.ints("dropped_limit").unwrap()[0], 0);
    assert!(goodput > 5e6, "{goodput}");
}

/// The same through `transfer::through_emulator`, what `tcplab compare` runs for its
/// UDP mode: the receiver takes the flow's ECN setting from the flow itself.
#[test]
fn compares_udp_mode_carries_dctcp_through_the_step_queue() {
    if !can_run() {
        return;
    }
    let bytes: u64 = 3_000_000;
    let flow = udp::flow_spec(
        &"cc = \"dctcp\"\nbytes = \"unlimited\"\nack = \"per-packet\""
            .parse()
            .unwrap(),
        "test.toml",
    )
    .unwrap();
    let t = tcplab_net::transfer::through_emulator(
        step_link(),
        &tcplab_net::transfer::Transport::Udp {
            flow: Box::new(flow),
        },
        Some(bytes),
        None,
        Dur::from_millis(10),
    )
    .unwrap();
    let marked = t.emu.links.ints("marked_ce").unwrap()[0];
    let cuts = t.flows.ints("ecn_cuts").unwrap()[0];
    eprintln!("compare's UDP mode: {marked} CE marks, {cuts} cuts");
    assert_eq!(t.receiver_bytes, bytes);
    assert!(marked > 10 && cuts > 3, "{marked} marks, {cuts} cuts");
}
