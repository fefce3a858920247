"""Seed 004: TCP-Forward (LT codes under Vegas) against TCP/NC (RLNC with seen ACKs) and
plain TCP on a lossy 3-node tandem (Figure 7: throughput vs packet loss rate up to 90 %;
Figure 8: end-to-end latency vs coding-window size; Figure 9: decoding delay vs
coding-window size; Figures 10-11: first-segment vs whole-window decode latency of one
coding window, on the reference CPU and on a Raspberry-Pi-class CPU).

The seed gives neither the link rates, delays and buffers nor the transfer size; tcplab
chooses (docs/reproductions/coded.md says why):
- two links of 10 Mbit/s, 5 ms one-way, 50-packet drop-tail buffers (examples/tandem.toml);
- "packet loss rate along the path" p is end to end: each link drops independently with
  q = 1 − √(1 − p), so a packet crosses both with probability 1 − p;
- a 2 MB transfer, stopped after 120 s (goodput = bytes delivered × 8 / time taken);
- TCP/NC's R is not adaptive in the paper: it is set from the known loss, R = 1.1/(1 − p)
  (Sundararajan et al. ask R ≳ 1/(1 − p)); TCP-Forward adapts its own R (window 16).
- coding costs CPU time by the cost model calibrated on tcplab-coding's decoders
  (`cpu_scale` 1); the Raspberry Pi case multiplies it by PI_SCALE (see its comment).
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
DESCRIPTION = ("Seed 004: TCP-Forward vs TCP/NC vs TCP on a lossy tandem (Figures 7-11, "
               "with a Raspberry-Pi-class CPU)")

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
#: The Raspberry Pi (model 1, 700 MHz ARM11) as a multiple of the reference machine's
#: coding cost. Hernández Marcano et al. (Electronics 5(4):66, 2016) measured RLNC coding
#: on a Raspberry Pi model 1 at "more than 80 Mbps" (10 MB/s) in their good cases;
#: tcplab-coding decodes RLNC at 0.77-1.6 GB/s for k = 16-32 on the reference machine
#: (docs/performance.md), a ratio of 77-160: 100 is that ratio's order (the seed gives no
#: speed for its Pi). LT's XORs are scaled alike (one factor for the whole CPU).
PI_SCALE = 100.0
#: CPUs of Figures 8-11: label -> cpu_scale.
CPUS = {"PC": 1.0, "Pi": PI_SCALE}
#: Figure 9c: how slow a CPU must be before decoding shows (window SCALE_WINDOW, at
#: WINDOW_LOSS): cpu_scale from the reference machine to 3000 times slower.
SCALES = [1.0, 10.0, 100.0, 300.0, 1000.0, 3000.0]
SCALE_WINDOW = 64


def cpu_label(scale: float) -> str:
    """"PC" (the reference machine), "Pi" (PI_SCALE) or "×<scale>"."""
    return {1.0: "PC", PI_SCALE: "Pi"}.get(scale, f"×{scale:g}")
#: Figures 10-11: one coding window of N segments as the whole transfer, pushed at once
#: (initial window N), so its first and last decodes are the seed's "latency to encode a
#: coding window and have the receiver successfully decoded the first segment / all".
GEN_LOSS = 0.0
NC_MARGIN = 1.1
BYTES = "2MB"
DURATION_S = 120.0


def per_link(p: float) -> float:
    """Loss of each of the two links giving end-to-end loss `p`."""
    return 1.0 - math.sqrt(1.0 - p)


def slug(label: str) -> str:
    """`label` as a scenario name ("TCP/NC (Vegas)" -> "tcp-nc-vegas")."""
    return "-".join("".join(c if c.isalnum() else " " for c in label.lower()).split())


#: Segment sizes (MTU 1500 less each transport's headers, docs/coded-transports.md).
MSS = {"tcp-nc": 1438, "tcp-forward": 1456}


def scenario(label: str, p: float, window: int | None = None, cpu: float = 1.0,
             generation: bool = False) -> Scenario:
    """One run of the tandem: transport `label` at end-to-end loss `p`, coding costs
    `cpu` times the reference machine's; `generation`: the transfer is one coding window
    of `window` segments."""
    q = per_link(p)
    flow = {"from": "sender", "to": "receiver", "bytes": BYTES, **TRANSPORTS[label]}
    if "transport" not in flow:
        flow.update(PRE_ISSUE_9)
    kind = flow.get("transport")
    coding: dict = {}
    if kind == "tcp-nc":
        coding["redundancy"] = round(NC_MARGIN / (1.0 - p), 4)
    if kind in MSS:
        if window is not None:
            coding["window"] = window
        if cpu != 1.0:
            coding["cpu_scale"] = cpu
        if generation:
            flow["bytes"] = window * MSS[kind]
            flow["initial_cwnd"] = window
        flow["coding"] = coding
    # One coding window is pushed at once: a queue that holds it, so the figure measures
    # coding and transfer, not drop-tail overflow.
    queue = "1000pkt" if generation else "50pkt"
    link = {"rate": "10Mbps", "delay": "5ms", "queue": queue, "loss": q}
    data = {
        "name": f"coded-{slug(label)}-p{p:g}" + (f"-w{window}" if window else "")
        + ("" if cpu == 1.0 else f"-cpu{cpu:g}") + ("-gen" if generation else ""),
        "sample": "off",
        "duration": f"{DURATION_S}s",
        "node": [{"name": "sender"}, {"name": "relay"}, {"name": "receiver"}],
        "link": [{**link, "between": ["sender", "relay"]},
                 {**link, "between": ["relay", "receiver"]}],
        "flow": [flow],
    }
    return Scenario(data, source=f"{NAME} (tcplab.reproduce)")


def one(job):
    """Runs one (figure, label, loss, window, cpu, seed) job; returns its row of
    runs.parquet."""
    fig, label, p, window, cpu, seed = job
    f = simulate(scenario(label, p, window, cpu, fig == "gen"), seed=seed).flows.iloc[0]

    def get(col):
        v = f.get(col)
        return None if v is None or pd.isna(v) else float(v)

    name = cpu_label(cpu)
    return {"figure": fig, "transport": label, "loss": p, "window": window,
            "cpu_scale": cpu, "cpu": name,
            "series": label if name == "PC" else f"{label}, {name}", "seed": seed,
            "goodput_bps": float(f.goodput_bps), "completed": bool(f.completed),
            "bytes_delivered": int(f.bytes_delivered),
            "redundancy": get("redundancy"),
            "symbols_per_segment": get("redundancy_measured"),
            "decode_delay_mean_s": get("decode_delay_mean_s"),
            "latency_mean_s": get("latency_mean_s"),
            "first_decode_s": get("first_decode_s"),
            "decode_busy_s": get("decode_busy_s"),
            "encode_busy_s": get("encode_busy_s"),
            "completion_s": get("completion_s")}


def summarise(runs: pd.DataFrame, x: str, metric: str, bounds,
              by: str = "transport") -> pd.DataFrame:
    """Mean and confidence interval of `metric` per `by` (the series) and value of `x`,
    kept inside the metric's valid `bounds`; the series is in column "transport"."""
    rows = []
    for (label, xv), g in runs.groupby([by, x], sort=False):
        iv = interval(g[metric].dropna().tolist(), 0.95, bounds)
        rows.append({"transport": label, x: xv, "metric": metric, "mean": iv.mean,
                     "ci_low": iv.low, "ci_high": iv.high, "n": iv.n,
                     "interval": iv.method, "identical": iv.method == "identical"})
    return pd.DataFrame(rows)


def first_and_whole(runs: pd.DataFrame) -> pd.DataFrame:
    """Figures 10-11: per transport and CPU, the first-segment and whole-window decode
    latency of one coding window (series "<transport>, <cpu>: first" / ": whole")."""
    first = runs.assign(series=runs["series"] + ": first segment")
    whole = runs.assign(series=runs["series"] + ": whole window",
                        first_decode_s=runs["completion_s"])
    return summarise(pd.concat([first, whole]), "window", "first_decode_s",
                     (0.0, math.inf), by="series")


def run(out: Path, seeds: int = 5, workers: int | None = None,
        losses: list[float] | None = None, windows: list[int] | None = None,
        scales: list[float] | None = None) -> list[Path]:
    """Figure 7 (every transport × loss), Figures 8-9 (coded transports × window, on the
    reference and the Pi-class CPU) and Figures 10-11 (one coding window per run) with
    seeds 1..`seeds`, and the CPU-speed sensitivity (Figure 9c); `losses`, `windows` and
    `scales` replace the study's grids (for quick checks). Returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    losses = LOSSES if losses is None else losses
    windows = WINDOWS if windows is None else windows
    scales = SCALES if scales is None else scales
    coded = ("TCP-Forward", "TCP/NC (Vegas)")
    seed_list = range(1, seeds + 1)
    jobs = [("fig7", t, p, None, 1.0, s) for t in TRANSPORTS for p in losses
            for s in seed_list]
    jobs += [("fig9", t, WINDOW_LOSS, w, cpu, s) for cpu in CPUS.values() for t in coded
             for w in windows for s in seed_list]
    jobs += [("gen", t, GEN_LOSS, w, cpu, s) for cpu in CPUS.values() for t in coded
             for w in windows for s in seed_list]
    jobs += [("cpu", t, WINDOW_LOSS, SCALE_WINDOW, c, s) for t in coded for c in scales
             for s in seed_list]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        runs = pd.DataFrame(list(pool.map(one, jobs, chunksize=4)))
    r7 = runs[runs.figure == "fig7"]
    r9 = runs[runs.figure == "fig9"].astype({"window": int})
    rg = runs[runs.figure == "gen"].astype({"window": int})
    rc = runs[runs.figure == "cpu"]
    pos = (0.0, math.inf)
    g7 = summarise(r7, "loss", "goodput_bps", pos).assign(figure="fig7")
    s7 = summarise(r7.dropna(subset=["symbols_per_segment"]), "loss", "symbols_per_segment",
                   pos).assign(figure="fig7-redundancy")
    l8 = summarise(r9, "window", "latency_mean_s", pos, by="series").assign(figure="fig8")
    d9 = summarise(r9, "window", "decode_delay_mean_s", pos, by="series").assign(
        figure="fig9")
    c9 = summarise(r9, "window", "goodput_bps", pos, by="series").assign(
        figure="fig9-goodput")
    b9 = summarise(r9, "window", "decode_busy_s", pos, by="series").assign(
        figure="fig9-decode-busy")
    dc = summarise(rc, "cpu", "decode_delay_mean_s", pos).assign(figure="fig9c")
    lc = summarise(rc, "cpu", "latency_mean_s", pos).assign(figure="fig9c-latency")
    gc = summarise(rc, "cpu", "goodput_bps", pos).assign(figure="fig9c-goodput")
    fw = first_and_whole(rg)
    f10 = fw[~fw.transport.str.contains(", Pi")].assign(figure="fig10")
    f11 = fw[fw.transport.str.startswith("TCP-Forward")].assign(figure="fig11")
    at = f"at {WINDOW_LOSS:.0%} loss"
    gen = "one coding window, " + ("no loss" if GEN_LOSS == 0 else f"{GEN_LOSS:.0%} loss")
    figs = [
        (g7, "loss", "fig7_goodput_vs_loss", "goodput [Mbit/s]", 1e-6,
         "end-to-end packet loss rate", "Fig. 7: goodput over the lossy tandem"),
        (s7, "loss", "fig7b_symbols_per_segment", "coded packets sent per segment", 1.0,
         "end-to-end packet loss rate", "Redundancy the coded transports used"),
        (l8, "window", "fig8_latency_vs_window", "mean end-to-end latency [ms]", 1e3,
         "coding window [segments]", f"Fig. 8: encode + transfer + decode latency {at}"),
        (d9, "window", "fig9_decode_delay_vs_window", "mean decoding delay [ms]", 1e3,
         "coding window [segments]", f"Fig. 9: decoding delay {at}"),
        (c9, "window", "fig9b_goodput_vs_window", "goodput [Mbit/s]", 1e-6,
         "coding window [segments]", f"Goodput vs coding window {at}"),
        (dc, "cpu", "fig9c_decode_delay_vs_cpu", "mean decoding delay [ms]", 1e3,
         "coding cost (multiple of the reference machine's)",
         f"Decoding delay vs CPU speed, window {SCALE_WINDOW}, {at}"),
        (f10, "window", "fig10_first_vs_whole_window", "latency from the start [ms]", 1e3,
         "coding window [segments]", f"Fig. 10: first vs all segments decoded ({gen})"),
        (f11, "window", "fig11_pc_vs_pi", "latency from the start [ms]", 1e3,
         "coding window [segments]", f"Fig. 11: TCP-Forward, PC vs Pi ({gen})"),
    ]
    pngs = []
    for summ, x, name, ylabel, scale, xlabel, title in figs:
        png = out / f"{name}.png"
        plot_summary(summ, x, "transport", png, ylabel=ylabel, xlabel=xlabel, title=title,
                     scale=scale)
        pngs.append(png)
    summary = pd.concat([g7, s7, l8, d9, c9, b9, dc, lc, gc, f10, f11], ignore_index=True)
    first_median = (rg.groupby(["series", "window"])["first_decode_s"].median() * 1e3
                    ).unstack(0).round(1)
    waited = (rg.assign(w=rg["first_decode_s"] > 0.5).groupby(["series", "window"])["w"]
              .sum().unstack(0).astype(int))
    done = r7.groupby(["loss", "transport"], sort=False)["completed"].mean().unstack()
    text = "\n\n".join([
        f"Goodput [Mbit/s] (mean over {seeds} seeds; loss = end-to-end packet loss rate)",
        to_markdown(pivot_means(g7, "loss", "transport", 1e-6)),
        f"Transfers of {BYTES} completed within {DURATION_S:.0f} s (fraction of seeds)",
        to_markdown(done.reindex(columns=list(TRANSPORTS))),
        "Coded packets sent per segment (TCP/NC: R = "
        f"{NC_MARGIN}/(1 − p); TCP-Forward: adaptive)",
        to_markdown(pivot_means(s7, "loss", "transport", 1.0)),
        f"Mean end-to-end latency [ms] vs coding window {at} (Pi: cpu_scale {PI_SCALE:g})",
        to_markdown(pivot_means(l8, "window", "transport", 1e3, 1)),
        f"Mean decoding delay [ms] vs coding window {at}",
        to_markdown(pivot_means(d9, "window", "transport", 1e3, 1)),
        f"Goodput [Mbit/s] vs coding window {at}",
        to_markdown(pivot_means(c9, "window", "transport", 1e-6)),
        f"Receiver CPU time spent decoding [ms] per {BYTES} transfer {at}",
        to_markdown(pivot_means(b9, "window", "transport", 1e3, 1)),
        f"Decoding delay [ms] vs CPU speed (window {SCALE_WINDOW}, {at})",
        to_markdown(pivot_means(dc, "cpu", "transport", 1e3, 1)),
        f"End-to-end latency [ms] vs CPU speed (window {SCALE_WINDOW}, {at})",
        to_markdown(pivot_means(lc, "cpu", "transport", 1e3, 1)),
        f"Goodput [Mbit/s] vs CPU speed (window {SCALE_WINDOW}, {at})",
        to_markdown(pivot_means(gc, "cpu", "transport", 1e-6)),
        f"First-segment and whole-window decode latency [ms] from the start ({gen})",
        to_markdown(pivot_means(fw, "window", "transport", 1e3, 1)),
        f"First-segment decode latency [ms], median over seeds ({gen})",
        to_markdown(first_median),
        "Runs whose first decode came after 0.5 s (waited for a Diff_p timeout)",
        to_markdown(waited),
    ])
    if summary["identical"].any():
        text += f"\n\n{same_note(seeds)}"
    return write_outputs(out, runs, summary, text, pngs)
