"""Seed 004: TCP-Forward (LT codes under Vegas) against TCP/NC (RLNC with seen ACKs) and
plain TCP on a lossy 3-node tandem (Figure 7: throughput vs packet loss rate up to 90 %;
Figure 9: decoding delay vs coding-window size).

The seed gives neither the link rates, delays and buffers nor the transfer size; tcplab
chooses (docs/reproductions/coded.md says why):
- two links of 10 Mbit/s, 5 ms one-way, 50-packet drop-tail buffers (examples/tandem.toml);
- "packet loss rate along the path" p is end to end: each link drops independently with
  q = 1 − √(1 − p), so a packet crosses both with probability 1 − p;
- a 2 MB transfer, stopped after 120 s (goodput = bytes delivered × 8 / time taken);
- TCP/NC's R is not adaptive in the paper: it is set from the known loss, R = 1.1/(1 − p)
  (Sundararajan et al. ask R ≳ 1/(1 − p)); TCP-Forward adapts its own R (window 16).
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from tcplab.plot import plot_summary
from tcplab.reproduce.common import (
    PRE_ISSUE_9,
    pivot_means,
    same_note,
    to_markdown,
    write_outputs,
)
from tcplab.scenario import Scenario, simulate
from tcplab.stats import interval

NAME = "coded"
DESCRIPTION = "Seed 004: TCP-Forward vs TCP/NC vs TCP on a lossy tandem (Figures 7 and 9)"

LOSSES = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9]
#: Series of Figure 7: label -> flow keys (TCP/NC's redundancy is filled in per loss).
TRANSPORTS = {
    "TCP-Forward": {"transport": "tcp-forward", "cc": "vegas"},
    "TCP/NC (Vegas)": {"transport": "tcp-nc", "cc": "vegas"},
    "TCP/NC (Reno)": {"transport": "tcp-nc", "cc": "reno"},
    "TCP Reno": {"cc": "reno"},
    "TCP Vegas": {"cc": "vegas", "recovery": "newreno"},
    "TCP Cubic + SACK": {"cc": "cubic", "recovery": "sack"},
}
#: Figure 9: coding-window sizes (segments) at a fixed loss.
WINDOWS = [4, 8, 16, 32, 64, 128]
WINDOW_LOSS = 0.2
NC_MARGIN = 1.1
BYTES = "2MB"
DURATION_S = 120.0


def per_link(p: float) -> float:
    """Loss of each of the two links giving end-to-end loss `p`."""
    return 1.0 - math.sqrt(1.0 - p)


def slug(label: str) -> str:
    """`label` as a scenario name ("TCP/NC (Vegas)" -> "tcp-nc-vegas")."""
    return "-".join("".join(c if c.isalnum() else " " for c in label.lower()).split())


def scenario(label: str, p: float, window: int | None = None) -> Scenario:
    """One run of the tandem: transport `label` at end-to-end loss `p`."""
    q = per_link(p)
    flow = {"from": "sender", "to": "receiver", "bytes": BYTES, **TRANSPORTS[label]}
    if "transport" not in flow:
        flow.update(PRE_ISSUE_9)
    if flow.get("transport") == "tcp-nc":
        coding = {"redundancy": round(NC_MARGIN / (1.0 - p), 4)}
        if window is not None:
            coding["window"] = window
        flow["coding"] = coding
    elif flow.get("transport") == "tcp-forward" and window is not None:
        flow["coding"] = {"window": window}
    link = {"rate": "10Mbps", "delay": "5ms", "queue": "50pkt", "loss": q}
    data = {
        "name": f"coded-{slug(label)}-p{p:g}" + (f"-w{window}" if window else ""),
        "sample": "off",
        "duration": f"{DURATION_S}s",
        "node": [{"name": "sender"}, {"name": "relay"}, {"name": "receiver"}],
        "link": [{**link, "between": ["sender", "relay"]},
                 {**link, "between": ["relay", "receiver"]}],
        "flow": [flow],
    }
    return Scenario(data, source=f"{NAME} (tcplab.reproduce)")


def one(job):
    """Runs one (figure, label, loss, window, seed) job; returns its row of runs.parquet."""
    fig, label, p, window, seed = job
    f = simulate(scenario(label, p, window), seed=seed).flows.iloc[0]

    def get(col):
        v = f.get(col)
        return None if v is None or pd.isna(v) else float(v)

    return {"figure": fig, "transport": label, "loss": p, "window": window, "seed": seed,
            "goodput_bps": float(f.goodput_bps), "completed": bool(f.completed),
            "bytes_delivered": int(f.bytes_delivered),
            "redundancy": get("redundancy"),
            "symbols_per_segment": get("redundancy_measured"),
            "decode_delay_mean_s": get("decode_delay_mean_s"),
            "completion_s": get("completion_s")}


def summarise(runs: pd.DataFrame, x: str, metric: str, bounds) -> pd.DataFrame:
    """Mean and confidence interval of `metric` per transport and value of `x`, kept
    inside the metric's valid `bounds`."""
    rows = []
    for (label, xv), g in runs.groupby(["transport", x], sort=False):
        iv = interval(g[metric].dropna().tolist(), 0.95, bounds)
        rows.append({"transport": label, x: xv, "metric": metric, "mean": iv.mean,
                     "ci_low": iv.low, "ci_high": iv.high, "n": iv.n,
                     "interval": iv.method, "identical": iv.method == "identical"})
    return pd.DataFrame(rows)


def run(out: Path, seeds: int = 5, workers: int | None = None) -> list[Path]:
    """Figure 7 (every transport × loss) and Figure 9 (coded transports × window) with
    seeds 1..`seeds`; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    jobs = [("fig7", t, p, None, s) for t in TRANSPORTS for p in LOSSES
            for s in range(1, seeds + 1)]
    jobs += [("fig9", t, WINDOW_LOSS, w, s) for t in ("TCP-Forward", "TCP/NC (Vegas)")
             for w in WINDOWS for s in range(1, seeds + 1)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        runs = pd.DataFrame(list(pool.map(one, jobs, chunksize=4)))
    r7 = runs[runs.figure == "fig7"]
    r9 = runs[runs.figure == "fig9"].astype({"window": int})
    g7 = summarise(r7, "loss", "goodput_bps", (0.0, math.inf)).assign(figure="fig7")
    s7 = summarise(r7.dropna(subset=["symbols_per_segment"]), "loss", "symbols_per_segment",
                   (0.0, math.inf)).assign(figure="fig7-redundancy")
    d9 = summarise(r9, "window", "decode_delay_mean_s", (0.0, math.inf)).assign(figure="fig9")
    c9 = summarise(r9, "window", "goodput_bps", (0.0, math.inf)).assign(figure="fig9-goodput")
    figs = [
        (g7, "loss", "fig7_goodput_vs_loss", "goodput [Mbit/s]", 1e-6,
         "end-to-end packet loss rate", "Fig. 7: goodput over the lossy tandem"),
        (s7, "loss", "fig7b_symbols_per_segment", "coded packets sent per segment", 1.0,
         "end-to-end packet loss rate", "Redundancy the coded transports used"),
        (d9, "window", "fig9_decode_delay_vs_window", "mean decoding delay [ms]", 1e3,
         "coding window [segments]", f"Fig. 9: decoding delay at {WINDOW_LOSS:.0%} loss"),
        (c9, "window", "fig9b_goodput_vs_window", "goodput [Mbit/s]", 1e-6,
         "coding window [segments]", f"Goodput vs coding window at {WINDOW_LOSS:.0%} loss"),
    ]
    pngs = []
    for summ, x, name, ylabel, scale, xlabel, title in figs:
        png = out / f"{name}.png"
        plot_summary(summ, x, "transport", png, ylabel=ylabel, xlabel=xlabel, title=title,
                     scale=scale)
        pngs.append(png)
    summary = pd.concat([g7, s7, d9, c9], ignore_index=True)
    done = r7.groupby(["loss", "transport"], sort=False)["completed"].mean().unstack()
    text = "\n\n".join([
        f"Goodput [Mbit/s] (mean over {seeds} seeds; loss = end-to-end packet loss rate)",
        to_markdown(pivot_means(g7, "loss", "transport", 1e-6)),
        f"Transfers of {BYTES} completed within {DURATION_S:.0f} s (fraction of seeds)",
        to_markdown(done.reindex(columns=list(TRANSPORTS))),
        "Coded packets sent per segment (TCP/NC: R = "
        f"{NC_MARGIN}/(1 − p); TCP-Forward: adaptive)",
        to_markdown(pivot_means(s7, "loss", "transport", 1.0)),
        f"Mean decoding delay [ms] vs coding window at {WINDOW_LOSS:.0%} loss",
        to_markdown(pivot_means(d9, "window", "transport", 1e3)),
        f"Goodput [Mbit/s] vs coding window at {WINDOW_LOSS:.0%} loss",
        to_markdown(pivot_means(c9, "window", "transport", 1e-6)),
    ])
    if summary["identical"].any():
        text += f"\n\n{same_note(seeds)}"
    return write_outputs(out, runs, summary, text, pngs)
