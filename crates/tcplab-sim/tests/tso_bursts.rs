//! Linux's TSO/GSO bursts (`tso = true`, `crates/tcplab-transport/src/pacing.rs`): a
//! paced sender hands the NIC one TSO packet of about 1 ms of its pacing rate
//! (`tcp_tso_autosize`, net/ipv4/tcp_output.c) and waits its transmission time, so its
//! segments leave in back-to-back runs of that many; `tso = false` sends one segment per
//! pacing slot. Measured on the sender's 10 Gbit/s link of a path whose 100 Mbit/s
//! bottleneck is further on: a BBR flow paced at about 100 Mbit/s has a quantum of 1 ms
//! = 12.5 KB, 8 segments.

use tcplab_sim::capture::{Directions, PcapCapture};
use tcplab_sim::{parse_scenario_str, simulate_tapped};

/// Mean length of the runs of segments that leave the server back to back (less than
/// 2 µs apart: one 1500-byte packet takes 1.2 µs at 10 Gbit/s) over the last second of
/// a 2 s BBR flow, and the flow's goodput.
fn runs(tso: &str) -> (f64, f64) {
    let toml = format!(
        r#"
duration = "2s"
sample = "off"
[[node]]
name = "server"
[[node]]
name = "router"
[[node]]
name = "client"
[[link]]
between = ["server", "router"]
rate = "10Gbps"
delay = "1ms"
queue = "10000pkt"
[[link]]
between = ["router", "client"]
rate = "100Mbps"
delay = "4ms"
queue = "10000pkt"
[[flow]]
cc = "bbr"
from = "server"
to = "client"
bytes = "unlimited"
{tso}
"#
    );
    let sc = parse_scenario_str(&toml, "tso.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut file = Vec::new();
    let mut cap = PcapCapture::new(
        &mut file,
        &sc,
        (1, 0),
        "server-router",
        Directions::Forward,
        64,
    )
    .unwrap();
    let r = simulate_tapped(&sc, 1, 0, None, Some(&mut cap)).unwrap();
    cap.finish().unwrap();
    // Enhanced packet blocks (type 6): the timestamp's high and low words.
    let u32_at = |o: usize| u32::from_le_bytes(file[o..o + 4].try_into().unwrap());
    let (mut times, mut o) = (vec![], 0);
    while o < file.len() {
        let (kind, len) = (u32_at(o), u32_at(o + 4) as usize);
        if kind == 6 {
            times.push((u64::from(u32_at(o + 12)) << 32) | u64::from(u32_at(o + 16)));
        }
        o += len;
    }
    let late: Vec<u64> = times.into_iter().filter(|&t| t >= 1_000_000_000).collect();
    assert!(late.len() > 5000, "{} packets", late.len());
    let starts = 1 + late.windows(2).filter(|w| w[1] - w[0] >= 2_000).count();
    (
        late.len() as f64 / starts as f64,
        r.flows.floats("goodput_bps").unwrap()[0],
    )
}

#[test]
fn tso_sends_the_quantum_back_to_back() {
    let (tso, g_tso) = runs("tso = true");
    let (one, g_one) = runs("tso = false");
    assert!(
        (6.0..=10.0).contains(&tso),
        "TSO: runs of {tso:.2} segments"
    );
    assert!(one < 1.2, "one per slot: runs of {one:.2}");
    for g in [g_tso, g_one] {
        assert!(g > 85e6, "{:.1} Mbit/s", g / 1e6);
    }
}
