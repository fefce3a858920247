//! WLAN cells in scenarios: the UDP calibration of the presets, per-station results,
//! composition with wired links, and clear errors for bad `[[wlan]]` tables.

use tcplab_sim::{parse_scenario_str, simulate, Results};

fn run(toml: &str) -> Results {
    let sc = parse_scenario_str(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn saturating_udp(standard: &str, rate: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
sample = "off"
[[node]]
name = "ap"
[[node]]
name = "sta1"
[[wlan]]
standard = "{standard}"
ap = "ap"
stations = ["sta1"]
[[flow]]
transport = "datagram"
from = "ap"
to = "sta1"
rate = "{rate}"
bytes = "unlimited"
"#
    )
}

/// One saturating UDP flow (1500-byte IP packets, 1472-byte payload) over each preset
/// reaches the TACK paper's UDP baseline (Figure 7) within ±10 %. The formula behind the
/// presets (docs/wlan.md) predicts 6.79 / 25.3 / 203 / 589 Mbit/s.
#[test]
fn presets_reach_the_papers_udp_baselines() {
    for (standard, offered, baseline) in [
        ("802.11b", "20Mbps", 7e6),
        ("802.11g", "100Mbps", 26e6),
        ("802.11n", "500Mbps", 210e6),
        ("802.11ac", "1Gbps", 590e6),
    ] {
        let r = run(&saturating_udp(standard, offered, "0.3s"));
        let g = r.flows.floats("goodput_bps").unwrap()[0];
        let err = g / baseline - 1.0;
        assert!(
            err.abs() < 0.10,
            "{standard}: {:.1} Mbit/s vs {:.0} ({:+.1} %)",
            g / 1e6,
            baseline / 1e6,
            err * 100.0
        );
    }
}

/// The links table has one row per node of the cell, labelled with the node's name, with
/// its airtime, collisions and ACK airtime; a TCP flow's ACKs show up as the station's
/// ACK airtime.
#[test]
fn per_station_rows_and_ack_airtime() {
    let r = run(r#"
duration = "0.5s"
sample = "off"
[[node]]
name = "ap"
[[node]]
name = "sta1"
[[node]]
name = "sta2"
[[wlan]]
name = "cell"
standard = "802.11g"
ap = "ap"
stations = ["sta1", "sta2"]
[[flow]]
from = "ap"
to = "sta1"
cc = "cubic"
bytes = "unlimited"
[[flow]]
from = "sta2"
to = "ap"
cc = "cubic"
bytes = "unlimited"
handshake = false   # its SYN would count as one non-data frame
"#);
    let links = &r.links;
    let dir = links.texts("direction").unwrap();
    assert_eq!(dir, vec!["ap", "sta1", "sta2"]);
    assert!(links.texts("link").unwrap().iter().all(|l| *l == "cell"));
    let air = links.floats("airtime_s").unwrap();
    let ack = links.floats("ack_airtime_s").unwrap();
    let busy = links.floats("busy_s").unwrap()[0];
    let total: f64 = air.iter().sum();
    // Exchanges never overlap except in collisions, which count for each station.
    let coll = links.floats("collision_s").unwrap()[0];
    assert!(total >= busy - 1e-9 && total <= busy + coll * 3.0 + 1e-9);
    // sta1 only acknowledges (flow 0's sink); the AP sends flow 0's data and flow 1's ACKs.
    let share = |i: usize| ack[i] / air[i];
    assert!((share(1) - 1.0).abs() < 1e-9, "sta1 sends only ACKs");
    assert!(share(0) > 0.0 && share(0) < 0.5, "AP: data and some ACKs");
    assert!(share(2) < 1e-9, "sta2 sends only data");
    let collisions: u64 = links.ints("collisions").unwrap().iter().sum();
    assert!(collisions > 0, "three busy nodes collide now and then");
    assert!(r.flows.floats("goodput_bps").unwrap()[0] > 5e6);
}

/// A WLAN hop composes with a wired WAN path: server -> router (WAN) -> AP -> station.
/// The route takes both; a station-to-station flow goes through the AP (two hops on the
/// one channel).
#[test]
fn wlan_plus_wan_and_station_to_station() {
    let r = run(r#"
duration = "1s"
sample = "off"
[[node]]
name = "server"
[[node]]
name = "ap"
[[node]]
name = "sta1"
[[node]]
name = "sta2"
[[link]]
between = ["server", "ap"]
rate = "100Mbps"
delay = "20ms"
queue = "1000pkt"
[[wlan]]
standard = "802.11n"
ap = "ap"
stations = ["sta1", "sta2"]
[[flow]]
from = "server"
to = "sta1"
cc = "bbr"
loss_detection = "rack"
bytes = "2MB"
[[flow]]
transport = "datagram"
from = "sta1"
to = "sta2"
rate = "1Mbps"
bytes = "unlimited"
"#);
    let done = r.flows.bools("completed").unwrap();
    assert!(done[0], "the TCP transfer over WAN + WLAN completes");
    // The datagram flow crossed the channel twice: sta1 -> ap, ap -> sta2.
    let delivered = r.links.ints("delivered_pkts").unwrap();
    let dirs = r.links.texts("direction").unwrap();
    let of = |n: &str| delivered[dirs.iter().position(|d| *d == n).unwrap()];
    assert!(of("sta1") > 50, "sta1 sent the datagrams (and TCP ACKs)");
    let dg = r.flows.ints("packets_delivered").unwrap()[1];
    assert!(dg > 50);
    assert!(
        of("ap") >= dg,
        "the AP forwarded every datagram that arrived"
    );
}

/// Bad `[[wlan]]` tables get one clear error naming the key and the reason.
#[test]
fn bad_wlan_tables_are_rejected_clearly() {
    let base = |wlan: &str| {
        format!(
            r#"
duration = "1s"
[[node]]
name = "ap"
[[node]]
name = "sta1"
[[wlan]]
{wlan}
[[flow]]
from = "ap"
to = "sta1"
bytes = "1MB"
"#
        )
    };
    for (wlan, key, why) in [
        (
            r#"ap = "ap"
stations = ["sta1"]"#,
            "wlan[0].standard",
            "required",
        ),
        (
            r#"standard = "802.11x"
ap = "ap"
stations = ["sta1"]"#,
            "wlan[0].standard",
            "unknown standard",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["nobody"]"#,
            "wlan[0].stations",
            "unknown node",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["ap"]"#,
            "wlan[0].stations",
            "cannot also be a station",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["sta1"]
ampdu_frames = 8"#,
            "wlan[0].ampdu_frames",
            "no A-MPDU",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
cw_min = 63
cw_max = 31"#,
            "wlan[0].cw_max",
            "cw_min",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
per = "100%""#,
            "wlan[0].per",
            "below 100",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
per_station = { ap = "1%" }"#,
            "wlan[0].per_station.ap",
            "not a station",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
colour = "blue""#,
            "wlan[0].colour",
            "unknown key",
        ),
    ] {
        let e = parse_scenario_str(&base(wlan), "bad.toml").unwrap_err();
        assert_eq!(e.key, key, "{e}");
        assert!(e.why.contains(why), "{e}");
    }
    // A cell needs named nodes.
    let e = parse_scenario_str(
        r#"
[link]
rate = "1Mbps"
[[wlan]]
standard = "802.11g"
[[flow]]
bytes = "1MB"
"#,
        "bad.toml",
    )
    .unwrap_err();
    assert_eq!(e.key, "wlan");
}
