"""``tcplab reproduce profiles``: the seed-001 channel under each stack profile.

One flow, 100 Mbit/s, 100-packet drop-tail queue, 0.5 % PER on data only, 10 MiB, SACK
recovery, MSS 1448, initial window 10, delayed ACK every 2 segments; four cells (one-way
delay 1 ms and 10 ms × minimum RTO 1 s and 200 ms) × NewReno, Vegas, Westwood+, Cubic and
BBR × 5 seeds, under ``stack = "linux"``, ``"ns3"``, ``"rfc"`` and tcplab's own defaults
(``tcplab``). The channel's keys are written explicitly, so they hold under every profile;
what a profile still decides is everything else (loss detection, recovery window, what a
loss halves, quick-ACK, ACK delay, buffers, SYN timer). docs/validation.md has the table
and says what drives each cell.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tcplab.plot import save
from tcplab.reproduce.common import (
    Claim,
    claim_table,
    n_seeds,
    to_markdown,
    verdict,
    write_outputs,
)
from tcplab.scenario import Scenario
from tcplab.sweeps import sweep

NAME = "profiles"
DESCRIPTION = ("The seed-001 channel (4 delay/min-RTO cells x 5 controllers) "
               "under stack = linux, ns3, rfc and tcplab's defaults")

CONTROLLERS = ["newreno", "vegas", "westwoodplus", "cubic", "bbr"]
DELAYS = ["1ms", "10ms"]
MIN_RTOS = ["1s", "200ms"]
PROFILES = ["linux", "ns3", "rfc"]
#: tcplab's own defaults, by name (the default profile before `linux` became the default).
DEFAULT = "tcplab"

FLOW = {"bytes": "10MiB", "recovery": "sack", "sack": True, "mss": 1448,
        "initial_cwnd": 10, "ack": "delayed", "ack_every": 2}
BASE = {
    "name": NAME,
    "sample": "off",
    "link": {"rate": "100Mbps", "delay": "1ms", "queue": "100pkt", "loss": "0.5%",
             "ack_loss": "0%"},
    "flow": [FLOW],
}
#: Seed 001's margin of error (10 % of the mean): "negligible" differences.
TOL = 0.10
METRICS = {"goodput_bps": ("goodput [Mbit/s]", 1e-6, 1),
           "rtos": ("RTOs", 1.0, 1),
           "retransmitted_segments": ("retransmissions", 1.0, 0)}


def run(out: Path, seeds: int = 5, workers: int | None = None) -> list[Path]:
    """Runs every cell x controller x profile with seeds 1..`seeds`; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    grid = {"link.delay": DELAYS, "flow.0.min_rto": MIN_RTOS, "flow.0.cc": CONTROLLERS}
    parts, fails = [], []
    for stack in [*PROFILES, DEFAULT]:
        flow = {**FLOW, "stack": stack}
        base = Scenario({**BASE, "flow": [flow]}, source=f"{NAME} (tcplab.reproduce)")
        res = sweep(base, grid, seeds=seeds, workers=workers)
        parts.append(res.runs.assign(profile=stack))
        fails.append(res.failures.assign(profile=stack))
    runs = pd.concat(parts, ignore_index=True)
    summary = summarise(runs)
    text = claim_table(claims(summary), n_seeds(seeds, "cell") + " Seed 001's claims on "
                       "its channel, under every stack profile.") + tables(summary, seeds)
    fig = _figure(summary, out / "fig-goodput-per-profile.png", seeds)
    return write_outputs(out, runs, summary, text, [fig],
                         pd.concat(fails, ignore_index=True))


def claims(summary: pd.DataFrame) -> list[Claim]:
    """Seed 001's orderings (and one of issue 9's expectations) in every profile's cells."""
    g = summary.set_index(["profile", "link.delay", "flow.0.min_rto", "flow.0.cc"])[
        "goodput_bps"]
    profiles = list(dict.fromkeys(summary.profile))
    out = []
    for cc, label, fig in (("vegas", "Vegas", "Figs. 1-2"),
                           ("westwoodplus", "Westwood+", "Figs. 1-2")):
        cells = [(p, m) for p in profiles for m in MIN_RTOS]
        above = [(p, m) for p, m in cells if g[p, "1ms", m, cc] > g[p, "1ms", m, "newreno"]]
        out.append(Claim(
            f"{label} above the Reno family (NewReno) at 1 ms, PER 0.5 % ({fig} of seed 001)",
            "no number", f"above in {len(above)} of {len(cells)} profile × min-RTO cells",
            verdict(len(above) == len(cells), bool(above)),
            "holds: in every profile and min RTO; shape only: in some. Random losses cut a "
            "loss-based window far more often than the queue does (docs/validation.md, "
            "'Stack profiles on the seed-001 channel')"))
    gaps = {p: g[p, "10ms", "200ms", "vegas"] / g[p, "10ms", "200ms", "newreno"] - 1
            for p in profiles}
    out.append(Claim(
        "Differences negligible at larger delay (seed 001, Fig. 1): Vegas vs NewReno at "
        "10 ms", "no number",
        ", ".join(f"{p} {v:+.0%}" for p, v in gaps.items()),
        verdict(all(abs(v) <= TOL for v in gaps.values()),
                all(abs(v) < abs(g[p, "1ms", "200ms", "vegas"]
                                 / g[p, "1ms", "200ms", "newreno"] - 1)
                    for p, v in gaps.items())),
        "holds: within ±10 % (seed 001's margin) in every profile; shape only: smaller "
        "than at 1 ms. Mathis's bound (about 10 Mbit/s) sets every loss-based cell "
        "(docs/validation.md)"))
    if "linux" in profiles:
        r = summary[summary.profile == "linux"]["rtos"]
        out.append(Claim(
            "Under stack = linux (RACK-TLP) no RTO in any cell (issue 9)", "no paper",
            f"{r.sum():.1f} RTOs per run summed over the {len(r)} cells",
            verdict(bool((r == 0).all()), bool((r < 0.5).all())),
            "holds: no RTO in any cell; RACK-TLP finds lost retransmissions about one RTT "
            "after sending them (docs/validation.md, '1 ms, BBR')"))
    return out


def _figure(summary: pd.DataFrame, png: Path, seeds: int) -> Path:
    """Goodput per controller (categories), one panel per cell, one marker per profile."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True, squeeze=False)
    profiles = list(dict.fromkeys(summary.profile))
    for i, d in enumerate(DELAYS):
        for j, m in enumerate(MIN_RTOS):
            ax = axes[i][j]
            part = summary[(summary["link.delay"] == d) & (summary["flow.0.min_rto"] == m)]
            for k, p in enumerate(profiles):
                s = part[part.profile == p].set_index("flow.0.cc").reindex(CONTROLLERS)
                x = [c + (k - (len(profiles) - 1) / 2) * 0.15 for c in range(len(CONTROLLERS))]
                mean = s["goodput_bps"] / 1e6
                ax.errorbar(x, mean, yerr=[mean - s["goodput_min_bps"] / 1e6,
                                           s["goodput_max_bps"] / 1e6 - mean],
                            ls="none", marker="o", ms=4, capsize=2, color=f"C{k}",
                            label=f"stack = {p} (n={seeds})")
            ax.set_xticks(range(len(CONTROLLERS)), CONTROLLERS)
            ax.set_title(f"one-way delay {d}, min RTO {m}", fontsize=9)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel("goodput [Mbit/s] (mean; bars: seeds' range)")
    axes[0][0].legend(fontsize=7)
    axes[1][1].text(0.99, 0.97, "paper: none drawn (seed 001 gives no values, and no "
                    "profiles)", transform=axes[1][1].transAxes, ha="right", va="top",
                    fontsize=6.5, color="0.35")
    fig.suptitle("Seed 001's channel (100 Mbit/s, PER 0.5 %, 10 MiB) under each stack "
                 "profile")
    fig.tight_layout()
    return save(fig, png)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean of each metric per profile, cell and controller (and the seeds' range of
    goodput), one row each."""
    keys = ["profile", "link.delay", "flow.0.min_rto", "flow.0.cc"]
    g = runs.groupby(keys, sort=False)
    s = g[list(METRICS)].mean().reset_index()
    s["goodput_min_bps"] = g["goodput_bps"].min().values
    s["goodput_max_bps"] = g["goodput_bps"].max().values
    s["completed"] = g["completed"].all().values
    s["n"] = g.size().values
    return s


def tables(summary: pd.DataFrame, seeds: int) -> str:
    """One table per profile: rows = controllers, columns = cells, cell = goodput / RTOs /
    retransmissions (means over the seeds)."""
    lines = [f"Means over {seeds} seeds; each cell: goodput Mbit/s / RTOs / "
             "retransmitted segments.\n"]
    for stack, part in summary.groupby("profile", sort=False):
        part = part.assign(cell=[
            f"{r.goodput_bps * 1e-6:.1f} / {r.rtos:.1f} / {r.retransmitted_segments:.0f}"
            for r in part.itertuples()],
            col=[f"{d}, min RTO {m}" for d, m in zip(part["link.delay"],
                                                      part["flow.0.min_rto"])])
        tab = part.pivot(index="flow.0.cc", columns="col", values="cell").reindex(
            index=CONTROLLERS, columns=list(dict.fromkeys(part["col"])))
        tab.index.name = "cc"
        lines.append(f"### stack = {stack}\n\n{to_markdown(tab)}\n")
    return "\n".join(lines)
