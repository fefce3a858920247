//! Packet capture (`tcplab_sim::capture`): the file holds what the link carried, and
//! capturing changes no result.

use tcplab_sim::capture::{CaptureError, Directions, PcapCapture, PcapStats};
use tcplab_sim::{parse_scenario_str, simulate, simulate_tapped, Results, Scenario};

fn scenario(text: &str) -> Scenario {
    parse_scenario_str(text, "capture.toml").unwrap()
}

const LOSSY: &str =
    "[link]\nrate = \"20Mbps\"\ndelay = \"5ms\"\nloss = \"1%\"\nqueue = \"20pkt\"\n\
                     [[flow]]\nrecovery = \"sack\"\nbytes = \"2MB\"\n";

fn capture(sc: &Scenario, link: &str, dirs: Directions) -> (Results, PcapStats, Vec<u8>) {
    let mut cap = PcapCapture::new(Vec::new(), sc, (1, 0), link, dirs, 80).unwrap();
    let res = simulate_tapped(sc, 1, 0, None, Some(&mut cap)).unwrap();
    // The file is only complete after finish(); re-run into a Vec to look at it.
    let stats = cap.finish().unwrap();
    let mut file = Vec::new();
    {
        let mut cap = PcapCapture::new(&mut file, sc, (1, 0), link, dirs, 80).unwrap();
        simulate_tapped(sc, 1, 0, None, Some(&mut cap)).unwrap();
        assert_eq!(cap.finish().unwrap(), stats, "captures are deterministic");
    }
    (res, stats, file)
}

/// Enhanced packet blocks as (interface, timestamp ns, captured bytes, original length).
fn packets(file: &[u8]) -> Vec<(u32, u64, Vec<u8>, u32)> {
    let u32_at = |o: usize| u32::from_le_bytes(file[o..o + 4].try_into().unwrap());
    let mut out = vec![];
    let mut o = 0;
    while o < file.len() {
        let (kind, len) = (u32_at(o), u32_at(o + 4) as usize);
        if kind == 6 {
            let ts = (u64::from(u32_at(o + 12)) << 32) | u64::from(u32_at(o + 16));
            let cap = u32_at(o + 20) as usize;
            out.push((
                u32_at(o + 8),
                ts,
                file[o + 28..o + 28 + cap].to_vec(),
                u32_at(o + 24),
            ));
        }
        o += len;
    }
    out
}

/// `delivered_pkts` of each row of the links table, by (link, direction).
fn delivered(res: &Results, link: &str, dir: &str) -> u64 {
    let t = &res.links;
    let (names, dirs) = (t.texts("link").unwrap(), t.texts("direction").unwrap());
    let i = (0..t.rows())
        .find(|&i| names[i] == link && dirs[i] == dir)
        .unwrap();
    t.ints("delivered_pkts").unwrap()[i]
}

#[test]
fn capturing_changes_no_result() {
    let sc = scenario(LOSSY);
    let plain = simulate(&sc, 1, 0).unwrap();
    let (tapped, stats, _) = capture(&sc, "link", Directions::Both);
    assert!(
        stats.packets[0] > 1000 && stats.packets[1] > 500,
        "{stats:?}"
    );
    assert_eq!(plain.digest(), tapped.digest());
}

#[test]
fn the_file_holds_what_the_link_delivered() {
    let sc = scenario(LOSSY);
    let (res, stats, file) = capture(&sc, "link", Directions::Both);
    let pk = packets(&file);
    assert_eq!(stats.packets[0], delivered(&res, "link", "fwd"));
    assert_eq!(stats.packets[1], delivered(&res, "link", "rev"));
    assert_eq!(pk.len() as u64, stats.packets[0] + stats.packets[1]);
    assert_eq!(
        res.flows.ints("packets_delivered").unwrap()[0],
        stats.packets[0],
        "one link: what it delivered forward is what the sink received"
    );
    // Timestamps never go back, and lie within the run.
    assert!(pk.windows(2).all(|w| w[0].1 <= w[1].1));
    let end_ns = (res.info.end_time_s * 1e9).round() as u64;
    assert!(pk.last().unwrap().1 <= end_ns);
    // Forward: data segments whose sequence numbers cover the whole transfer.
    let mut top = 0u64;
    let mut syns = 0;
    for (iface, _, bytes, len) in &pk {
        let tcp = &bytes[20..];
        let seq = u32::from_be_bytes(tcp[4..8].try_into().unwrap()) as u64;
        let hlen = (tcp[12] >> 4) as u32 * 4;
        let payload = u64::from(len - 20 - hlen);
        if tcp[13] & 0x02 != 0 {
            // The handshake: SYN forward, SYN-ACK back, before any data.
            assert_eq!(
                (tcp[13], payload),
                (if *iface == 0 { 0x02 } else { 0x12 }, 0)
            );
            assert_eq!(top, 0);
            syns += 1;
            continue;
        }
        match iface {
            0 => {
                assert_eq!(&bytes[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
                assert!(payload > 0);
                top = top.max(seq + payload);
            }
            _ => {
                assert_eq!(&bytes[12..20], &[10, 0, 0, 2, 10, 0, 0, 1]);
                assert_eq!(payload, 0, "pure ACKs");
            }
        }
    }
    assert_eq!(top, 2_000_000);
    assert_eq!(syns, 2);
    assert!(
        file.len() as u64 <= 112 * (stats.packets[0] + stats.packets[1]) + 2048,
        "80-byte snapshots keep the file small: {} bytes",
        file.len()
    );
}

#[test]
fn one_direction_and_half_duplex() {
    let sc = scenario(LOSSY);
    let (_, stats, file) = capture(&sc, "link", Directions::Reverse);
    assert_eq!(stats.packets[0], 0);
    assert!(
        packets(&file).iter().all(|p| p.0 == 0),
        "a single interface"
    );
    let half = scenario(&LOSSY.replace("loss = \"1%\"", "duplex = \"half\""));
    let (res, stats, file) = capture(&half, "link", Directions::Both);
    assert_eq!(
        stats.packets[0] + stats.packets[1],
        delivered(&res, "link", "shared")
    );
    for (iface, _, bytes, _) in packets(&file) {
        let from_source = bytes[15] == 1;
        assert_eq!(iface == 0, from_source, "a -> b on the fwd interface");
    }
}

#[test]
fn datagram_flows_are_udp() {
    let sc = scenario(
        "duration = \"1s\"\n[link]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nbytes = \"200kB\"\n\
         [[flow]]\ntransport = \"datagram\"\nrate = \"1Mbps\"\nbytes = \"unlimited\"\n",
    );
    let (res, _, file) = capture(&sc, "link", Directions::Forward);
    let udp: Vec<_> = packets(&file)
        .into_iter()
        .filter(|p| p.2[9] == 17)
        .collect();
    assert_eq!(
        udp.len() as u64,
        res.flows.ints("packets_delivered").unwrap()[1]
    );
    for (i, p) in udp.iter().enumerate() {
        assert_eq!(
            &p.2[20..24],
            &[0x27, 0x11, 0x13, 0x89],
            "ports 10001 -> 5001"
        );
        assert_eq!(
            u64::from_be_bytes(p.2[28..36].try_into().unwrap()),
            i as u64
        );
    }
}

#[test]
fn unknown_link_and_bad_snaplen_are_clear_errors() {
    let sc = scenario(LOSSY);
    let e = PcapCapture::new(Vec::new(), &sc, (1, 0), "bottleneck", Directions::Both, 80)
        .err()
        .unwrap();
    assert!(matches!(e, CaptureError::Invalid(_)));
    let msg = e.to_string();
    assert!(
        msg.contains("no link named 'bottleneck'") && msg.contains("link"),
        "{msg}"
    );
    let e = PcapCapture::new(Vec::new(), &sc, (1, 0), "link", Directions::Both, 0)
        .err()
        .unwrap();
    assert!(e.to_string().contains("snaplen"), "{e}");
}

#[test]
fn a_failing_writer_is_reported_at_the_end() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sc = scenario(LOSSY);
    let e = PcapCapture::new(Full, &sc, (1, 0), "link", Directions::Both, 80)
        .err()
        .unwrap();
    assert!(e.to_string().contains("disk full"), "{e}");
    // A writer that fails mid-run: the run completes, finish() reports it.
    let mut cap = PcapCapture::new(
        std::io::BufWriter::with_capacity(64, Limited(4096)),
        &sc,
        (1, 0),
        "link",
        Directions::Both,
        80,
    )
    .unwrap();
    simulate_tapped(&sc, 1, 0, None, Some(&mut cap)).unwrap();
    let e = cap.finish().err().unwrap();
    assert!(e.to_string().contains("limit"), "{e}");
}

/// Accepts `.0` bytes, then fails.
struct Limited(usize);

impl std::io::Write for Limited {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if b.len() > self.0 {
            return Err(std::io::Error::other("limit reached"));
        }
        self.0 -= b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// With ECN on through a marking CoDel: the SYN asks for ECN (SYN|ECE|CWR), the SYN-ACK
/// agrees (SYN|ACK|ECE), data leaves ECT(0) and some arrives CE (marked on this link:
/// the capture is taken as it leaves it), ACKs echo ECE and some data carries CWR. The
/// number of CE packets is the link's `marked_ce`.
#[test]
fn the_ecn_bits_are_in_the_file() {
    let sc = scenario(
        "duration = \"10s\"\n[link]\nrate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = \"1000pkt\"\n\
         discipline = { kind = \"codel\", ecn = true }\n\
         [[flow]]\ncc = \"cubic\"\necn = true\nbytes = \"unlimited\"\n\
         [[flow]]\ncc = \"cubic\"\necn = true\nbytes = \"unlimited\"\nstart = \"1s\"\n",
    );
    let (res, _, file) = capture(&sc, "link", Directions::Both);
    let pk = packets(&file);
    let (mut ect, mut ce, mut ece, mut cwr, mut syn) = (0u64, 0u64, 0, 0, vec![]);
    for (iface, _, bytes, _) in &pk {
        let (tos, flags) = (bytes[1], bytes[20 + 13]);
        if flags & 0x02 != 0 {
            syn.push((*iface, flags));
            continue;
        }
        match (iface, tos & 3) {
            (0, 0b10) => ect += 1,
            (0, 0b11) => ce += 1,
            (0, x) => panic!("data with ECN field {x:#b}"),
            _ => assert_eq!(tos & 3, 0, "ACKs are Not-ECT"),
        }
        ece += u64::from(flags & 0x40 != 0);
        cwr += u64::from(flags & 0x80 != 0);
    }
    let t = &res.links;
    let i = (0..t.rows())
        .find(|&i| t.texts("direction").unwrap()[i] == "fwd")
        .unwrap();
    let marked = t.opt_ints("marked_ce").unwrap()[i].unwrap();
    eprintln!("ECT {ect}, CE {ce} (marked {marked}), ECE {ece}, CWR {cwr}, SYNs {syn:?}");
    assert_eq!(syn, [(0, 0xc2), (1, 0x52), (0, 0xc2), (1, 0x52)]);
    assert!(ect > 1000 && ce > 0 && ece > 0 && cwr > 0);
    assert_eq!(ce, marked);
}
