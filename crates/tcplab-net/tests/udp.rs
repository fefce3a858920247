//! The UDP driver on loopback: a real transfer between two sockets, with a flood of
//! foreign datagrams aimed at the receiver during it.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use tcplab_core::Dur;
use tcplab_net::udp::{self, RecvOptions, SendOptions};

fn flow(text: &str) -> tcplab_scenario::FlowSpec {
    udp::flow_spec(&text.parse().unwrap(), "test.toml").unwrap()
}

/// One transfer of the `[[flow]]` table `text` between two loopback sockets: what the
/// sender and the receiver (listening up to 10 s) report.
fn transfer(
    text: &str,
) -> (
    Result<udp::SendOutcome, tcplab_net::NetError>,
    Result<udp::RecvOutcome, tcplab_net::NetError>,
) {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let table: toml::Table = text.parse().unwrap();
    std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(10)),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o)
        });
        let o = SendOptions::from_table(to, &table, "test.toml").unwrap();
        (udp::send(&o), rh.join().unwrap())
    })
}

#[test]
fn loopback_transfer_delivers_every_byte_despite_a_flood() {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let done = AtomicBool::new(false);
    let (s, r, flooded) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(10)),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o).unwrap()
        });
        let fh = sc.spawn(|| {
            let f = UdpSocket::bind("127.0.0.1:0").unwrap();
            let mut n = 0u64;
            let junk = [
                0x54u8, 0x4c, 1, 3, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0,
            ];
            while !done.load(Ordering::Relaxed) {
                let _ = f.send_to(&junk[..(n % 20) as usize], to);
                n += 1;
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            n
        });
        let mut o = SendOptions::new(
            to,
            flow("cc = \"cubic\"\nbytes = \"20MB\"\nrecovery = \"sack\""),
        );
        o.sample = Some(Dur::from_millis(5));
        let s = udp::send(&o).unwrap();
        done.store(true, Ordering::Relaxed);
        (s, rh.join().unwrap(), fh.join().unwrap())
    });
    assert_eq!(r.delivered, 20_000_000);
    assert_eq!(s.peer.delivered, 20_000_000);
    let f = &s.results.flows;
    assert!(f.bools("completed").unwrap()[0]);
    assert_eq!(f.ints("bytes_delivered").unwrap()[0], 20_000_000);
    assert_eq!(f.texts("cc").unwrap()[0], "cubic");
    // Speed is measured by the udp_loopback example, not here (a shared debug build).
    assert!(f.floats("goodput_bps").unwrap()[0] > 0.0);
    // The sender's own endpoint summary fills the simulator's TCP columns.
    assert_eq!(f.texts("recovery").unwrap()[0], "sack");
    assert!(f.ints("segments_sent").unwrap()[0] >= 20_000_000 / 1500);
    assert!(s.results.flow_series.rows() > 0);
    // Every foreign datagram that arrived before the receiver finished was counted.
    assert!(r.counters.wrong_source > 0, "{:?}", r.counters);
    assert!(r.counters.wrong_source <= flooded);
    eprintln!(
        "retx {} rtos {} srtt mean {:?}",
        f.ints("retransmitted_segments").unwrap()[0],
        f.ints("rtos").unwrap()[0],
        f.opt_floats("rtt_mean_s").unwrap()[0]
    );
    eprintln!(
        "goodput {:.0} Mbit/s, {} datagrams out in {} sendmmsg calls, flood {} (counted {}), timer late mean {:.1} us",
        f.floats("goodput_bps").unwrap()[0] / 1e6,
        s.loop_stats.datagrams_out,
        s.loop_stats.send_calls,
        flooded,
        r.counters.wrong_source,
        s.loop_stats.timer_late_sum_ns as f64 / s.loop_stats.timer_fires.max(1) as f64 / 1e3
    );
}

#[test]
fn a_sender_without_receiver_fails_clearly() {
    // A bound socket that never answers.
    let quiet = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut o = SendOptions::new(quiet.local_addr().unwrap(), flow("bytes = \"1MB\""));
    o.connect_timeout = Dur::from_millis(300);
    let e = udp::send(&o).unwrap_err();
    assert!(e.to_string().contains("no tcplab receiver answered"), "{e}");
}

/// Every transport the wire format carries, over real sockets on loopback: the receiver
/// builds the flow's sink from the HELLO alone, and delivers exactly the bytes sent.
#[test]
fn every_transport_runs_over_loopback() {
    let flows = [
        ("tack", "transport = \"tack\"\nbytes = \"3MB\""),
        (
            "tcp-nc",
            "transport = \"tcp-nc\"\ncc = \"cubic\"\nbytes = \"3MB\"",
        ),
        (
            "tcp-forward",
            "transport = \"tcp-forward\"\nbytes = \"3MB\"",
        ),
        (
            "datagram",
            "transport = \"datagram\"\nrate = \"50Mbps\"\nbytes = \"3MB\"",
        ),
        ("tcp", "cc = \"bbr\"\nbytes = \"3MB\""),
    ];
    for (name, text) in flows {
        let (s, r) = transfer(text);
        let (s, r) = match (s, r) {
            (Ok(s), Ok(r)) => (s, r),
            (s, r) => panic!(
                "{name}: sender {:?}\nreceiver {:?}",
                s.err(),
                r.map(|r| r.counters)
            ),
        };
        assert_eq!(r.transport, name);
        assert_eq!(r.delivered, 3_000_000, "{name}");
        assert_eq!(s.peer.delivered, 3_000_000, "{name}");
        let f = &s.results.flows;
        assert_eq!(f.texts("transport").unwrap()[0], name);
        assert!(f.bools("completed").unwrap()[0], "{name}");
        assert_eq!(f.ints("bytes_delivered").unwrap()[0], 3_000_000, "{name}");
        assert_eq!(r.counters.rejected(), 0, "{name}: {:?}", r.counters);
        if name != "datagram" {
            let d = s.results.flow_series.ints("delivered");
            assert!(d.is_some_and(|d| !d.is_empty()), "{name}: delivered series");
        }
        eprintln!(
            "{name}: {:.1} Mbit/s, {} datagrams, {} ACKs",
            f.floats("goodput_bps").unwrap()[0] / 1e6,
            r.data_received,
            r.acks_sent
        );
    }
}

/// `payload = true` coded flows between two sessions that share nothing: the sender's
/// datagrams carry the real coded bytes from its source's store, the receiver puts them
/// in its sink's store, and the sink's `tcplab-coding` decoder rebuilds every segment,
/// checking each byte against what the application wrote (a wrong byte fails the
/// session) before it counts as delivered.
#[test]
fn loopback_coded_flows_deliver_the_real_bytes() {
    let flows = [
        (
            "tcp-nc",
            "transport = \"tcp-nc\"\ncc = \"cubic\"\nbytes = \"2MB\"\ncoding = { payload = true }",
        ),
        (
            "tcp-forward",
            "transport = \"tcp-forward\"\nbytes = \"2MB\"\ncoding = { payload = true }",
        ),
    ];
    for (name, text) in flows {
        let (s, r) = transfer(text);
        let (s, r) = match (s, r) {
            (Ok(s), Ok(r)) => (s, r),
            (s, r) => panic!("{name}: sender {:?}\nreceiver {:?}", s.err(), r.err()),
        };
        assert_eq!(r.delivered, 2_000_000, "{name}");
        assert_eq!(s.peer.delivered, 2_000_000, "{name}");
        let f = &s.results.flows;
        assert!(f.bools("completed").unwrap()[0], "{name}");
        assert!(f.bools("payload_mode").unwrap()[0], "{name}");
        assert_eq!(r.counters.rejected(), 0, "{name}: {:?}", r.counters);
        assert!(r.data_received >= 2_000_000 / 1500, "{name}");
    }
}

#[test]
fn a_registered_flow_or_one_without_its_table_is_refused() {
    // A payload-carrying coded flow is accepted (its bytes travel in the symbols).
    udp::flow_spec(
        &"transport = \"tcp-nc\"\nbytes = \"1MB\"\ncoding = { payload = true }"
            .parse()
            .unwrap(),
        "f.toml",
    )
    .unwrap();
    // A non-TCP flow without its table cannot tell the receiver what to build.
    let f = flow("transport = \"tack\"\nbytes = \"1MB\"");
    let o = SendOptions::new("127.0.0.1:9".parse().unwrap(), f);
    let e = udp::send(&o).unwrap_err();
    assert!(e.to_string().contains("from_table"), "{e}");
}

/// ECN is carried for TCP flows (the IP ECN field, CWR and ECE flags) and refused for
/// TCP/NC, whose symbols have no CWR flag, rather than run without it; the key is named.
#[test]
fn ecn_flows_are_carried_for_tcp_and_refused_for_tcp_nc() {
    flow("bytes = \"1MB\"\necn = true");
    flow("bytes = \"1MB\"\ncc = \"dctcp\"");
    flow("bytes = \"1MB\"\necn = false");
    let text = "transport = \"tcp-nc\"\nbytes = \"1MB\"\necn = true";
    let e = udp::flow_spec(&text.parse().unwrap(), "f.toml").unwrap_err();
    assert_eq!(e.key, "flow.ecn", "{text}: {e}");
    assert!(e.to_string().contains("TCP flows only"), "{e}");
}

/// RFC 7323 timestamps over the UDP driver: the endpoint's option (kind 3) travels in
/// both directions, so the sender takes an RTT sample from every ACK of new data.
#[test]
fn loopback_transfer_with_tcp_timestamps() {
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = rsock.local_addr().unwrap();
    let spec =
        flow("bytes = \"2MB\"\nrecovery = \"sack\"\ntimestamps = true\nack = \"per-packet\"");
    assert_eq!(
        spec.tcp().unwrap().sender.mss,
        1448 - 28,
        "MTU 1500 on the wire"
    );
    let (s, r) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(10)),
                ..RecvOptions::default()
            };
            udp::receive_on(rsock, &o).unwrap()
        });
        let s = udp::send(&SendOptions::new(to, spec)).unwrap();
        (s, rh.join().unwrap())
    });
    assert_eq!(r.delivered, 2_000_000);
    let f = &s.results.flows;
    assert!(f.bools("completed").unwrap()[0]);
    assert!(f.opt_floats("rtt_mean_s").unwrap()[0].is_some());
}

/// Receive interrupt coalescing is a simulator model of a host's NIC: over real sockets
/// the hosts coalesce as their drivers do, so the driver refuses the keys by name.
#[test]
fn the_driver_refuses_simulated_interrupt_coalescing() {
    let table = "bytes = \"1MB\"\nsink_rx_coalesce = \"2ms\"\n"
        .parse()
        .unwrap();
    let e = udp::flow_spec(&table, "f.toml").unwrap_err().to_string();
    assert!(e.contains("sink_rx_coalesce"), "{e}");
    let plain = flow("bytes = \"1MB\"\n");
    assert!(udp::flow_endpoints::build(&plain, 1).is_ok());
}

/// Stop-and-wait (`transport`) over `send`/`recv` on loopback delivers exactly the bytes
/// sent: one data datagram per packet (no loss on loopback), each checked byte for byte
/// (a registered one's OPAQUE padded with zeros to the packet's length), none refused.
fn stop_and_wait_over_loopback(transport: &str) {
    let text =
        format!("transport = \"{transport}\"\nbytes = \"300000B\"\nparams = {{ payload = 1200 }}");
    let (s, r) = transfer(&text);
    let (s, r) = match (s, r) {
        (Ok(s), Ok(r)) => (s, r),
        (s, r) => panic!("sender {:?}\nreceiver {:?}", s.err(), r.err()),
    };
    assert_eq!(r.transport, transport);
    assert_eq!(r.delivered, 300_000);
    assert_eq!(s.peer.delivered, 300_000);
    assert_eq!(r.data_received, 250);
    assert_eq!(r.counters.rejected(), 0, "{:?}", r.counters);
    assert_eq!(r.counters.unexpected, 0);
    let f = &s.results.flows;
    assert_eq!(f.texts("transport").unwrap()[0], transport);
    assert!(f.bools("completed").unwrap()[0]);
    assert_eq!(f.ints("bytes_delivered").unwrap()[0], 300_000);
    assert_eq!(f.ints("stopwait_resent").unwrap()[0], 0);
}

/// The proof that the driver is generic: stop-and-wait (`tcplab-transport/src/stopwait/`,
/// the worked example of docs/transports.md) has no line of code in tcplab-net. Its
/// folder's `wire.rs` lays out its two messages and says what they claim; over real
/// sockets the receiver builds its sink from the HELLO, checks every payload byte, and
/// delivers exactly the bytes sent.
#[test]
fn stop_and_wait_runs_over_loopback() {
    stop_and_wait_over_loopback("stopwait");
}

/// A transport registered at run time runs over the driver as over the simulator:
/// registered stop-and-wait (`stopwait/registered.rs`, the same ends with `Opaque`
/// headers) travels as OPAQUE datagrams, its HELLO names it through its flow table, and
/// the receiver process, which registered it too, builds its sink from that.
#[test]
fn a_registered_transport_runs_over_loopback() {
    use tcplab_transport::stopwait::registered;
    tcplab_transport::transport::register("stopwait-registered", registered::REGISTRATION).unwrap();
    stop_and_wait_over_loopback("stopwait-registered");
}
