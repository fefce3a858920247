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

from tcplab.plot import _new_figure, save
from tcplab.reproduce.common import PRE_ISSUE_9, SAME, same_note, to_markdown, write_outputs
from tcplab.scenario import Scenario, simulate
from tcplab.stats import format_interval, interval, jain_index

NAME = "wave"
DESCRIPTION = "Seed 000: TCP Wave single flow, two-flow sharing vs BBR and Cubic, RTT"

ONE_WAY = "24ms"
BUFFER = "100pkt"
COMPARE = ["wave", "bbr", "cubic"]


def path(rate: str, flows: list[dict], duration: str, sample: str = "ack") -> Scenario:
    """The emulated dumbbell path (see the module docs) with a `rate` bottleneck."""
    data = {
        "name": "wave-path", "sample": sample, "duration": duration,
        "topology": {"kind": "dumbbell"},
        "bottleneck": {"rate": rate, "delay": ONE_WAY, "queue": BUFFER},
        "access": {"rate": "1Gbps", "delay": "1ms", "queue": "1000pkt"},
        "flow": [{**f, **PRE_ISSUE_9} for f in flows],
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


def single_flow(seed: int):
    """Experiment 1: one Wave flow over 6 Mbit/s for 60 s; returns (result, row)."""
    res = simulate(path("6Mbps", [{"cc": "wave", "bytes": "unlimited"}], "60s"), seed=seed)
    f = res.flows.iloc[0]
    rtts = res.series("rtt").dropna()["rtt_s"].to_numpy()
    row = {"experiment": "single 6 Mbit/s", "cc": "wave", "seed": seed,
           "goodput_Mbps": f.goodput_bps / 1e6,
           "utilisation_%": f.goodput_bps / (6e6 * 1460 / 1500) * 100,
           "rtt_min_ms": rtts.min() * 1e3, "rtt_p50_ms": np.median(rtts) * 1e3,
           "rtt_p95_ms": np.percentile(rtts, 95) * 1e3}
    return res, row


def two_flows(cc: str, seed: int):
    """Experiment 2: flow 1 for 240 s, flow 2 from 100 s to 200 s, on 10 Mbit/s; returns
    (result, per-flow goodput bins, row)."""
    flows = [{"cc": cc, "bytes": "unlimited"},
             {"cc": cc, "bytes": "unlimited", "start": "100s", "stop": "200s"}]
    res = simulate(path("10Mbps", flows, "240s"), seed=seed)
    bins = {fl: throughput_bins(res, fl, until=240.0) for fl in (0, 1)}
    t, g0 = bins[0]
    g1 = bins[1][1]
    mid = (t > 110) & (t <= 200)
    shares = (g0[mid].mean(), g1[mid].mean())
    row = {"experiment": "two flows 10 Mbit/s", "cc": cc, "seed": seed,
           "flow1_0_100s_Mbps": g0[(t > 20) & (t <= 100)].mean(),
           "flow1_110_200s_Mbps": shares[0], "flow2_110_200s_Mbps": shares[1],
           "flow1_210_240s_Mbps": g0[(t > 210) & (t <= 240)].mean(),
           "jain_110_200s": jain_index(list(shares))}
    return res, bins, row


def run(out: Path, seeds: int = 1, workers: int | None = None,
        variants: list[str] | None = None) -> list[Path]:
    """Runs the three experiments with seeds 1..`seeds` (figures show seed 1; tables give
    the mean over seeds and mark values every seed reproduced)."""
    from tcplab.reproduce.inet_vegas_westwood import available

    out.mkdir(parents=True, exist_ok=True)
    vs = available(variants or COMPARE)
    rows, figs = [], []

    # 1. One Wave flow over 6 Mbit/s.
    if "wave" in vs:
        for seed in range(1, seeds + 1):
            res, row = single_flow(seed)
            rows.append(row)
            if seed == 1:
                figs.append(_fig_single(res, out / "fig1-wave-single-flow.png"))

    # 2. Two flows sharing 10 Mbit/s; 3. the RTT each variant induces alone.
    fig, ax = _new_figure(len(vs), (8, 3 * len(vs)), sharex=True, sharey=True)
    rtt_alone = {}
    for i, cc in enumerate(vs):
        for seed in range(1, seeds + 1):
            res, bins, row = two_flows(cc, seed)
            rows.append(row)
            r = res.series("rtt").dropna()
            alone = r[(r["flow"] == 0) & (r["t_s"] > 20) & (r["t_s"] <= 100)]["rtt_s"]
            x = alone.to_numpy() * 1e3
            rows.append({"experiment": "RTT alone on 10 Mbit/s (20-100 s)", "cc": cc,
                         "seed": seed, "rtt_min_ms": x.min(),
                         "rtt_p50_ms": float(np.median(x)),
                         "rtt_p95_ms": float(np.percentile(x, 95))})
            if seed == 1:
                rtt_alone[cc] = x
                for fl in (0, 1):
                    ax[i].plot(*bins[fl], lw=0.8, label=f"flow {fl + 1} ({cc})")
                ax[i].set_ylabel("goodput [Mbit/s]")
                ax[i].set_title(cc, fontsize=9, loc="left")
                ax[i].legend(fontsize=7)
                ax[i].grid(alpha=0.3)
    ax[-1].set_xlabel("time [s]")
    fig.suptitle("Two flows sharing 10 Mbit/s (flow 2 active 100–200 s; seed 1)")
    fig.tight_layout()
    figs.append(save(fig, out / "fig2-two-flows.png"))

    fig, (ax,) = _new_figure(1, (6.4, 4))
    for cc, x in rtt_alone.items():
        x = np.sort(x)
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{cc} (n={len(x):,} samples)")
    ax.set_xlabel("RTT [ms]")
    ax.set_ylabel("CDF")
    ax.set_title("RTT of flow 1 alone, 20–100 s (seed 1)", fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    figs.append(save(fig, out / "fig3-rtt-cdf.png"))

    runs = pd.DataFrame(rows)
    summary, text = _tables(runs, seeds)
    return write_outputs(out, runs, summary, text, figs)


def _tables(runs: pd.DataFrame, seeds: int) -> tuple[pd.DataFrame, str]:
    """Per experiment and variant, each metric's mean over seeds (marked when every seed
    gave the same value) as Markdown, and the numbers behind it."""
    summary, parts = [], []
    for exp, g in runs.groupby("experiment", sort=False):
        g = g.dropna(axis=1, how="all")
        metrics = [c for c in g.columns if c not in ("experiment", "cc", "seed")]
        cells = {}
        for cc, gc in g.groupby("cc", sort=False):
            for m in metrics:
                iv = interval(gc[m].tolist(), 0.95)
                summary.append({"experiment": exp, "cc": cc, "metric": m, "mean": iv.mean,
                                "ci_low": iv.low, "ci_high": iv.high, "n": iv.n,
                                "interval": iv.method,
                                "identical": iv.method == "identical"})
                cell = format_interval(iv)
                cells.setdefault(cc, {})[m] = cell + (SAME if iv.method == "identical" else "")
        t = pd.DataFrame(cells).T
        t.index.name = "cc"
        parts.append(f"### {exp}\n\n{to_markdown(t)}\n")
    summary = pd.DataFrame(summary)
    head = f"Mean over {seeds} seed(s) (± 95 % CI when the seeds differ).\n\n"
    if summary["identical"].any():
        head += same_note(seeds) + "\n\n"
    return summary, head + "\n".join(parts)


def _fig_single(res, path: Path) -> Path:
    """Fig. 1: burst sequence, TxTime, RTT per ACK (zoom) and goodput of one Wave flow."""
    tr = res.tables["cc_trace"].to_pandas()
    tr["key"] = tr["key"].astype(str)
    fig, ax = _new_figure(4, (8, 10))
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
    ax[3].set_ylim(bottom=0)
    ax[3].legend(fontsize=7)
    for a in (ax[0], ax[1], ax[3]):
        a.set_xlim(0, 60)
    fig.suptitle("One TCP Wave flow over a 6 Mbit/s bottleneck (seed 1)")
    fig.tight_layout()
    return save(fig, path)
