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

from tcplab.plot import _new_figure, note_no_paper, plot_summary, save
from tcplab.reproduce.common import (
    NO_HANDSHAKE_64MIB_WINDOW,
    Claim,
    claim_table,
    n_seeds,
    pivot_means,
    same_note,
    to_markdown,
    verdict,
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
    "TCP-Forward, no overlap": {"transport": "tcp-forward", "cc": "vegas"},
    "TCP/NC (Vegas)": {"transport": "tcp-nc", "cc": "vegas"},
    "TCP/NC (Vegas), generations": {"transport": "tcp-nc", "cc": "vegas"},
    "TCP/NC (Reno)": {"transport": "tcp-nc", "cc": "reno"},
    "TCP Reno": {"cc": "reno"},
    "TCP Vegas": {"cc": "vegas", "recovery": "newreno"},
    "TCP Cubic + SACK": {"cc": "cubic", "recovery": "sack"},
}
#: Coding keys of the variants: TCP-Forward without the seed's half-overlapping windows
#: (Fig. 5: "The sliding windows are overlapped to further provide reliability"; Sec. VI
#: calls the overlap "far from perfect"), and the seed's preliminary TCP/NC, which
#: decodes and delivers whole generations ("decoding operations is only possible after
#: node B receives 4 linear combinations", Sec. III) of GENERATION packets at a fixed R.
#: GENERATION is TCP-Forward's window N here, so both code over 16 segments.
GENERATION = 16
#: The generations baseline's R in Figure 7: tcplab's default TCP/NC `redundancy`; Figure
#: 7d sweeps it (FIXED_R).
GENERATION_R = 1.25
CODING = {
    "TCP-Forward, no overlap": {"overlap": False},
    "TCP/NC (Vegas), generations": {"generation": GENERATION},
}
#: Figure 9: coding-window sizes (segments) at a fixed loss: from one segment (the seed's
#: windows of 4500 bytes and less are 1-3 segments of 1438-1456 bytes) to 128.
WINDOWS = [1, 2, 3, 4, 8, 16, 32, 64, 128]
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
#: A first decode later than this waited for the 1 s Diff_p timeout (`initial_timeout_ms`)
#: instead of decoding from the first symbols: Figures 10-11 count such runs apart.
TIMEOUT_WAIT_S = 0.5
#: Seeds per point by default (docs/reproductions/coded.md quotes 10).
SEEDS = 10
#: The seed's figures are images without readable values; its text gives orderings and
#: one number: TCP/NC's decoding delay on the Pi "unbearable" past 4500-byte windows.
NO_PAPER = "the seed's figures give no values"
PAPER_UNBEARABLE_BYTES = 4500
NC_MARGIN = 1.1
#: Figure 7 again with TCP/NC at a fixed redundancy, as the paper's TCP/NC (no adaptive R:
#: the seed stresses Forward's adaptive R as its advantage); a sweep, not a fit. R = 1.25
#: is the probe that found TCP/NC collapsing past its redundancy (issue 29).
FIXED_R = [1.25, 1.5, 2.0]
BYTES = "2MB"
NC, NC_GEN, NO_OVERLAP = ("TCP/NC (Vegas)", "TCP/NC (Vegas), generations",
                          "TCP-Forward, no overlap")
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
             generation: bool = False, redundancy: float | None = None) -> Scenario:
    """One run of the tandem: transport `label` at end-to-end loss `p`, coding costs
    `cpu` times the reference machine's; `generation`: the transfer is one coding window
    of `window` segments; `redundancy`: TCP/NC's fixed R (default 1.1/(1 − p))."""
    q = per_link(p)
    flow = {"from": "sender", "to": "receiver", "bytes": BYTES, **TRANSPORTS[label]}
    if "transport" not in flow:
        flow.update(NO_HANDSHAKE_64MIB_WINDOW)
    kind = flow.get("transport")
    coding: dict = dict(CODING.get(label, {}))
    if kind == "tcp-nc":
        # Generations at GENERATION_R in Figure 7; in the window figures every TCP/NC
        # gets R = 1.1/(1 − p), so that generations are all that differs.
        gen_fixed = "generation" in coding and window is None
        tuned = GENERATION_R if gen_fixed else round(NC_MARGIN / (1.0 - p), 4)
        coding["redundancy"] = redundancy or tuned
    if kind in MSS:
        if window is not None:
            coding["generation" if "generation" in coding else "window"] = window
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
        + ("" if cpu == 1.0 else f"-cpu{cpu:g}") + ("-gen" if generation else "")
        + (f"-r{redundancy:g}" if redundancy else ""),
        "sample": "off",
        "duration": f"{DURATION_S}s",
        "node": [{"name": "sender"}, {"name": "relay"}, {"name": "receiver"}],
        "link": [{**link, "between": ["sender", "relay"]},
                 {**link, "between": ["relay", "receiver"]}],
        "flow": [flow],
    }
    return Scenario(data, source=f"{NAME} (tcplab.reproduce)")


def one(job):
    """Runs one (figure, label, loss, window, cpu, seed[, fixed R]) job; returns its row
    of runs.parquet."""
    fig, label, p, window, cpu, seed, *fixed = job
    r = fixed[0] if fixed else None
    f = simulate(scenario(label, p, window, cpu, fig == "gen", r), seed=seed).flows.iloc[0]

    def get(col):
        v = f.get(col)
        return None if v is None or pd.isna(v) else float(v)

    name = cpu_label(cpu)
    return {"figure": fig, "transport": label, "loss": p, "window": window,
            "cpu_scale": cpu, "cpu": name,
            "series": (f"{label}, R = {r:g}" if r else label) if name == "PC"
            else f"{label}, {name}", "seed": seed, "fixed_redundancy": r,
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


def run(out: Path, seeds: int = SEEDS, workers: int | None = None,
        losses: list[float] | None = None, windows: list[int] | None = None,
        scales: list[float] | None = None, quick: bool = False,
        redundancies: list[float] | None = None) -> list[Path]:
    """Figure 7 (every transport × loss), Figures 8-9 (coded transports × window, on the
    reference and the Pi-class CPU) and Figures 10-11 (one coding window per run) with
    seeds 1..`seeds`, and the CPU-speed sensitivity (Figure 9c); `losses`, `windows` and
    `scales` replace the study's grids (for quick checks), `redundancies` the fixed R of
    TCP/NC in Figure 7c; `quick`: three loss rates, two windows, two CPU speeds and one
    fixed R (not the study's numbers). Returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    fixed_r = FIXED_R if redundancies is None else redundancies
    if quick:
        losses, windows, scales = (losses or [0.0, 0.2, 0.9], windows or [4, 64],
                                   scales or [1.0, 3000.0])
        fixed_r = FIXED_R[:1]
    losses = LOSSES if losses is None else losses
    windows = WINDOWS if windows is None else windows
    scales = SCALES if scales is None else scales
    coded = ("TCP-Forward", "TCP/NC (Vegas)")
    seed_list = range(1, seeds + 1)
    jobs = [("fig7", t, p, None, 1.0, s) for t in TRANSPORTS for p in losses
            for s in seed_list]
    jobs += [("fig9", t, WINDOW_LOSS, w, cpu, s) for cpu in CPUS.values() for t in coded
             for w in windows for s in seed_list]
    jobs += [("fig9", NC_GEN, WINDOW_LOSS, w, 1.0, s) for w in windows for s in seed_list]
    jobs += [("gen", t, GEN_LOSS, w, cpu, s) for cpu in CPUS.values() for t in coded
             for w in windows for s in seed_list]
    jobs += [("gen", NC_GEN, GEN_LOSS, w, 1.0, s) for w in windows for s in seed_list]
    jobs += [("cpu", t, WINDOW_LOSS, SCALE_WINDOW, c, s) for t in coded for c in scales
             for s in seed_list]
    jobs += [("fig7r", t, p, None, 1.0, s, r) for t in (NC, NC_GEN) for r in fixed_r
             for p in losses for s in seed_list]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        runs = pd.DataFrame(list(pool.map(one, jobs, chunksize=4)))
    r7 = runs[runs.figure == "fig7"]
    r9 = runs[runs.figure == "fig9"].astype({"window": int})
    rg = runs[runs.figure == "gen"].astype({"window": int})
    rc = runs[runs.figure == "cpu"]
    pos = (0.0, math.inf)
    g7 = summarise(r7, "loss", "goodput_bps", pos).assign(figure="fig7")
    tuned = {coded[0]: coded[0], NO_OVERLAP: NO_OVERLAP,
             coded[1]: f"{coded[1]}, R = {NC_MARGIN}/(1 − p)"}
    ref = r7[r7.transport.isin(tuned)].assign(series=lambda d: d.transport.map(tuned))
    fixed = runs[runs.figure == "fig7r"]
    r7r = pd.concat([ref, fixed[fixed.transport == NC]])
    r7g = pd.concat([ref, fixed[fixed.transport == NC_GEN]])
    g7r = summarise(r7r, "loss", "goodput_bps", pos, by="series").assign(figure="fig7c")
    g7g = summarise(r7g, "loss", "goodput_bps", pos, by="series").assign(figure="fig7d")
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
        (g7r, "loss", "fig7c_goodput_fixed_r", "goodput [Mbit/s]", 1e-6,
         "end-to-end packet loss rate",
         "Fig. 7 against TCP/NC (Vegas) at a fixed R, as the paper's"),
        (g7g, "loss", "fig7d_goodput_generations", "goodput [Mbit/s]", 1e-6,
         "end-to-end packet loss rate",
         f"Fig. 7 against the paper's TCP/NC: generations of {GENERATION}, fixed R"),
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
    pi_style = {f"{t}, Pi": {"ls": "--", "marker": "s", "mfc": "white"} for t in coded}
    for summ, x, name, ylabel, scale, xlabel, title in figs:
        png = out / f"{name}.png"
        if name.startswith(("fig10", "fig11")):
            pngs.append(_fig_first_whole(rg, name.startswith("fig11"), png, title, seeds))
            continue
        by_window = x == "window"
        fig = plot_summary(summ, x, "transport", None, ylabel=ylabel, xlabel=xlabel,
                           title=title, scale=scale, no_paper=NO_PAPER,
                           dodge=0.05 if by_window else 0.0,
                           styles=pi_style if by_window else None)
        if by_window:  # windows double: a log axis spaces them evenly
            fig.axes[0].set_xscale("log", base=2)
        if name.startswith("fig9_"):
            ax = fig.axes[0]
            edge = PAPER_UNBEARABLE_BYTES / MSS["tcp-nc"]
            ax.axvline(edge, color="k", ls=":", lw=1,
                       label="paper (Fig. 9 text): NC 'unbearable' on the Pi past 4500 B")
            ax.set_xlim(left=min(ax.get_xlim()[0], edge * 0.85))
            ax.legend(fontsize=7)
        save(fig, png, dpi=120)
        pngs.append(png)
    summary = pd.concat([g7, g7r, g7g, s7, l8, d9, c9, b9, dc, lc, gc, f10, f11],
                        ignore_index=True)
    first_median = (rg.groupby(["series", "window"])["first_decode_s"].median() * 1e3
                    ).unstack(0).round(1)
    waited = (rg.assign(w=rg["first_decode_s"] > TIMEOUT_WAIT_S)
              .groupby(["series", "window"])["w"].sum().unstack(0).astype(int))
    done = r7.groupby(["loss", "transport"], sort=False)["completed"].mean().unstack()
    n = f"n = {seeds} seeds per point"
    text = "\n\n".join([
        f"Goodput [Mbit/s] ({n}: means; loss = end-to-end packet loss rate)",
        to_markdown(pivot_means(g7, "loss", "transport", 1e-6)),
        f"Goodput [Mbit/s] of TCP-Forward and of TCP/NC (Vegas) at a fixed R ({n}: means)",
        to_markdown(pivot_means(g7r, "loss", "transport", 1e-6)),
        f"Goodput [Mbit/s] of TCP-Forward and of TCP/NC (Vegas) decoding whole generations "
        f"of {GENERATION} packets at a fixed R ({n}: means)",
        to_markdown(pivot_means(g7g, "loss", "transport", 1e-6)),
        f"Transfers of {BYTES} completed within {DURATION_S:.0f} s (fraction of the "
        f"{seeds} seeds)",
        to_markdown(done.reindex(columns=list(TRANSPORTS))),
        "Coded packets sent per segment (TCP/NC: R = "
        f"{NC_MARGIN}/(1 − p); TCP-Forward: adaptive; {n})",
        to_markdown(pivot_means(s7, "loss", "transport", 1.0)),
        f"Mean end-to-end latency [ms] vs coding window {at} (Pi: cpu_scale {PI_SCALE:g}; "
        f"{n})",
        to_markdown(pivot_means(l8, "window", "transport", 1e3, 1)),
        f"Mean decoding delay [ms] vs coding window {at} ({n})",
        to_markdown(pivot_means(d9, "window", "transport", 1e3, 1)),
        f"Goodput [Mbit/s] vs coding window {at} ({n})",
        to_markdown(pivot_means(c9, "window", "transport", 1e-6)),
        f"Receiver CPU time spent decoding [ms] per {BYTES} transfer {at} ({n})",
        to_markdown(pivot_means(b9, "window", "transport", 1e3, 1)),
        f"Decoding delay [ms] vs CPU speed (window {SCALE_WINDOW}, {at}; {n})",
        to_markdown(pivot_means(dc, "cpu", "transport", 1e3, 1)),
        f"End-to-end latency [ms] vs CPU speed (window {SCALE_WINDOW}, {at}; {n})",
        to_markdown(pivot_means(lc, "cpu", "transport", 1e3, 1)),
        f"Goodput [Mbit/s] vs CPU speed (window {SCALE_WINDOW}, {at}; {n})",
        to_markdown(pivot_means(gc, "cpu", "transport", 1e-6)),
        f"First-segment and whole-window decode latency [ms] from the start ({gen}; {n}: "
        "means, timeouts included)",
        to_markdown(pivot_means(fw, "window", "transport", 1e3, 1)),
        f"First-segment decode latency [ms], median over the {seeds} seeds ({gen})",
        to_markdown(first_median),
        f"Runs (of {seeds}) whose first decode came after {TIMEOUT_WAIT_S:g} s (waited for "
        "a Diff_p timeout)",
        to_markdown(waited),
    ])
    if summary["identical"].any():
        text += f"\n\n{same_note(seeds)}"
    head = n_seeds(seeds) + (
        " Quick mode: three loss rates, two windows, two CPU speeds (not the study's "
        "numbers)." if quick else "")
    text = claim_table(claims(r7, r9, rg, r7r, r7g), head) + text
    return write_outputs(out, runs, summary, text, pngs)


def _fig_first_whole(rg: pd.DataFrame, pi: bool, png: Path, title: str, seeds: int) -> Path:
    """Figures 10 (PC, both transports) and 11 (TCP-Forward, PC and Pi): the median
    first-segment and whole-window decode latency over the runs that decoded without
    waiting for the Diff_p timeout (bars: their range), and the runs that waited drawn
    apart (crosses) and counted in the legend."""
    rows = rg[rg.transport == "TCP-Forward"] if pi else rg[rg.cpu == "PC"]
    fig, (ax,) = _new_figure(1, (6.8, 4.4))
    k = 0
    groups = list(rows.groupby("series", sort=False))
    for j, (series, g) in enumerate(groups):
        # Each series shifted sideways (PC and Pi coincide where decoding costs nothing),
        # the Pi's hollow and dotted.
        shift = 1 + 0.06 * (j - (len(groups) - 1) / 2)
        pi_series = series.endswith(", Pi")
        for what, col, ls in (("first segment", "first_decode_s", ":" if pi_series else "-"),
                              ("whole window", "completion_s", "-." if pi_series else "--")):
            color = f"C{k % 10}"
            k += 1
            wait = g["first_decode_s"] > TIMEOUT_WAIT_S
            ok = g[~wait].groupby("window")[col]
            med = ok.median() * 1e3
            lo, hi = ok.min() * 1e3, ok.max() * 1e3
            # The whole window a little further right: where it is the first segment
            # too (a generation decodes at once), both stay visible.
            x = med.index * shift * (1.03 if what == "whole window" else 1.0)
            ax.errorbar(x, med.values, yerr=[med - lo, hi - med],
                        color=color, ls=ls, marker="s" if pi_series else "o",
                        mfc="white" if pi_series else color, ms=3.5, capsize=2, lw=1,
                        label=f"{series}: {what}, median (n={int((~wait).sum())} runs)")
            if wait.any():
                w = g[wait]
                ax.plot(w["window"] * shift, w[col] * 1e3, ls="none", marker="x", color=color,
                        label=f"{series}: {what}, {int(wait.sum())} of {len(g)} runs waited "
                        "for the 1 s timeout")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("coding window [segments]")
    ax.set_ylabel("latency from the start [ms]")
    ax.set_title(f"{title}; {seeds} seeds, timeouts apart", fontsize=9)
    note_no_paper(ax, NO_PAPER)
    ax.legend(fontsize=6)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return save(fig, png, dpi=120)


def claims(r7: pd.DataFrame, r9: pd.DataFrame, rg: pd.DataFrame,
           r7r: pd.DataFrame | None = None, r7g: pd.DataFrame | None = None) -> list[Claim]:
    """The seed's claims (it gives no numbers, only orderings) against this run; `r7r`:
    Figure 7's coded runs with TCP/NC at fixed redundancies too; `r7g`: the same with the
    seed's preliminary TCP/NC (whole generations, fixed R)."""
    g = r7.groupby(["transport", "loss"])["goodput_bps"].mean() / 1e6
    losses = sorted(r7.loss.unique())
    out = []
    fw, nc = "TCP-Forward", "TCP/NC (Vegas)"
    fr = (r7r.groupby(["series", "loss"])["goodput_bps"].mean() / 1e6
          if r7r is not None else None)
    if 0.0 in losses:
        beats = {t: g["TCP Reno", 0.0] > g[t, 0.0] for t in (fw, nc)}
        out.append(Claim(
            "At low loss TCP Reno beats the coded transports (Fig. 7)", "no number",
            f"at 0 %: Reno {g['TCP Reno', 0.0]:.2f}, Forward {g[fw, 0.0]:.2f}, TCP/NC "
            f"{g[nc, 0.0]:.2f} Mbit/s", verdict(all(beats.values()), any(beats.values())),
            "holds: Reno above both; shape only: above one. TCP/NC over Vegas keeps the "
            "queue short and uses most of the path; Forward sends each segment twice "
            "(coded.md, 'Why TCP-Forward is slower than in the seed')"))
    ahead = [p for p in losses if g[fw, p] > g[nc, p]]
    out.append(Claim(
        "TCP-Forward ahead of TCP/NC at every loss rate (Fig. 7)", "no number",
        f"ahead at {len(ahead)} of {len(losses)} loss rates"
        + (f" ({', '.join(f'{p:.0%}' for p in ahead)})" if ahead else ""),
        verdict(len(ahead) == len(losses), len(ahead) > len(losses) / 2),
        "holds: at every loss rate; shape only: at most. tcplab's TCP/NC gets R = "
        "1.1/(1 − p), the paper's preliminary TCP/NC probably less (coded.md, 'Why "
        "TCP-Forward is slower than in the seed')"))
    for r in sorted(r7r["fixed_redundancy"].dropna().unique()) if r7r is not None else []:
        name = f"{nc}, R = {r:g}"
        ahead = [p for p in losses if fr[fw, p] > fr[name, p]]
        out.append(Claim(
            f"TCP-Forward ahead of TCP/NC at every loss rate (Fig. 7), against TCP/NC with "
            f"a fixed R = {r:g}", "no number",
            f"ahead at {len(ahead)} of {len(losses)} loss rates"
            + (f" ({', '.join(f'{p:.0%}' for p in ahead)})" if ahead else ""),
            verdict(len(ahead) == len(losses), len(ahead) > len(losses) / 2),
            "holds: at every loss rate; shape only: at most. The paper's TCP/NC had no "
            "adaptive R; with R below 1/(1 − p) TCP sees the residual losses (coded.md, "
            "'Why TCP-Forward is slower than in the seed')"))
    fg = (r7g.groupby(["series", "loss"])["goodput_bps"].mean() / 1e6
          if r7g is not None else None)
    for r in sorted(r7g["fixed_redundancy"].dropna().unique()) if r7g is not None else []:
        name = f"{NC_GEN}, R = {r:g}"
        ahead = [p for p in losses if fg[fw, p] > fg[name, p]]
        out.append(Claim(
            f"TCP-Forward ahead of TCP/NC at every loss rate (Fig. 7), against the seed's "
            f"preliminary TCP/NC: whole generations of {GENERATION}, fixed R = {r:g}",
            "no number",
            f"ahead at {len(ahead)} of {len(losses)} loss rates"
            + (f" ({', '.join(f'{p:.0%}' for p in ahead)})" if ahead else ""),
            verdict(len(ahead) == len(losses), len(ahead) > len(losses) / 2),
            "holds: at every loss rate; shape only: at most. Past 1 − 1/R a generation "
            "often ends short of rank and waits for TCP's retransmissions; below it the "
            "generations cost TCP/NC little and Forward's half-used path loses (coded.md, "
            "'Against the paper's own TCP/NC')"))
    high = [p for p in losses if p >= 0.1]
    plain = ("TCP Reno", "TCP Vegas", "TCP Cubic + SACK")
    strong = [all(g[c, p] >= 4 * g[t, p] for c in (fw, nc) for t in plain) for p in high]
    out.append(Claim(
        "As loss grows the coded transports show their strength (Fig. 7)", "no number",
        f"every coded ≥ 4× every plain TCP at {sum(strong)} of {len(high)} loss rates "
        "≥ 10 %", verdict(all(strong) if high else None, any(strong)),
        "holds: at every loss rate ≥ 10 %; coding repairs random loss without a window "
        "cut (coded.md, Figure 7)"))
    if fw in set(r7.transport) and max(losses) >= 0.9 and 0.0 in losses:
        keep = {t: g[t, max(losses)] / g[t, 0.0] for t in (fw, nc)}
        out.append(Claim(
            "TCP-Forward's throughput does not drop much up to 90 % loss (Fig. 7)",
            "no number", f"keeps {keep[fw]:.0%} of its 0 % goodput at {max(losses):.0%} "
            f"(TCP/NC {keep[nc]:.0%})", verdict(keep[fw] >= 0.5, keep[fw] > keep[nc]),
            "holds: ≥ 50 % kept; shape only: keeps more than TCP/NC; goodput falls about "
            "with 1 − p (coded.md, claims)"))
    pc = r9[r9.cpu == "PC"].groupby(["transport", "window"])
    lat = pc["latency_mean_s"].mean() * 1e3
    dec = pc["decode_delay_mean_s"].mean() * 1e3
    ws = [int(w) for w in sorted(r9.window.unique())]
    if ws:
        better = [w for w in ws if lat[fw, w] < lat[nc, w]]
        big = [w for w in ws if w >= 16]
        out.append(Claim(
            "Forward's end-to-end latency below NC's, especially for large windows (Fig. 8)",
            "no number", "below at windows " + (", ".join(map(str, better)) or "none")
            + f" of {', '.join(map(str, ws))}",
            verdict(bool(big) and all(w in better for w in big),
                    sum(w in better for w in big) > len(big) / 2),
            "holds: below at every window ≥ 16; shape only: at most of them. Forward's "
            "window waits "
            "for N·R symbols; NC's effective window is its unseen packets in flight "
            "(coded.md, Figure 8)"))
    if ws and NC_GEN in set(r9.transport):
        better = [w for w in ws if lat[fw, w] < lat[NC_GEN, w]]
        grow = {t: dec[t, ws[-1]] - dec[t, ws[0]] for t in (fw, NC_GEN)}
        out.append(Claim(
            "Forward's end-to-end latency below NC's (Fig. 8) and NC's decoding delay "
            "growing faster (Fig. 9), against the seed's preliminary TCP/NC (whole "
            "generations of the window's size)", "no number",
            "latency below at windows " + (", ".join(map(str, better)) or "none")
            + f" of {', '.join(map(str, ws))}; decoding delay from {ws[0]} to {ws[-1]} "
            f"segments: NC {grow[NC_GEN]:+.1f} ms, Forward {grow[fw]:+.1f} ms",
            verdict(len(better) == len(ws) and grow[NC_GEN] > 2 * grow[fw],
                    len(better) > len(ws) / 2),
            "holds: below at every window and NC's growth > 2× Forward's; shape only: "
            "below at most windows. A generation is delivered only once whole, so its "
            "packets wait for its last one and for the losses in it to be repaired "
            "(coded.md, 'Against the paper's own TCP/NC')"))
    if len(ws) > 1:
        grow = {t: dec[t, ws[-1]] - dec[t, ws[0]] for t in (fw, nc)}
        small = max(w for w in ws if w <= 16) if any(w <= 16 for w in ws) else ws[0]
        early = {t: dec[t, small] - dec[t, ws[0]] for t in (fw, nc)}
        out.append(Claim(
            "NC's decoding delay grows much faster with the window than Forward's (Fig. 9)",
            "no number", f"from {ws[0]} to {ws[-1]} segments: NC {grow[nc]:+.1f} ms, "
            f"Forward {grow[fw]:+.1f} ms; to {small}: NC {early[nc]:+.1f}, Forward "
            f"{early[fw]:+.1f} ms",
            verdict(grow[nc] > 2 * grow[fw], small > ws[0] and early[nc] > early[fw]),
            "holds: NC's growth over the whole range > 2× Forward's; shape only: faster up "
            "to 16 segments. Above 16 NC's limit stops binding: Vegas keeps fewer unseen "
            "packets in flight (coded.md, Figure 9)"))
        pi = r9[r9.cpu == "Pi"].groupby(["transport", "window"])["decode_delay_mean_s"].mean()
        ratio = pi[nc, ws[-1]] * 1e3 / dec[nc, ws[-1]] if (nc, ws[-1]) in pi else float("nan")
        out.append(Claim(
            "On the Pi NC's decoding delay becomes 'unbearable' past 4500-byte windows "
            "(Fig. 9)", "4500 B (≈ 3 segments)",
            f"Pi / PC decoding delay of NC at {ws[-1]} segments: {ratio:.2f}×",
            verdict(ratio >= 2.0),
            f"holds: ≥ 2× the PC's at the Pi's factor ({PI_SCALE:g}); decoding one symbol "
            "takes µs even on the Pi against 1.2 ms per packet per link; the shape needs "
            "≈ 3000× (coded.md, 'What a slower CPU changes')"))
    f = rg[(rg.transport == fw) & (rg.cpu == "PC")]
    if len(f) and f.window.nunique() > 1:
        ok = f[f.first_decode_s <= TIMEOUT_WAIT_S]
        first = ok.groupby("window")["first_decode_s"].median() * 1e3
        whole = f.groupby("window")["completion_s"].median() * 1e3
        waited = int((f.first_decode_s > TIMEOUT_WAIT_S).sum())
        out.append(Claim(
            "Forward's first segment decodes almost at once and always early; the whole "
            "window grows about linearly (Fig. 10)", "no number",
            f"first segment median {first.min():.0f}–{first.max():.0f} ms; whole window "
            f"{whole.iloc[0]:.0f} → {whole.iloc[-1]:.0f} ms; {waited} of {len(f)} runs "
            "waited for the 1 s timeout",
            verdict(first.max() <= 50 and whole.iloc[-1] > 1.5 * whole.iloc[0]
                    and waited == 0, first.max() <= 50 and whole.iloc[-1] > whole.iloc[0]),
            "holds: first ≤ 50 ms, whole grows > 1.5×, no run waited; shape only: the same "
            "with runs that drew no degree-1 symbol and waited (coded.md, Figures 10-11)"))
        fpi = rg[(rg.transport == fw) & (rg.cpu == "Pi")].groupby("window")["completion_s"]
        slow = fpi.median() / f.groupby("window")["completion_s"].median()
        out.append(Claim(
            "The Pi takes much longer for the whole window (Fig. 11)", "no number",
            f"Pi / PC whole-window time {slow.min():.2f}–{slow.max():.2f}×",
            verdict(slow.max() >= 1.5, slow.max() >= 1.1),
            "holds: ≥ 1.5× at some window; shape only: ≥ 1.1×; at 10 Mbit/s the transfer, "
            "not decoding, sets the time (coded.md, Figures 10-11)"))
    return out
