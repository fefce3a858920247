//! WLAN cells in scenarios: the UDP ceilings of the presets, per-station results,
//! composition with wired links, and clear errors for bad `[[wlan]]` tables.

use tcplab_sim::{parse_scenario_str, simulate, Results};

/// Pins tcplab's own defaults (`stack = "tcplab"`), which these checks were written for
/// (TCP flows default to the `linux` profile).
fn pinned(toml: &str) -> String {
    format!("stack = \"tcplab\"\n{toml}")
}

fn run(toml: &str) -> Results {
    let sc = parse_scenario_str(&pinned(toml), "test.toml").unwrap_or_else(|e| panic!("{e}"));
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
/// carries what the presets' cited constants predict within ±3 %: one access per Bianchi's
/// eq. 13 with n = 1 (docs/wlan.md, "UDP ceilings of the presets"), 6.79 / 29.93 /
/// 256.3 / 618.5 Mbit/s, with 42 MPDUs per A-MPDU on n and ac (ns-3's 65,535-byte limit).
#[test]
fn presets_reach_their_udp_ceilings() {
    for (standard, offered, ceiling, ampdu) in [
        ("802.11b", "20Mbps", 6.79e6, 1.0),
        ("802.11g", "100Mbps", 29.93e6, 1.0),
        ("802.11n", "500Mbps", 256.3e6, 42.0),
        ("802.11ac", "1Gbps", 618.5e6, 42.0),
    ] {
        let r = run(&saturating_udp(standard, offered, "0.3s"));
        let g = r.flows.floats("goodput_bps").unwrap()[0];
        let err = g / ceiling - 1.0;
        assert!(
            err.abs() < 0.03,
            "{standard}: {:.1} Mbit/s vs {:.1} ({:+.1} %)",
            g / 1e6,
            ceiling / 1e6,
            err * 100.0
        );
        let n = r.links.floats("ampdu_mean").unwrap()[0];
        assert!(
            (n - ampdu).abs() < 1.0,
            "{standard}: {n:.1} MPDUs per A-MPDU"
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
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
retry_limit = 0"#,
            "wlan[0].retry_limit",
            "1",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["sta1"]
data_rate = "1bps""#,
            "wlan[0].data_rate",
            "lowest rate is 6 Mbit/s",
        ),
        (
            r#"standard = "802.11b"
ap = "ap"
stations = ["sta1"]
control_rate = "500kbps""#,
            "wlan[0].control_rate",
            "lowest rate is 1 Mbit/s",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
mcs = 32"#,
            "wlan[0].mcs",
            "HT has MCS 0-31",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
mcs = 9
streams = 1
channel_width = 20"#,
            "wlan[0].mcs",
            "not defined at 20 MHz",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
channel_width = 30"#,
            "wlan[0].channel_width",
            "20, 40, 80 or 160",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["sta1"]
mcs = 3"#,
            "wlan[0].mcs",
            "no MCS table",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
mcs = 3
data_rate = "50Mbps""#,
            "wlan[0].data_rate",
            "not both",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
guard_interval = "600ns""#,
            "wlan[0].guard_interval",
            "400ns or 800ns",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["sta1"]
reorder = true"#,
            "wlan[0].reorder",
            "needs A-MPDU",
        ),
        (
            r#"standard = "802.11g"
ap = "ap"
stations = ["sta1"]
rate_control = "minstrel""#,
            "wlan[0].rate_control",
            "802.11n/ac",
        ),
        (
            r#"standard = "802.11b"
ap = "ap"
stations = ["sta1"]
snr = 20"#,
            "wlan[0].snr",
            "NIST error model",
        ),
        (
            r#"standard = "802.11n"
ap = "ap"
stations = ["sta1"]
snr = "loud""#,
            "wlan[0].snr",
            "in dB",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
reorder_timeout = "0s""#,
            "wlan[0].reorder_timeout",
            "must be > 0",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
node_queue = "0pkt""#,
            "wlan[0].node_queue",
            "at least 1",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
node_queue = "64KB""#,
            "wlan[0].node_queue",
            "packets",
        ),
        (
            r#"standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
schedule = "drr""#,
            "wlan[0].schedule",
            "fcfs",
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

/// An MCS sets the data PHY: one saturating UDP flow over 802.11n at HT MCS 7 (one
/// stream, 64-QAM 5/6: 150 Mbit/s at 40 MHz with the short guard interval) carries less
/// than at the preset's MCS 15 (300 Mbit/s) and more than at MCS 0 (15 Mbit/s).
#[test]
fn mcs_sets_the_data_rate() {
    let goodput = |extra: &str| {
        let toml = saturating_udp("802.11n", "500Mbps", "0.2s").replace(
            "stations = [\"sta1\"]",
            &format!("stations = [\"sta1\"]\n{extra}"),
        );
        run(&toml).flows.floats("goodput_bps").unwrap()[0]
    };
    let (g15, g7, g0) = (goodput("mcs = 15"), goodput("mcs = 7"), goodput("mcs = 0"));
    assert!(g15 > 1.4 * g7 && g7 > 4.0 * g0, "{g15} {g7} {g0}");
    assert!(g0 < 15e6 && g0 > 8e6, "{g0}");
}

/// What one TCP flow from the AP to a station over 802.11ac with 10 % frame errors
/// did, with or without the recipient's Block Ack reordering.
struct LossyCell {
    retransmitted: u64,
    fast_retransmits: u64,
    /// Packets the cell lost (queue overflow, retry limit, late after a reorder timeout).
    lost: u64,
    held: u64,
    goodput: f64,
}

fn tcp_over_lossy_cell(reorder: bool) -> LossyCell {
    let toml = format!(
        r#"
duration = "2s"
sample = "off"
[[node]]
name = "ap"
[[node]]
name = "sta1"
[[wlan]]
standard = "802.11ac"
ap = "ap"
stations = ["sta1"]
per = "10%"
reorder = {reorder}
[[flow]]
from = "ap"
to = "sta1"
bytes = "unlimited"
"#
    );
    let r = run(&toml);
    let sum = |k: &str| r.links.ints(k).unwrap().iter().sum::<u64>();
    LossyCell {
        retransmitted: r.flows.ints("retransmitted_segments").unwrap()[0],
        fast_retransmits: r.flows.ints("fast_retransmits").unwrap()[0],
        lost: sum("dropped_queue") + sum("dropped_retry") + sum("reorder_late"),
        held: sum("reorder_held"),
        goodput: r.flows.floats("goodput_bps").unwrap()[0],
    }
}

/// With 10 % frame errors the MAC retransmits (7 attempts: an MPDU is lost with
/// probability 1e-7), so TCP only has to repair the AP queue's overflows. Without the
/// reordering buffer the MAC's retransmissions reach TCP as reordering: it retransmits
/// though the cell lost nothing (measured over 2 s, seed 1: 1197 segments, 551 fast
/// retransmits, 107 Mbit/s). With it (IEEE 802.11 receive reordering, on by default)
/// every retransmission repairs a queue overflow (1145 of 1145 after slow start, 2 fast
/// retransmits, 199 Mbit/s).
#[test]
fn block_ack_reordering_hides_mac_retries_from_tcp() {
    let without = tcp_over_lossy_cell(false);
    let with = tcp_over_lossy_cell(true);
    assert_eq!((without.lost, without.held), (0, 0));
    assert!(without.retransmitted > 100 && without.fast_retransmits > 50);
    assert!(with.held > 1000);
    assert!(with.retransmitted <= with.lost && with.fast_retransmits < 10);
    assert!(with.goodput > 1.2 * without.goodput);
}

/// Frame errors from the SNR choose the best MCS: at 20 dB, 64-QAM 5/6 (HT MCS 15) loses
/// nearly every MPDU and 16-QAM 1/2 (MCS 11) carries more; at 35 dB MCS 15 carries more
/// (ns-3's NIST model; a fixed MCS, no rate adaptation).
#[test]
fn snr_favours_robust_mcs_when_low() {
    let goodput = |extra: &str| {
        let toml = saturating_udp("802.11n", "500Mbps", "0.2s").replace(
            "stations = [\"sta1\"]",
            &format!("stations = [\"sta1\"]\n{extra}"),
        );
        run(&toml).flows.floats("goodput_bps").unwrap()[0]
    };
    let (low15, low11) = (goodput("snr = 20\nmcs = 15"), goodput("snr = 20\nmcs = 11"));
    let (high15, high11) = (
        goodput("snr = \"35dB\"\nmcs = 15"),
        goodput("snr = 35\nmcs = 11"),
    );
    assert!(low11 > 2.0 * low15, "{low11} {low15}");
    assert!(high15 > 1.5 * high11, "{high15} {high11}");
}

/// Minstrel-HT style rate adaptation (ns-3's `MinstrelHtWifiManager` constants) finds the
/// MCS the SNR allows: over 802.11n's two-stream group (MCS 8-15), one second of
/// saturating UDP carries at least 65 % of the best fixed MCS at 20 dB and at 35 dB, and
/// its mean PHY rate is lower at 20 dB (measured, seed 1: 114 of 160 Mbit/s at 20 dB with
/// a mean PHY rate of 157 Mbit/s; 192 of 256 Mbit/s at 35 dB, 264 Mbit/s; the rest is
/// the 10 % of A-MPDUs sent at sampled rates, each up to 42 MPDUs and 5.484 ms, and the
/// first 50 ms at the lowest MCS).
#[test]
fn minstrel_finds_the_mcs_the_snr_allows() {
    let udp = |extra: &str| {
        let toml = saturating_udp("802.11n", "500Mbps", "1s").replace(
            "stations = [\"sta1\"]",
            &format!("stations = [\"sta1\"]\n{extra}"),
        );
        let r = run(&toml);
        (
            r.flows.floats("goodput_bps").unwrap()[0],
            r.links.floats("phy_rate_mean_bps").unwrap()[0],
        )
    };
    let mut rates = vec![];
    for snr in [20, 35] {
        let best = (8..=15)
            .map(|m| udp(&format!("snr = {snr}\nmcs = {m}")).0)
            .fold(0.0, f64::max);
        let (g, rate) = udp(&format!("snr = {snr}\nrate_control = \"minstrel\""));
        assert!(g > 0.65 * best, "{snr} dB: minstrel {g}, best fixed {best}");
        rates.push(rate);
    }
    assert!(rates[0] < rates[1], "{rates:?}");
}

/// A server behind a 10 Gbit/s, 5 ms wire to an access point whose cell has one
/// station, `wlan` extra `[[wlan]]` keys, and one unlimited `cc` flow server → station.
fn server_ap_sta(duration: &str, standard: &str, wlan: &str, cc: &str) -> String {
    format!(
        r#"
duration = "{duration}"
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
delay = "5ms"
queue = "100000pkt"
[[wlan]]
standard = "{standard}"
ap = "ap"
stations = ["sta"]
{wlan}
[[flow]]
cc = "{cc}"
from = "server"
to = "sta"
bytes = "unlimited"
"#
    )
}

/// `station_ampdu = false`: the station sends its TCP ACKs one per channel access instead
/// of many per A-MPDU, so it accesses the channel more often, its ACKs take a larger share
/// of the airtime and the flow carries less (802.11ac, one TCP BBR flow, 0.5 s).
#[test]
fn station_ack_aggregation_saves_airtime() {
    let measure = |extra: &str| {
        let r = run(&server_ap_sta("0.5s", "802.11ac", extra, "bbr"));
        let l = &r.links;
        let dir = l.texts("direction").unwrap();
        let sta = dir.iter().position(|d| *d == "sta").unwrap();
        (
            l.floats("ampdu_mean").unwrap()[sta],
            l.ints("tx_attempts").unwrap()[sta],
            l.floats("ack_airtime_share").unwrap()[sta],
            r.flows.floats("goodput_bps").unwrap()[0],
        )
    };
    let (n_agg, acc_agg, share_agg, g_agg) = measure("");
    let (n_one, acc_one, share_one, g_one) = measure("station_ampdu = false");
    assert!(
        n_agg > 5.0 && n_one == 1.0,
        "{n_agg:.1} vs {n_one:.1} MPDUs"
    );
    assert!(acc_one > 3 * acc_agg, "{acc_one} vs {acc_agg} accesses");
    assert!(
        share_one > 2.0 * share_agg,
        "{share_one:.3} vs {share_agg:.3}"
    );
    assert!(g_one < g_agg, "{g_one:.0} vs {g_agg:.0} bit/s");
}

/// The access point's queue depth (`queue`, default 1000 packets: Linux's
/// `DEFAULT_TX_QUEUE_LEN`) bounds the queue a loss-based TCP builds in front of the cell:
/// a CUBIC flow through an 802.11n AP with a 100-packet queue sees a shorter mean RTT and
/// loses packets at the AP, with 1000 packets a longer RTT (the queue the source allows;
/// measured, seed 1, 3 s: mean RTT 12.7 against 18.1 ms).
#[test]
fn ap_queue_depth_bounds_the_queueing_delay() {
    let measure = |queue: &str| {
        let r = run(&server_ap_sta(
            "3s",
            "802.11n",
            &format!("queue = \"{queue}\""),
            "cubic",
        ));
        let l = &r.links;
        let dir = l.texts("direction").unwrap();
        let ap = dir.iter().position(|d| *d == "ap").unwrap();
        (
            r.flows.floats("rtt_mean_s").unwrap()[0],
            l.ints("max_queue_pkts").unwrap()[ap],
            l.ints("dropped_queue").unwrap()[ap],
        )
    };
    let (rtt_short, max_short, drops_short) = measure("100pkt");
    let (rtt_long, max_long, _) = measure("1000pkt");
    assert!(
        max_short <= 100 && drops_short > 0,
        "{max_short} {drops_short}"
    );
    assert!(max_long > 300, "{max_long}");
    assert!(
        rtt_long > 1.3 * rtt_short,
        "{:.1} vs {:.1} ms",
        rtt_long * 1e3,
        rtt_short * 1e3
    );
}
