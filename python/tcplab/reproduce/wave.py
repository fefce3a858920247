"""Seed 000: TCP Wave's expected results — one flow on 6 Mbit/s, two flows sharing
10 Mbit/s (with BBR and Cubic for comparison), and the RTT each induces.

Emulated path (the seed's testbed is iperf over a bottleneck; its RTT and buffer are not
given): sender — 1 Gbit/s, 1 ms access — bottleneck (6 or 10 Mbit/s, 24 ms one-way,
100-packet drop-tail) — 1 Gbit/s, 1 ms access — receiver. Base RTT 52 ms, a typical
wide-area path; the 100-packet buffer is 2.3 BDP at 6 Mbit/s and 1.4 BDP at 10 Mbit/s,
deep enough that a loss-based sender (Cubic) shows the bufferbloat the seed contrasts
Wave with, as a router's default queue would.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tcplab.reproduce.common import to_markdown
from tcplab.scenario import Scenario, simulate
from tcplab.stats import jain_index

NAME = "wave"
DESCRIPTION = "Seed 000: TCP Wave single flow, two-flow sharing vs BBR and Cubic, RTT"

ONE_WAY = "24ms"
BUFFER = "100pkt"
COMPARE = ["wave", "bbr", "cubic"]


def path(rate: str, flows: list[dict], duration: str, sample: str = "ack") -> Scenario:
    data = {
        "name": "wave-path", "sample": sample, "duration": duration,
        "topology": {"kind": "dumbbell"},
        "bottleneck": {"rate": rate, "delay": ONE_WAY, "queue": BUFFER},
        "access": {"rate": "1Gbps", "delay": "1ms", "queue": "1000pkt"},
        "flow": flows,
    }
    return Scenario(data, source=f"{NAME} (tcplab.reproduce)")


def throughput_bins(res, flow: int, bin_s: float = 1.0, until: float | None = None):
    """Per-flow goodput in Mbit/s over fixed bins, from the delivered-bytes series."""
    d = res.series("delivered")
    d = d[d["flow"] == flow]
    end = until or float(d["t_s"].max())
    edges = np.arange(0.0, end + bin_s, bin_s)
    cum = np.interp(edges, d["t_s"], d["delivered"], left=0.0)
    return edges[1:], np.diff(cum) * 8 / bin_s / 1e6


def run(out: Path, seeds: int = 1, workers: int | None = None,
        variants: list[str] | None = None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tcplab.reproduce.inet_vegas_westwood import available

    out.mkdir(parents=True, exist_ok=True)
    vs = available(variants or COMPARE)
    rows, paths = [], []

    # 1. One Wave flow over 6 Mbit/s.
    if "wave" in vs:
        res = simulate(path("6Mbps", [{"cc": "wave", "bytes": "unlimited"}], "60s"), seed=1)
        tr = res.tables["cc_trace"].to_pandas()
        tr["key"] = tr["key"].astype(str)
        fig, ax = plt.subplots(4, 1, figsize=(8, 10))
        b = tr[tr["key"] == "burst_seq"]
        ax[0].plot(b["t_s"], b["value"], lw=0.8)
        ax[0].set_ylabel("burst sequence")
        tx = tr[tr["key"] == "txtime_s"]
        ax[1].plot(tx["t_s"], tx["value"] * 1e3, lw=0.8)
        ax[1].set_ylabel("TxTime [ms]")
        r = res.series("rtt").dropna()
        zoom = r[(r["t_s"] >= 30) & (r["t_s"] < 30.5)]
        ax[2].plot(zoom["t_s"], zoom["rtt_s"] * 1e3, lw=0.8, marker=".", ms=2)
        ax[2].axhline(52, color="k", ls=":", lw=0.8, label="propagation RTT")
        ax[2].set_ylabel("RTT [ms]")
        ax[2].set_title("RTT per ACK, 30.0-30.5 s (zoom)", fontsize=8)
        ax[2].legend(fontsize=7)
        t, g = throughput_bins(res, 0)
        ax[3].plot(t, g, lw=0.8, label="Wave goodput")
        ax[3].axhline(6 * 1460 / 1500, color="r", ls="--", lw=0.8, label="capacity (goodput)")
        ax[3].set_ylabel("Mbit/s")
        ax[3].set_xlabel("time [s]")
        ax[3].legend(fontsize=7)
        for a in (ax[0], ax[1], ax[3]):
            a.set_xlim(0, 60)
        fig.suptitle("One TCP Wave flow over a 6 Mbit/s bottleneck")
        fig.tight_layout()
        p = out / "fig1-wave-single-flow.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)
        f = res.flows.iloc[0]
        rtts = r["rtt_s"].to_numpy()
        rows.append({"experiment": "single 6 Mbit/s", "cc": "wave",
                     "goodput_Mbps": f.goodput_bps / 1e6,
                     "utilisation_%": f.goodput_bps / (6e6 * 1460 / 1500) * 100,
                     "rtt_min_ms": rtts.min() * 1e3, "rtt_p50_ms": np.median(rtts) * 1e3,
                     "rtt_p95_ms": np.percentile(rtts, 95) * 1e3})

    # 2. Two flows on 10 Mbit/s: flow 0 for 240 s, flow 1 from 100 s to 200 s.
    fig, ax = plt.subplots(len(vs), 1, figsize=(8, 3 * len(vs)), sharex=True, squeeze=False)
    rtt_runs = {}
    for i, cc in enumerate(vs):
        flows = [{"cc": cc, "bytes": "unlimited"},
                 {"cc": cc, "bytes": "unlimited", "start": "100s", "stop": "200s"}]
        res = simulate(path("10Mbps", flows, "240s"), seed=1)
        shares = {}
        for fl in (0, 1):
            t, g = throughput_bins(res, fl, until=240.0)
            ax[i][0].plot(t, g, lw=0.8, label=f"flow {fl + 1}")
            mid = (t > 110) & (t <= 200)
            shares[fl] = g[mid].mean()
            if fl == 0:
                before = g[(t > 20) & (t <= 100)].mean()
                after = g[(t > 210) & (t <= 240)].mean()
        ax[i][0].set_ylabel(f"{cc} [Mbit/s]")
        ax[i][0].legend(fontsize=7)
        rows.append({"experiment": "two flows 10 Mbit/s", "cc": cc,
                     "flow1_0_100s_Mbps": before, "flow1_110_200s_Mbps": shares[0],
                     "flow2_110_200s_Mbps": shares[1], "flow1_210_240s_Mbps": after,
                     "jain_110_200s": jain_index([shares[0], shares[1]])})
        r = res.series("rtt").dropna()
        rtt_runs[cc] = r[(r["flow"] == 0) & (r["t_s"] > 20) & (r["t_s"] <= 100)]["rtt_s"]
    ax[-1][0].set_xlabel("time [s]")
    fig.suptitle("Two flows sharing 10 Mbit/s (flow 2 active 100–200 s)")
    fig.tight_layout()
    p = out / "fig2-two-flows.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    # 3. RTT each variant induces when alone (flow 1, 20–100 s of experiment 2).
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for cc, r in rtt_runs.items():
        x = np.sort(r.to_numpy() * 1e3)
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=cc)
        rows.append({"experiment": "RTT alone on 10 Mbit/s (20-100 s)", "cc": cc,
                     "rtt_min_ms": x.min(), "rtt_p50_ms": float(np.median(x)),
                     "rtt_p95_ms": float(np.percentile(x, 95))})
    ax.set_xlabel("RTT [ms]")
    ax.set_ylabel("CDF")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    p = out / "fig3-rtt-cdf.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    table = pd.DataFrame(rows)
    table.to_csv(out / "results.csv", index=False)
    md = out / "tables.md"
    with open(md, "w") as f:
        for exp, g in table.groupby("experiment", sort=False):
            g = g.dropna(axis=1, how="all").drop(columns=["experiment"]).set_index("cc")
            f.write(f"### {exp}\n\n{to_markdown(g)}\n\n")
    return [*paths, out / "results.csv", md]
