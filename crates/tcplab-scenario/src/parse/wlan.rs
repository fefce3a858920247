//! `[[wlan]]` tables: an 802.11 cell joining an access point and its stations.
//!
//! ```toml
//! [[wlan]]
//! name = "wlan"                # default "wlan" (then "wlan1", ...)
//! standard = "802.11ac"        # a preset: 802.11b, 802.11g, 802.11n, 802.11ac
//! ap = "ap"
//! stations = ["sta1", "sta2"]
//! per = "1%"                   # frame error rate of every station's link
//! per_station = { sta2 = "5%" }
//! # any constant of the preset: slot, sifs, aifsn, cw_min, cw_max, retry_limit,
//! # data_rate, preamble, control_rate, mac_overhead, ampdu, ampdu_frames,
//! # ampdu_bytes, ampdu_time, queue, cost
//! node_queue = "500pkt"        # packets a node holds over all its destinations' queues
//! schedule = "fcfs"            # destination queues served oldest head first ("round_robin")
//! mcs = 7                      # 802.11n/ac: the data PHY from an MCS (instead of data_rate)
//! streams = 1                  # 802.11ac: spatial streams (HT's MCS index implies them)
//! channel_width = 20           # MHz
//! guard_interval = "800ns"     # or "400ns"
//! rate_control = "minstrel"   # 802.11n/ac: Minstrel-HT style MCS adaptation ("fixed")
//! snr = "25dB"                 # frame errors from the SNR (ns-3's NIST model), on top of per
//! reorder = false              # 802.11n/ac: no Block Ack receive reordering
//! reorder_timeout = "100ms"    # the recipient's reorder timeout (mac80211's default)
//! station_ampdu = false        # 802.11n/ac: only the access point aggregates
//! ```
//!
//! Each station becomes a link `<name>:<station>` between the access point and it
//! ([`Duplex::Wlan`]), so routing and explicit paths treat the cell like any link.

use super::link::parse_queue;
use super::{Section, R};
use crate::scenario::{Duplex, LinkSpec, NodeSpec, WlanSpec};
use tcplab_core::Dur;
use tcplab_link::wlan::mcs::{McsConfig, McsTable, HT_MIN_RATE_BPS};
use tcplab_link::wlan::nist::Modulation;
use tcplab_link::wlan::{Ampdu, Phy, PPDU_MAX_TIME, PRESETS};
use tcplab_link::{LinkParams, QueueLimit, WlanParams};
use toml::Value;

type Lookup<'a> = dyn Fn(&Section<'_>, &str, &Value, &str) -> R<usize> + 'a;

/// Parses every `[[wlan]]` table; appends one link per association to `links`.
pub(super) fn parse(
    root: &Section<'_>,
    lookup: &Lookup<'_>,
    nodes: &[NodeSpec],
    links: &mut Vec<LinkSpec>,
) -> R<Vec<WlanSpec>> {
    let mut cells: Vec<WlanSpec> = Vec::new();
    for (i, w) in root.tables("wlan")?.iter().enumerate() {
        let name = match w.string("name")? {
            Some(n) if n.is_empty() || n.contains(':') => {
                return Err(w.err(
                    "name",
                    w.table.get("name"),
                    "must be non-empty, without ':'",
                ))
            }
            Some(n) => n.to_string(),
            None if i == 0 => "wlan".to_string(),
            None => format!("wlan{i}"),
        };
        if cells.iter().any(|c| c.name == name) || links.iter().any(|l| l.name == name) {
            return Err(w.err(
                "name",
                w.table.get("name"),
                "another link or cell has this name",
            ));
        }
        let standard = w.string("standard")?.ok_or_else(|| {
            w.err(
                "standard",
                None,
                format!("required: one of {}", PRESETS.join(", ")),
            )
        })?;
        let mut params = WlanParams::preset(standard).ok_or_else(|| {
            w.err(
                "standard",
                w.table.get("standard"),
                format!("unknown standard (use {})", PRESETS.join(", ")),
            )
        })?;
        let ap = match w.get("ap") {
            Some(v @ Value::String(s)) => lookup(w, "ap", v, s)?,
            v => return Err(w.err("ap", v, "required: the access point's node name")),
        };
        let mut ports = vec![ap];
        match w.get("stations") {
            Some(v @ Value::Array(items)) if !items.is_empty() => {
                for x in items {
                    let Value::String(s) = x else {
                        return Err(w.err("stations", Some(v), "node names are strings"));
                    };
                    let n = lookup(w, "stations", x, s)?;
                    if ports.contains(&n) {
                        let why = if n == ap {
                            "the access point cannot also be a station"
                        } else {
                            "lists a station twice"
                        };
                        return Err(w.err("stations", Some(v), why));
                    }
                    ports.push(n);
                }
            }
            v => {
                return Err(w.err(
                    "stations",
                    v,
                    "required: a non-empty list of station node names",
                ))
            }
        }
        if ports.len() > u16::MAX as usize {
            return Err(w.err("stations", w.table.get("stations"), "too many stations"));
        }
        overrides(w, standard, &mut params)?;
        params
            .validate()
            .map_err(|why| w.err("standard", w.table.get("standard"), why))?;
        let mut per = vec![params.per; ports.len()];
        if let Some(t) = w.table("per_station")? {
            for (k, v) in t.table {
                let n = lookup(&t, k, v, k)?;
                let Some(port) = ports.iter().position(|&p| p == n).filter(|&p| p > 0) else {
                    return Err(t.err(k, Some(v), "not a station of this cell"));
                };
                per[port] = t.probability(k)?.expect("present");
                if per[port] >= 1.0 {
                    return Err(t.err(k, Some(v), "a frame error rate below 100 %"));
                }
            }
        }
        let cost = w.uint("cost", 1, u32::MAX as u64)?.unwrap_or(1);
        w.finish()?;
        let cell = cells.len();
        for &sta in &ports[1..] {
            let p = LinkParams::new(1, Dur::ZERO).with_queue(QueueLimit::Packets(0));
            let edge = format!("{name}:{}", nodes[sta].name);
            if links.iter().any(|l| l.name == edge) {
                return Err(w.err(
                    "name",
                    w.table.get("name"),
                    format!(
                        "a [[link]] is already called '{edge}', this cell's link to {}",
                        nodes[sta].name
                    ),
                ));
            }
            links.push(LinkSpec {
                name: edge,
                a: ap,
                b: sta,
                duplex: Duplex::Wlan(cell),
                cost,
                fwd: p.clone(),
                rev: p,
                schedule: vec![],
            });
        }
        cells.push(WlanSpec {
            name,
            standard: standard.to_string(),
            nodes: ports,
            params,
            per,
        });
    }
    Ok(cells)
}

fn micros(w: &Section<'_>, k: &str) -> R<Option<Dur>> {
    let d = w.duration(k)?;
    if d == Some(Dur::ZERO) && k == "slot" {
        return Err(w.err(k, w.table.get(k), "must be > 0"));
    }
    Ok(d)
}

fn small(w: &Section<'_>, k: &str, min: u64, max: u64) -> R<Option<u32>> {
    Ok(w.uint(k, min, max)?.map(|v| v as u32))
}

/// The lowest rate of each standard's data PHY and of its control responses: DSSS 1
/// Mbit/s (IEEE 802.11-2020 15.1), OFDM / ERP-OFDM 6 Mbit/s (17.3.2.3), HT/VHT MCS 0 at
/// 20 MHz with the long guard interval 6.5 Mbit/s (Table 19-27); control responses of an
/// OFDM BSS go at a legacy OFDM rate.
fn min_rate(standard: &str, k: &str) -> u64 {
    match (standard, k) {
        ("802.11b", _) => 1_000_000,
        (_, "data_rate") if standard != "802.11g" => HT_MIN_RATE_BPS,
        _ => 6_000_000,
    }
}

/// A PHY at another rate: DSSS at the rate itself, OFDM with the bits per symbol the rate
/// gives (rounded to a whole number). Rates below the PHY's lowest are refused.
fn at_rate(w: &Section<'_>, standard: &str, k: &str, phy: Phy, rate: u64) -> R<Phy> {
    let min = min_rate(standard, k);
    if rate < min {
        return Err(w.err(
            k,
            w.table.get(k),
            format!("{standard}'s lowest rate is {} Mbit/s", min as f64 / 1e6),
        ));
    }
    Ok(match phy {
        Phy::Dsss { plcp, .. } => Phy::Dsss {
            rate_bps: rate,
            plcp,
        },
        Phy::Ofdm {
            preamble,
            symbol,
            encoders,
            signal_ext,
            ..
        } => Phy::Ofdm {
            preamble,
            symbol,
            bits_per_symbol: ((rate as f64 * symbol.as_secs_f64()).round() as u32).max(1),
            encoders,
            signal_ext,
        },
    })
}

/// The modulation of a legacy OFDM rate of 802.11g (IEEE 802.11-2020 Table 17-4); `None`
/// for any other rate or standard.
fn legacy_modulation(standard: &str, rate: u64) -> Option<Modulation> {
    let (bits, rate_num, rate_den) = match (standard, rate / 1_000_000, rate % 1_000_000) {
        ("802.11g", 6, 0) => (1, 1, 2),
        ("802.11g", 9, 0) => (1, 3, 4),
        ("802.11g", 12, 0) => (2, 1, 2),
        ("802.11g", 18, 0) => (2, 3, 4),
        ("802.11g", 24, 0) => (4, 1, 2),
        ("802.11g", 36, 0) => (4, 3, 4),
        ("802.11g", 48, 0) => (6, 2, 3),
        ("802.11g", 54, 0) => (6, 3, 4),
        _ => return None,
    };
    Some(Modulation {
        bits,
        rate_num,
        rate_den,
    })
}

/// The data PHY from `mcs`, `streams`, `channel_width` and `guard_interval`, each
/// defaulting to the preset's (802.11n: HT MCS 15, 40 MHz; 802.11ac: VHT MCS 9, 2
/// streams, 80 MHz; both with the short guard interval).
fn mcs_phy(w: &Section<'_>, standard: &str) -> R<Option<McsConfig>> {
    let keys = ["mcs", "streams", "channel_width", "guard_interval"];
    // `get` on every key marks them all as known, so an unknown-key error lists them.
    let present = keys.map(|k| w.get(k).is_some());
    let Some(first) = present.iter().position(|&p| p).map(|i| &keys[i]) else {
        return Ok(None);
    };
    let (table, mcs0, width0) = match standard {
        "802.11n" => (McsTable::Ht, 15, 40),
        "802.11ac" => (McsTable::Vht, 9, 80),
        _ => {
            return Err(w.err(
                first,
                w.table.get(*first),
                format!("{standard} has no MCS table (set its rate with data_rate)"),
            ))
        }
    };
    if w.table.contains_key("data_rate") {
        return Err(w.err(
            "data_rate",
            w.table.get("data_rate"),
            format!("give either data_rate or {first}, not both"),
        ));
    }
    if table == McsTable::Ht && w.table.contains_key("streams") {
        return Err(w.err(
            "streams",
            w.table.get("streams"),
            "an HT MCS index implies its streams (MCS 0-7: one, 8-15: two, ...)",
        ));
    }
    let mcs = small(w, "mcs", 0, 255)?.unwrap_or(mcs0);
    let streams = small(w, "streams", 0, 255)?.unwrap_or(2);
    let width = small(w, "channel_width", 0, 1000)?.unwrap_or(width0);
    let short_gi = match w.duration("guard_interval")? {
        None => true,
        Some(Dur(400)) => true,
        Some(Dur(800)) => false,
        Some(_) => {
            return Err(w.err(
                "guard_interval",
                w.table.get("guard_interval"),
                "HT and VHT guard intervals are 400ns or 800ns",
            ))
        }
    };
    let key = if w.table.contains_key("mcs") {
        "mcs"
    } else {
        first
    };
    let c = McsConfig {
        table,
        mcs,
        streams,
        width_mhz: width,
        short_gi,
    };
    c.phy()
        .map(|_| Some(c))
        .map_err(|why| w.err(key, w.table.get(key), why))
}

/// Applies the constants a `[[wlan]]` table overrides.
fn overrides(w: &Section<'_>, standard: &str, p: &mut WlanParams) -> R<()> {
    if let Some(d) = micros(w, "slot")? {
        p.slot = d;
    }
    if let Some(d) = micros(w, "sifs")? {
        p.sifs = d;
    }
    if let Some(v) = small(w, "aifsn", 1, 15)? {
        p.aifsn = v;
    }
    if let Some(v) = small(w, "cw_min", 1, 32767)? {
        p.cw_min = v;
    }
    if let Some(v) = small(w, "cw_max", 1, 32767)? {
        p.cw_max = v;
    }
    if p.cw_max < p.cw_min {
        return Err(w.err("cw_max", w.table.get("cw_max"), "must be >= cw_min"));
    }
    if let Some(v) = small(w, "retry_limit", 1, 255)? {
        p.retry_limit = v;
    }
    if let Some(v) = small(w, "mac_overhead", 0, 1000)? {
        p.mac_overhead = v;
    }
    if let Some(c) = mcs_phy(w, standard)? {
        p.data_phy = c.phy().expect("checked");
        p.modulation = Some(c.modulation());
        p.mcs = Some(c);
    }
    if let Some(r) = w.rate("data_rate")? {
        p.data_phy = at_rate(w, standard, "data_rate", p.data_phy, r)?;
        p.modulation = legacy_modulation(standard, r);
        p.mcs = None;
    }
    match w.string("rate_control")? {
        None | Some("fixed") => {}
        Some("minstrel") if p.mcs.is_some() => p.minstrel = true,
        Some("minstrel") => {
            return Err(w.err(
                "rate_control",
                w.table.get("rate_control"),
                "Minstrel adapts the MCS of 802.11n/ac cells (not with data_rate)",
            ))
        }
        Some(_) => {
            return Err(w.err(
                "rate_control",
                w.table.get("rate_control"),
                "\"fixed\" (the data rate or mcs) or \"minstrel\"",
            ))
        }
    }
    match w.string("schedule")? {
        None | Some("round_robin") => {}
        Some("fcfs") => p.fcfs = true,
        Some(_) => {
            return Err(w.err(
                "schedule",
                w.table.get("schedule"),
                "\"round_robin\" (Linux mac80211) or \"fcfs\" (oldest queue head first, ns-3)",
            ))
        }
    }
    match w.get("snr") {
        None => {}
        Some(Value::Integer(x)) => p.snr_db = Some(*x as f64),
        Some(Value::Float(x)) if x.is_finite() => p.snr_db = Some(*x),
        Some(v @ Value::String(t)) => match t.strip_suffix("dB").map(|x| x.trim().parse::<f64>()) {
            Some(Ok(x)) if x.is_finite() => p.snr_db = Some(x),
            _ => {
                return Err(w.err(
                    "snr",
                    Some(v),
                    "a signal-to-noise ratio in dB, e.g. \"25dB\" or 25",
                ))
            }
        },
        v => {
            return Err(w.err(
                "snr",
                v,
                "a signal-to-noise ratio in dB, e.g. \"25dB\" or 25",
            ))
        }
    }
    if p.snr_db.is_some() && p.modulation.is_none() {
        return Err(w.err(
            "snr",
            w.table.get("snr"),
            "the NIST error model covers the OFDM rates of the standard: 802.11g at 6, 9, 12, \
             18, 24, 36, 48 or 54 Mbit/s, 802.11n/ac at an mcs (not 802.11b, not another data_rate)",
        ));
    }
    if let Some(r) = w.rate("control_rate")? {
        p.control_phy = at_rate(w, standard, "control_rate", p.control_phy, r)?;
    }
    if let Some(d) = w.duration("preamble")? {
        match &mut p.data_phy {
            Phy::Dsss { plcp, .. } => *plcp = d,
            Phy::Ofdm { preamble, .. } => *preamble = d,
        }
    }
    match w.boolean("ampdu")? {
        Some(false) => p.ampdu = None,
        Some(true) if p.ampdu.is_none() => {
            return Err(w.err(
                "ampdu",
                w.table.get("ampdu"),
                "this standard has no A-MPDU aggregation (802.11n and 802.11ac do)",
            ))
        }
        _ => {}
    }
    if let Some(b) = w.boolean("station_ampdu")? {
        if p.ampdu.is_none() {
            return Err(w.err(
                "station_ampdu",
                w.table.get("station_ampdu"),
                "no A-MPDU aggregation in this cell",
            ));
        }
        p.station_ampdu = b;
    }
    let keys = ["ampdu_frames", "ampdu_bytes", "ampdu_time"];
    if p.ampdu.is_none() {
        if let Some(k) = keys.iter().find(|k| w.table.contains_key(**k)) {
            return Err(w.err(k, w.table.get(*k), "no A-MPDU aggregation in this cell"));
        }
    }
    if let Some(a) = p.ampdu.as_mut() {
        if let Some(v) = small(w, "ampdu_frames", 1, 256)? {
            a.max_frames = v;
        }
        if let Some(b) = w.bytes("ampdu_bytes")? {
            if b == 0 {
                return Err(w.err("ampdu_bytes", w.table.get("ampdu_bytes"), "must be > 0"));
            }
            a.max_bytes = b;
        }
        if let Some(d) = w.duration("ampdu_time")? {
            if d == Dur::ZERO || d > PPDU_MAX_TIME {
                return Err(w.err(
                    "ampdu_time",
                    w.table.get("ampdu_time"),
                    "must be > 0 and at most aPPDUMaxTime (5.484ms)",
                ));
            }
            *a = Ampdu { max_time: d, ..*a };
        }
    }
    if let Some(q) = parse_queue(w, "queue")? {
        p.queue = match q {
            QueueLimit::Packets(n) if n > 0 => n,
            _ => {
                return Err(w.err(
                    "queue",
                    w.table.get("queue"),
                    "a cell's queues are counted in packets, e.g. \"1000pkt\" (at least 1)",
                ))
            }
        };
    }
    if let Some(q) = parse_queue(w, "node_queue")? {
        p.node_queue = match q {
            QueueLimit::Packets(n) if n > 0 => Some(n),
            QueueLimit::Unlimited => None,
            _ => {
                return Err(w.err(
                    "node_queue",
                    w.table.get("node_queue"),
                    "packets a node holds over all its queues, e.g. \"500pkt\" (at least 1) \
                     or \"unlimited\"",
                ))
            }
        };
    }
    let reorder = w.boolean("reorder")?;
    let timeout = w.duration("reorder_timeout")?;
    if p.ampdu.is_none() {
        if let Some(k) = ["reorder", "reorder_timeout"]
            .into_iter()
            .find(|k| w.table.contains_key(*k) && reorder != Some(false))
        {
            return Err(w.err(
                k,
                w.table.get(k),
                "Block Ack reordering needs A-MPDU aggregation (802.11n and 802.11ac)",
            ));
        }
    }
    if timeout == Some(Dur::ZERO) {
        return Err(w.err(
            "reorder_timeout",
            w.table.get("reorder_timeout"),
            "must be > 0 (mac80211 uses 100ms)",
        ));
    }
    if reorder == Some(false) {
        if timeout.is_some() {
            return Err(w.err(
                "reorder_timeout",
                w.table.get("reorder_timeout"),
                "no reorder timeout with reorder = false",
            ));
        }
        p.reorder_timeout = None;
    } else if let Some(d) = timeout {
        p.reorder_timeout = Some(d);
    }
    if let Some(x) = w.probability("per")? {
        if x >= 1.0 {
            return Err(w.err("per", w.table.get("per"), "a frame error rate below 100 %"));
        }
        p.per = x;
    }
    Ok(())
}
