"""Controlled experiments behind TACK's goodput gain over TCP BBR per PHY (Figures 9a
and 1 of the TACK paper, RTT_min 10 ms): what sets TCP's efficiency relative to UDP in
the same cell. docs/reproductions/tack.md quotes the tables.

    python examples/tack_wlan_efficiency.py [base|switch ...] [--seeds N] [--phys b,g,n,ac]

`base` measures, per PHY, one saturating UDP flow (the cell's ceiling on the study's
path), TCP BBR (L = 2) and TCP-TACK: goodput over the second half of each 10 s run, its
share of the UDP ceiling, the gain, and the cell's counters (MPDUs per A-MPDU at the
access point and at the station, the station's share of the busy time, collisions).
`switch` repeats TCP BBR and TCP-TACK with one setting changed at a time (see SWITCHES).
Every run is the study's scenario (`tcplab.reproduce.tack.wlan`); means over seeds 1..N
(default 3).
"""

from __future__ import annotations

import sys

import pandas as pd
from tcplab.reproduce.tack import TRANSPORTS, wlan
from tcplab.scenario import Scenario, simulate

TACK = TRANSPORTS["TCP-TACK"]
TCP = TRANSPORTS["TCP BBR (L=2)"]
#: A saturating UDP flow: twice each preset's ceiling offered.
UDP_RATE = {"802.11b": "20Mbps", "802.11g": "100Mbps", "802.11n": "500Mbps",
            "802.11ac": "1Gbps"}
DURATION_S = 10.0
RTT_MS = 10

#: One change at a time: name -> (extra `[[wlan]]` keys, extra flow keys, extra
#: stations each sending `background` Mbit/s of UDP to the AP).
SWITCHES = {
    "presets": ({}, {}, 0, 0.0),
    "ampdu = false": ({"ampdu": False}, {}, 0, 0.0),
    "station_ampdu = false": ({"station_ampdu": False}, {}, 0, 0.0),
    "ampdu_frames = 32 (ath9k's ATH_AMPDU_SUBFRAME_DEFAULT)": ({"ampdu_frames": 32}, {}, 0, 0.0),
    "ampdu_frames = 16": ({"ampdu_frames": 16}, {}, 0, 0.0),
    "ampdu_time = 550us (the former preset)": ({"ampdu_time": "550us"}, {}, 0, 0.0),
    "TCP: Linux's TSO bursts (tso = true)": ({}, {"tso": True}, 0, 0.0),
    "TCP: one segment per slot (tso = false)": ({}, {"tso": False}, 0, 0.0),
    "AP queue 100 pkt": ({"queue": "100pkt"}, {}, 0, 0.0),
    "4 more stations, 2 Mbit/s up each": ({}, {}, 4, 2.0),
}


def cell(phy: str, flow: dict, name: str, wlan_keys: dict | None = None,
         extra: int = 0, background_mbps: float = 0.0):
    sc = wlan(phy, RTT_MS, flow, DURATION_S, name, sample=f"{DURATION_S / 10:g}s")
    d = sc._data
    d["wlan"][0].update(wlan_keys or {})
    if extra:
        names = [f"bg{i}" for i in range(extra)]
        d["node"] += [{"name": n} for n in names]
        d["wlan"][0]["stations"] = ["sta"] + names
        d["flow"] += [{"from": n, "to": "ap", "transport": "datagram",
                       "rate": f"{background_mbps}Mbps", "bytes": "unlimited",
                       "name": f"bg{i}"} for i, n in enumerate(names)]
    return Scenario(d, source="examples/tack_wlan_efficiency.py")


def row(phy: str, label: str, flow: dict, seed: int, wlan_keys=None, extra=0, bg=0.0):
    res = simulate(cell(phy, flow, f"eff-{label}", wlan_keys, extra, bg), seed=seed)
    s = res.series("delivered")
    s = s[s.flow == s.flow.iloc[0]] if "flow" in s else s
    d = s.drop_duplicates("t_s").set_index("t_s")["delivered"]
    half = d.index[d.index >= DURATION_S / 2][0]
    late = (d.iloc[-1] - d[half]) * 8 / (d.index[-1] - half)
    links = res.links[res.links.link == "wlan"].set_index("direction")
    busy = float(links["busy_s"].iloc[0])
    return {
        "phy": phy, "case": label, "seed": seed, "goodput": late / 1e6,
        "ampdu_ap": float(links.loc["ap", "ampdu_mean"] or 0),
        "ampdu_sta": float(links.loc["sta", "ampdu_mean"] or 0),
        "sta_air": float(links.loc["sta", "airtime_s"]) / busy,
        "ack_air": float(links["ack_airtime_s"].sum()) / busy,
        "coll": float(links["collision_s"].iloc[0]) / busy,
        "idle": 1 - busy / DURATION_S,
        "sta_access_hz": float(links.loc["sta", "tx_attempts"]) / DURATION_S,
    }


def base(phys, seeds):
    rows = []
    for phy in phys:
        for seed in range(1, seeds + 1):
            udp = {"transport": "datagram", "rate": UDP_RATE[phy]}
            for label, flow in [("UDP", udp), ("TCP", TCP), ("TACK", TACK)]:
                rows.append(row(phy, label, flow, seed))
    df = pd.DataFrame(rows).groupby(["phy", "case"]).mean(numeric_only=True).drop(columns="seed")
    g = df["goodput"].unstack()
    summary = pd.DataFrame({"UDP": g["UDP"], "TCP": g["TCP"], "TACK": g["TACK"],
                            "TCP/UDP": g["TCP"] / g["UDP"], "TACK/UDP": g["TACK"] / g["UDP"],
                            "gain %": 100 * (g["TACK"] / g["TCP"] - 1)})
    return df, summary


def switch(phys, seeds):
    rows = []
    for name, (wk, fk, extra, bg) in SWITCHES.items():
        for phy in phys:
            if any(k.startswith("ampdu") or k == "station_ampdu" for k in wk) and \
                    phy in ("802.11b", "802.11g"):
                continue  # no A-MPDU there
            for seed in range(1, seeds + 1):
                for label, flow in [("TCP", TCP), ("TACK", TACK)]:
                    # `tso` is a TCP key (TACK's user-space sender has no TSO).
                    keys = fk if label == "TCP" else {}
                    r = row(phy, label, {**flow, **keys}, seed, wk, extra, bg)
                    r["switch"] = name
                    rows.append(r)
    df = pd.DataFrame(rows).groupby(["switch", "phy", "case"], sort=False).mean(
        numeric_only=True).drop(columns="seed")
    g = df["goodput"].unstack()
    g["gain %"] = 100 * (g["TACK"] / g["TCP"] - 1)
    return df, g


def main(argv: list[str]) -> None:
    seeds, phys = 3, ["802.11b", "802.11g", "802.11n", "802.11ac"]
    if "--seeds" in argv:
        i = argv.index("--seeds")
        seeds = int(argv[i + 1])
        del argv[i:i + 2]
    if "--phys" in argv:
        i = argv.index("--phys")
        phys = [f"802.11{p}" for p in argv[i + 1].split(",")]
        del argv[i:i + 2]
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    for which in argv or ["base"]:
        df, summary = {"base": base, "switch": switch}[which](phys, seeds)
        print(f"## {which} (seeds 1..{seeds}, RTT_min {RTT_MS} ms, 2nd half of {DURATION_S:g} s)")
        print(df.round(3).to_string())
        print(summary.round(3).to_string())


if __name__ == "__main__":
    main(sys.argv[1:])
