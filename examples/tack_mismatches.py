"""Controlled experiments behind the three mismatches left in docs/reproductions/tack.md
(Figures 6a, 5b and 1 of the TACK paper). Each prints a table; the doc quotes them.

    python examples/tack_mismatches.py [fig6a|fig5b|fig1 ...] [--seeds N]

Every run is one of the study's scenarios (`tcplab.reproduce.tack`) with one thing
changed; numbers are means over seeds 1..N (default 3).
"""

from __future__ import annotations

import sys

import pandas as pd
from tcplab.reproduce.common import PRE_ISSUE_9
from tcplab.reproduce.tack import TRANSPORTS, wlan
from tcplab.scenario import Scenario, simulate

TACK = TRANSPORTS["TCP-TACK"]
TCP = TRANSPORTS["TCP BBR (L=2)"]


# ---- Figure 6a: which delays a legacy sample holds, and which the min filter removes ----

def f6_cell(name: str, flow: dict, stations: int = 1, up_mbps: float = 0.0,
            up_from_same: bool = True, duration_s: float = 25.0) -> Scenario:
    """The Figure 6a cell (802.11n, 50 ms each way on the wired hop) with `stations`
    stations, each with its own bulk downstream flow like flow 0, and optionally an
    upstream datagram flow of `up_mbps` from the measured station (its ACKs queue behind
    it) or from another one."""
    sc = wlan("802.11n", 100, flow, duration_s, name, sample="1ms")
    d = sc._data  # the study's dict; extended here only
    n = max(stations, 2 if up_mbps and not up_from_same else 1)
    stas = [f"sta{i}" if i else "sta" for i in range(n)]
    d["node"] = [{"name": "server"}, {"name": "ap"}] + [{"name": s} for s in stas]
    d["wlan"][0]["stations"] = stas
    flows = [{"from": "server", "to": s, "bytes": "unlimited", "name": f"down{i}", **flow}
             for i, s in enumerate(stas[:stations])]
    if up_mbps:
        src = "sta" if up_from_same else stas[1]
        flows.append({"from": src, "to": "server", "transport": "datagram",
                      "rate": f"{up_mbps}Mbps", "bytes": "unlimited", "name": "up"})
    d["flow"] = flows
    return Scenario(d, source="examples/tack_mismatches.py")


#: Past the 10 s RTT_min window plus start-up: the estimates no longer hold the start-up
#: minimum, so they show what the min filter finds in steady state.
F6_FROM_S = 12.0


def two_cells(name: str, flow: dict, duration_s: float = 25.0) -> Scenario:
    """The paper's set-up read literally: two Wi-Fi endpoints (802.11n cells) joined by a
    100 ms emulated path; data and ACKs each cross two cells."""
    d = {"name": name, "sample": "1ms", "duration": f"{duration_s}s",
         "node": [{"name": "snd"}, {"name": "ap1"}, {"name": "ap"}, {"name": "sta"}],
         "link": [{"between": ["ap1", "ap"], "rate": "10Gbps", "delay": "50ms",
                   "queue": "100000pkt"}],
         "wlan": [{"name": "w1", "standard": "802.11n", "ap": "ap1", "stations": ["snd"]},
                  {"name": "wlan", "standard": "802.11n", "ap": "ap", "stations": ["sta"]}],
         "flow": [{"from": "snd", "to": "sta", "bytes": "unlimited", **flow}]}
    return Scenario(d, source="examples/tack_mismatches.py")


def f6_row(sc: Scenario, seed: int) -> dict:
    """Medians after `F6_FROM_S` of the legacy and OWD-based RTT_min of flow 0, and of its
    raw legacy samples (every change of `rtt_s`, sampled each 1 ms)."""
    res = simulate(sc, seed=seed)
    s = res.tables["flow_series"].to_pandas()
    s = s[(s.flow == 0) & (s.t_s >= F6_FROM_S)]
    samples = s.rtt_s[s.rtt_s.diff() != 0].dropna()
    if "rtt_min_s" not in s:  # a TCP flow: its legacy RTT_min is BBR's min_rtt filter
        c = res.tables["cc_trace"].to_pandas()
        c = c[(c.flow == 0) & (c.key == "min_rtt") & (c.t_s >= F6_FROM_S)]
        s = s.assign(rtt_min_s=float("nan"), rtt_min_legacy_s=c.value.median())
    q = res.tables["link_series"].to_pandas()
    apq = q[(q.link == "wlan") & (q.direction == "ap") & (q.t_s >= F6_FROM_S)].queue_pkts
    return {"owd_ms": 1e3 * s.rtt_min_s.median(), "legacy_ms": 1e3 * s.rtt_min_legacy_s.median(),
            "legacy_over_owd_%": 100 * (s.rtt_min_legacy_s / s.rtt_min_s - 1).median(),
            "sample_min_ms": 1e3 * samples.min(), "sample_p50_ms": 1e3 * samples.median(),
            "sample_p95_ms": 1e3 * samples.quantile(0.95),
            "legacy_gt_owd_1%_time": 100 * (s.rtt_min_legacy_s > 1.01 * s.rtt_min_s).mean(),
            "ap_queue_p50": apq.median(), "goodput_mbps": res.flows.goodput_bps.iloc[0] / 1e6}


def fig6a(seeds: int) -> pd.DataFrame:
    cases = {
        "baseline (1 station)": f6_cell("base", TACK),
        "4 stations, 4 bulk flows": f6_cell("sta4", TACK, stations=4),
        "8 stations, 8 bulk flows": f6_cell("sta8", TACK, stations=8),
        "upstream 20 Mbit/s, same station": f6_cell("up20", TACK, up_mbps=20),
        "upstream 100 Mbit/s, same station": f6_cell("up100", TACK, up_mbps=100),
        "upstream 100 Mbit/s, other station": f6_cell("up100o", TACK, up_mbps=100,
                                                      up_from_same=False),
        "beta = 2": f6_cell("b2", {**TACK, "beta": 2}),
        "beta = 16": f6_cell("b16", {**TACK, "beta": 16}),
        "owd_gain = 0.125 (paper's EWMA)": f6_cell("ewma", {**TACK, "owd_gain": 0.125}),
        "CUBIC instead of BBR (no ProbeRTT)": f6_cell("cubic", {**TACK, "cc": "cubic"}),
        "BBR, ProbeRTT off (rtprop window 1000 s)": f6_cell(
            "noprobe", {**TACK, "cc_params": {"rtprop_window_s": 1000}}),
        "sender on Wi-Fi too (two cells)": two_cells("two", TACK),
        "TCP BBR L=2 (BBR min_rtt)": f6_cell("tcp2", TCP),
        "TCP BBR L=16, ACK timer 40 ms": f6_cell(
            "tcp16", {**TCP, "ack_every": 16, "ack_delay": "40ms"}),
        "TCP BBR L=64, ACK timer 25 ms (= RTT_min/4)": f6_cell(
            "tcp64", {**TCP, "ack_every": 64, "ack_delay": "25ms"}),
    }
    rows = []
    for label, sc in cases.items():
        r = pd.DataFrame([f6_row(sc, s) for s in range(1, seeds + 1)]).mean()
        rows.append({"case": label, **r.round(2).to_dict()})
    return pd.DataFrame(rows).set_index("case")


# ---- Figure 5b: what ACK-path loss costs TCP BBR ----

def f5_path(flow: dict, ack_loss: float | dict, queue: int = 2000, data_loss: float = 0.01,
            duration_s: float = 30.0, name: str = "f5") -> Scenario:
    """The study's Figure 5 path (20 Mbit/s, 100 ms each way, 1 % data loss) with
    `ack_loss` on the ACK direction and a `queue`-packet buffer."""
    d = {"name": name, "sample": "off", "duration": f"{duration_s}s",
         "link": {"rate": "20Mbps", "delay": "100ms", "queue": f"{queue}pkt",
                  "loss": data_loss, "reverse": {"loss": ack_loss}},
         "flow": [{"bytes": "unlimited", **flow}]}
    return Scenario(d, source="examples/tack_mismatches.py")


def f5_row(sc: Scenario, seed: int) -> dict:
    res = simulate(sc, seed=seed)
    f, links = res.flows.iloc[0], res.links
    rev = links[links.direction == "rev"].iloc[0]
    fwd = links[links.direction == "fwd"].iloc[0]
    return {"util_%": 100 * f.goodput_bps / 20e6, "rtos": f.rtos,
            "retx": f.retransmitted_segments,
            "acks_lost_%": 100 * rev.dropped_loss / max(rev.offered_pkts, 1),
            "segs_per_ack_arrived": f.packets_sent / max(rev.delivered_pkts, 1),
            "queue_drops": fwd.dropped_queue, "max_queue": fwd.max_queue_pkts}


def fig5b(seeds: int) -> pd.DataFrame:
    tcp = {"cc": "bbr", "recovery": "sack", "loss_detection": "rack", **PRE_ISSUE_9}
    cases = {}
    for a in (0.002, 0.10, 0.30, 0.50):
        cases[f"TCP BBR, ACK loss {a:.1%}"] = f5_path(tcp, a)
    for a in (0.002, 0.10):
        cases[f"TCP BBR, ACK loss {a:.1%}, L=8"] = f5_path({**tcp, "ack_every": 8}, a)
        cases[f"TCP BBR, ACK loss {a:.1%}, no SACK (NewReno recovery)"] = f5_path(
            {**tcp, "recovery": "newreno", "loss_detection": "dupack", "sack": False}, a)
        cases[f"TCP BBR, ACK loss {a:.1%}, 5 % data loss"] = f5_path(tcp, a, data_loss=0.05)
        cases[f"TCP BBR, ACK loss {a:.1%}, 30-packet buffer"] = f5_path(tcp, a, queue=30)
        cases[f"TCP BBR, ACK loss {a:.1%}, 30-packet buffer, L=8"] = f5_path(
            {**tcp, "ack_every": 8}, a, queue=30)
    # 10 % ACK loss in bursts of 10 ACKs on average (Gilbert-Elliott, all lost when bad).
    bursty = {"model": "gilbert-elliott", "p_good_bad": 0.0111, "p_bad_good": 0.1,
              "loss_good": 0.0, "loss_bad": 1.0}
    cases["TCP BBR, 10 % ACK loss in bursts of 10"] = f5_path(tcp, bursty)
    cases["TCP BBR, 10 % ACK loss in bursts of 10, 30-packet buffer"] = f5_path(
        tcp, bursty, queue=30)
    # Without data loss the receiver's delayed ACKs (L = 2) are not overridden by holes,
    # so a lost ACK stretches the next one; paced BBR vs unpaced CUBIC behind a
    # 30-packet buffer shows whether the stretch becomes a burst that overflows it.
    for cc, flow in (("BBR", tcp), ("CUBIC (unpaced)", {**tcp, "cc": "cubic"})):
        for a in (0.002, 0.10, 0.30):
            cases[f"TCP {cc}, no data loss, 30-packet buffer, ACK loss {a:.1%}"] = f5_path(
                flow, a, queue=30, data_loss=0.0)
    rows = []
    for label, sc in cases.items():
        r = pd.DataFrame([f5_row(sc, s) for s in range(1, seeds + 1)]).mean()
        rows.append({"case": label, **r.round(2).to_dict()})
    return pd.DataFrame(rows).set_index("case")


# ---- Figure 1: why TACK's gain grows with RTT ----

def f1_row(phy: str, rtt_ms: float, flow: dict, seed: int, duration_s: float = 10.0) -> dict:
    """Goodput over the second half (as the study's Figure 1), ACKs/s and the ACK
    frames' share of the channel's airtime over the whole run."""
    res = simulate(wlan(phy, rtt_ms, flow, duration_s, "f1", sample=f"{duration_s / 10:g}s"),
                   seed=seed)
    d = res.series("delivered").drop_duplicates("t_s").set_index("t_s")["delivered"]
    half = d.index[d.index >= duration_s / 2][0]
    late = (d.iloc[-1] - d[half]) * 8 / (d.index[-1] - half)
    w = res.links[res.links.link == "wlan"].set_index("direction")
    busy = float(w.busy_s.iloc[0])
    return {"goodput_mbps": late / 1e6, "acks_hz": res.flows.acks_sent.iloc[0] / duration_s,
            "ack_airtime_%": 100 * float(w.ack_airtime_s.sum()) / busy,
            "collision_%": 100 * float(w.collision_s.iloc[0]) / busy,
            "ap_ampdu_mean": float(w.ampdu_mean["ap"])}


def fig1(seeds: int) -> pd.DataFrame:
    rows = []
    for phy in ("802.11n", "802.11ac"):
        for rtt in (10, 80, 200):
            cases = {"TCP BBR (L=2)": TCP, "TCP-TACK (beta 4)": TACK,
                     # beta scaled with RTT_min: 400 TACKs/s at every RTT, as at 10 ms
                     "TCP-TACK, 400 Hz": {**TACK, "beta": 4 * rtt // 10}}
            for label, flow in cases.items():
                r = pd.DataFrame([f1_row(phy, rtt, flow, s)
                                  for s in range(1, seeds + 1)]).mean()
                rows.append({"phy": phy, "rtt_ms": rtt, "case": label,
                             **r.round(2).to_dict()})
    return pd.DataFrame(rows).set_index(["phy", "rtt_ms", "case"])


def main(argv: list[str]) -> None:
    seeds = 3
    if "--seeds" in argv:
        i = argv.index("--seeds")
        seeds = int(argv[i + 1])
        del argv[i:i + 2]
    which = argv or ["fig6a", "fig5b", "fig1"]
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    for w in which:
        print(f"== {w} (seeds 1..{seeds})")
        print(globals()[w.replace("-", "_")](seeds).to_string())


if __name__ == "__main__":
    main(sys.argv[1:])
