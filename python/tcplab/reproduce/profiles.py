"""``tcplab reproduce profiles``: the seed-001 channel under each stack profile (issue 9).

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

from tcplab.reproduce.common import to_markdown, write_outputs
from tcplab.scenario import Scenario
from tcplab.sweeps import sweep

NAME = "profiles"
DESCRIPTION = ("Issue 9: the seed-001 channel (4 delay/min-RTO cells x 5 controllers) "
               "under stack = linux, ns3, rfc and tcplab's defaults")

CONTROLLERS = ["newreno", "vegas", "westwoodplus", "cubic", "bbr"]
DELAYS = ["1ms", "10ms"]
MIN_RTOS = ["1s", "200ms"]
PROFILES = ["linux", "ns3", "rfc"]
#: The label of runs without a `stack` key (as the results' `stack` column writes it).
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
METRICS = {"goodput_bps": ("goodput [Mbit/s]", 1e-6, 1),
           "rtos": ("RTOs", 1.0, 1),
           "retransmitted_segments": ("retransmissions", 1.0, 0)}


def run(out: Path, seeds: int = 5, workers: int | None = None) -> list[Path]:
    """Runs every cell x controller x profile with seeds 1..`seeds`; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    grid = {"link.delay": DELAYS, "flow.0.min_rto": MIN_RTOS, "flow.0.cc": CONTROLLERS}
    parts, fails = [], []
    for stack in [*PROFILES, DEFAULT]:
        flow = FLOW if stack == DEFAULT else {**FLOW, "stack": stack}
        base = Scenario({**BASE, "flow": [flow]}, source=f"{NAME} (tcplab.reproduce)")
        res = sweep(base, grid, seeds=seeds, workers=workers)
        parts.append(res.runs.assign(profile=stack))
        fails.append(res.failures.assign(profile=stack))
    runs = pd.concat(parts, ignore_index=True)
    summary = summarise(runs)
    text = tables(summary, seeds)
    return write_outputs(out, runs, summary, text, [], pd.concat(fails, ignore_index=True))


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
