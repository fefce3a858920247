"""Seed 002: recovery time after a vertical handover between a terrestrial link (L1) and a
GEO satellite link (L2), for TCP Wave and window-based variants (Table 1 of the seed).

The seed's link parameters are not public; tcplab defines its own:
- L1, terrestrial: 10 Mbit/s, 20 ms one-way (40 ms RTT), 50-packet drop-tail buffer (about
  1.5 BDP) — a broadband access path.
- L2, GEO satellite: 10 Mbit/s, 300 ms one-way (600 ms RTT: 2 × 35,786 km at light speed
  is 239 ms per direction, plus ground segments), 500-packet buffer (about 1 BDP).
Equal rates isolate the effect of the delay change. The handover is an outage of HT seconds
(everything sent or in flight is lost) after which the link has the other's parameters.
A flow runs alone on its first link long enough to reach steady state (L1: 60 s; L2: 400 s,
since Reno-family windows need minutes to fill a satellite BDP), then the handover happens.
Recovery time: see `tcplab.reproduce.recovery`.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from tcplab.reproduce.common import PRE_ISSUE_9, SAME, same_note, to_markdown, write_outputs
from tcplab.reproduce.recovery import recovery_time
from tcplab.scenario import Scenario, simulate
from tcplab.stats import format_interval, interval

NAME = "handover"
DESCRIPTION = "Seed 002: recovery time after terrestrial <-> GEO handovers (Table 1)"

L1 = {"rate": "10Mbps", "delay": "20ms", "queue": "50pkt", "rtt": 0.040}
L2 = {"rate": "10Mbps", "delay": "300ms", "queue": "500pkt", "rtt": 0.600}
VARIANTS = ["wave", "reno", "newreno", "tahoe", "westwoodplus"]
HTS = [0.5, 2.0, 10.0]
#: RFC 6582 section 4 timer variants: tcplab's default, and the one ns-3 implements.
TIMERS = ["impatient", "slow-but-steady"]
WARMUP = {"L1->L2": 60.0, "L2->L1": 400.0}
AFTER = 500.0  # simulated seconds after reconnection
CAPACITY_BPS = 10e6 * 1460 / 1500


def scenario(cc: str, direction: str, ht: float, timer: str = "impatient") -> Scenario:
    """The handover scenario of one table cell (variant, direction, outage HT, timer)."""
    a, b = (L1, L2) if direction == "L1->L2" else (L2, L1)
    t0 = WARMUP[direction]
    data = {
        "name": f"handover-{direction}-{cc}-ht{ht}",
        "sample": "100ms",
        "duration": f"{t0 + ht + AFTER}s",
        "link": {
            "rate": a["rate"], "delay": a["delay"], "queue": a["queue"],
            "schedule": [
                {"at": f"{t0}s", "up": False},
                {"at": f"{t0 + ht}s", "up": True, "rate": b["rate"], "delay": b["delay"],
                 "queue": b["queue"]},
            ],
        },
        "flow": [{"cc": cc, "bytes": "unlimited", "partial_ack_timer": timer,
                  **PRE_ISSUE_9}],
    }
    return Scenario(data, source=f"{NAME} (tcplab.reproduce)")


def one(job):
    """Runs one (cc, direction, HT, timer, seed) job; returns its row of runs.parquet."""
    cc, direction, ht, timer, seed = job
    sc = scenario(cc, direction, ht, timer)
    res = simulate(sc, seed=seed)
    d = res.series("delivered")
    new = L2 if direction == "L1->L2" else L1
    t_r = WARMUP[direction] + ht
    rt = recovery_time(d["t_s"], d["delivered"], t_r, CAPACITY_BPS, new["rtt"])
    f = res.flows.iloc[0]
    return {"cc": cc, "direction": direction, "ht_s": ht, "timer": timer, "seed": seed,
            "recovery_s": rt, "rtos": int(f.rtos), "fast_retransmits": int(f.fast_retransmits)}


def run(out: Path, seeds: int = 5, workers: int | None = None,
        variants: list[str] | None = None) -> list[Path]:
    """Runs every variant × direction × HT × timer with seeds 1..`seeds`; returns the files."""
    from tcplab.reproduce.inet_vegas_westwood import available

    out.mkdir(parents=True, exist_ok=True)
    vs = available(variants or VARIANTS)
    jobs = [(cc, d, ht, tm, s) for tm in TIMERS for cc in vs for d in ("L1->L2", "L2->L1")
            for ht in HTS for s in range(1, seeds + 1)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        rows = list(pool.map(one, jobs))
    runs = pd.DataFrame(rows)
    parts, summary = [], []
    for tm, runs_t in runs.groupby("timer", sort=False):
        table = {}
        for (cc, d, ht), g in runs_t.groupby(["cc", "direction", "ht_s"], sort=False):
            iv = interval(g["recovery_s"].tolist(), 0.95, (0.0, float("inf")))
            never = int(g["recovery_s"].isna().sum())
            cell = format_interval(iv, digits=1) if iv.n else f"> {AFTER:.0f}"
            if iv.method == "identical" and not never:
                cell += SAME
            if never:
                cell += f" ({never}/{len(g)} never)"
            rtos = g["rtos"].mean()
            table.setdefault(cc, {})[f"HT={ht:g}s {d}"] = f"{cell} [{rtos:.0f} RTO]"
            summary.append({"timer": tm, "cc": cc, "direction": d, "ht_s": ht,
                            "mean": iv.mean, "ci_low": iv.low, "ci_high": iv.high, "n": iv.n,
                            "interval": iv.method, "identical": iv.method == "identical",
                            "never": never, "rtos_mean": rtos})
        t = pd.DataFrame(table).T
        t.index.name = "variant"
        parts.append(f"### NewReno timer: {tm}\n\n{to_markdown(t)}\n")
    summary = pd.DataFrame(summary)
    note = same_note(seeds) + "\n\n" if summary["identical"].any() else ""
    text = (f"Recovery time [s] (mean ± 95 % CI over {seeds} seeds, or [bootstrap interval]; "
            f"'never' = not within {AFTER:.0f} s; [n RTO] = mean timeouts in the run)\n\n"
            + note + "\n".join(parts))
    return write_outputs(out, runs, summary, text, [])
