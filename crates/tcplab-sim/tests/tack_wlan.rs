//! TACK end to end in the simulator: over an 802.11 cell it delivers every byte with far
//! fewer ACK frames than TCP with delayed ACKs, so the station spends less airtime on ACKs
//! and the flow's goodput is at least TCP's (the TACK paper's Figures 8 and 9 in shape).

use tcplab_sim::{parse_scenario_str, simulate, Results};

fn run(standard: &str, transport: &str, delay: &str) -> Results {
    let toml = format!(
        r#"
sample = "off"
[[node]]
name = "server"
[[node]]
name = "ap"
[[node]]
name = "sta"
[[link]]
between = ["server", "ap"]
rate = "10Gbps"
delay = "{delay}"
queue = "100000pkt"
[[wlan]]
standard = "{standard}"
ap = "ap"
stations = ["sta"]
[[flow]]
transport = "{transport}"
cc = "bbr"
from = "server"
to = "sta"
bytes = "20MB"
"#
    );
    let sc = parse_scenario_str(&toml, "tack.toml").unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{e}"))
}

/// Measured (seed 1): TCP 206.4 Mbit/s with 6.0 % of the airtime in ACK frames, TACK
/// 213.3 Mbit/s with 2.9 % (the paper's Figure 9: 155 vs 198 Mbit/s; docs/reproductions/
/// tack.md says why TCP's aggregated ACKs cost less airtime here). A 20 MB transfer
/// includes start-up, where TACK acknowledges more often (before a rate estimate).
#[test]
fn tack_beats_delayed_acks_on_80211n() {
    let mut out = Vec::new();
    for transport in ["tcp", "tack"] {
        let r = run("802.11n", transport, "5ms");
        let f = &r.flows;
        assert_eq!(
            f.ints("bytes_delivered").unwrap()[0],
            20_000_000,
            "{transport}"
        );
        let g = f.floats("goodput_bps").unwrap()[0];
        let links = &r.links;
        let dir = links.texts("direction").unwrap();
        let sta = dir.iter().position(|d| *d == "sta").unwrap();
        let ack = links.floats("ack_airtime_s").unwrap()[sta];
        let air: f64 = links
            .floats("airtime_s")
            .unwrap()
            .iter()
            .zip(&dir)
            .filter(|(_, d)| **d == "sta" || **d == "ap")
            .map(|(a, _)| a)
            .sum();
        eprintln!(
            "{transport}: goodput {:.1} Mbit/s, ACK airtime share {:.2} %",
            g / 1e6,
            100.0 * ack / air
        );
        out.push((g, ack / air));
    }
    let (tcp, tack) = (out[0], out[1]);
    assert!(
        tack.1 < tcp.1 / 2.0,
        "TACK's ACK airtime share {:.4} vs TCP's {:.4}",
        tack.1,
        tcp.1
    );
    assert!(
        tack.0 > tcp.0,
        "TACK goodput {:.1} vs TCP {:.1}",
        tack.0 / 1e6,
        tcp.0 / 1e6
    );
}
