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

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcplab.plot import _new_figure, draw_paper, note_no_paper, save
from tcplab.reproduce.common import (
    NS3_STUDY_LABELS,
    NS3_STUDY_SETTINGS,
    SAME,
    Claim,
    claim_table,
    one_seed_note,
    same_note,
    to_markdown,
    verdict,
    within,
    write_outputs,
)
from tcplab.scenario import Scenario, simulate
from tcplab.stats import format_interval, interval, jain_index

NAME = "wave"
DESCRIPTION = "Seed 000: TCP Wave single flow, two-flow sharing vs BBR and Cubic, RTT"

ONE_WAY = "24ms"
BUFFER = "100pkt"
COMPARE = ["wave", "bbr", "cubic"]
#: The path has no random element (no loss, no jitter, a deterministic controller): every
#: seed gives the same numbers, so the study runs one (the test checks seeds 1 and 2 agree).
DETERMINISTIC = True


@dataclass(frozen=True)
class Timing:
    """The experiments' durations [s]: one flow for `single`; in the sharing test flow 1
    for `total`, flow 2 from `start` to `stop` (the seed: 60 s; 240 s, 100-200 s)."""

    single: float = 60.0
    total: float = 240.0
    start: float = 100.0
    stop: float = 200.0

    @property
    def warmup(self) -> float:
        """Flow 1's start-up, left out of its "alone" share (20 s of the seed's 100)."""
        return self.start / 5

    @property
    def settle(self) -> float:
        """Time after a flow starts or stops before a share is measured (10 s)."""
        return self.start / 10


SEED_TIMING = Timing()
#: --quick: a quarter of the seed's timings (the same code paths; not the study's numbers).
QUICK_TIMING = Timing(15.0, 60.0, 25.0, 50.0)
#: The seed's numbers, from its text (it prints no axis values): Fig. 1 "almost the
#: maximum rate of 6 Mbit/s", first TxTime update "at time 0.5s"; Figs. 4-5: flow 1 "the
#: full rate of 10 Mbit/s" alone, "around 5 Mb/s, each" while sharing, full capacity
#: again after flow 2 stops.
PAPER = {"single_Mbps": 6.0, "first_update_s": 0.5, "alone_Mbps": 10.0,
         "shared_Mbps": 5.0}
#: Tolerances of the claim table: a rate within 10 % of the seed's (it says "almost" and
#: "around"); the first TxTime update within half a TxTimer0 (250 ms) of 0.5 s.
RATE_TOL = 0.10


#: The seed's setting: TCP Wave is an ns-3 module, so the flows run under ns-3's
#: TCP (`stack = "ns3"`), keeping the study's own MSS of 1448 (a 1500-byte MTU less 52
#: header bytes with timestamps; 536 is ns-3's SegmentSize default) and 64 MiB buffers
#: (ns-3's 128 KiB would cap Cubic's window below the 100-packet queue it fills).
#: "pinned": the settings of before the stack profiles, the numbers wave.md compares with.
SETTINGS = NS3_STUDY_SETTINGS
SETTING = "ns3"


def capacity_mbps(rate_mbps: float, setting: str = SETTING) -> float:
    """A bottleneck of `rate_mbps` as goodput: MSS over the 1500-byte packet."""
    return rate_mbps * SETTINGS[setting]["mss"] / 1500


def path(rate: str, flows: list[dict], duration: str, sample: str = "ack",
         setting: str = SETTING) -> Scenario:
    """The emulated dumbbell path (see the module docs) with a `rate` bottleneck; TCP
    settings `setting` (a key of :data:`SETTINGS`)."""
    data = {
        "name": "wave-path", "sample": sample, "duration": duration,
        "topology": {"kind": "dumbbell"},
        "bottleneck": {"rate": rate, "delay": ONE_WAY, "queue": BUFFER},
        "access": {"rate": "1Gbps", "delay": "1ms", "queue": "1000pkt"},
        "flow": [{**f, **SETTINGS[setting]} for f in flows],
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


def single_flow(seed: int, timing: Timing = SEED_TIMING, setting: str = SETTING):
    """Experiment 1: one Wave flow over 6 Mbit/s; returns (result, row)."""
    res = simulate(path("6Mbps", [{"cc": "wave", "bytes": "unlimited"}],
                        f"{timing.single:g}s", setting=setting), seed=seed)
    f = res.flows.iloc[0]
    rtts = res.series("rtt").dropna()["rtt_s"].to_numpy()
    tr = res.tables["cc_trace"].to_pandas()
    tx = tr[tr["key"].astype(str) == "txtime_s"]
    first = tx[tx["value"] != tx["value"].iloc[0]]["t_s"] if len(tx) else tx["t_s"]
    late = tx[tx["t_s"] > timing.single / 10]["value"]
    row = {"experiment": "single 6 Mbit/s", "cc": "wave", "seed": seed,
           "goodput_Mbps": f.goodput_bps / 1e6,
           "utilisation_%": f.goodput_bps / (capacity_mbps(6, setting) * 1e6) * 100,
           "capacity_Mbps": capacity_mbps(6, setting),
           "rtt_min_ms": rtts.min() * 1e3, "rtt_p50_ms": np.median(rtts) * 1e3,
           "rtt_p95_ms": np.percentile(rtts, 95) * 1e3,
           "txtime_first_update_s": float(first.iloc[0]) if len(first) else float("nan"),
           "txtime_first_applied_s": first_applied(tr),
           "txtime_cv_%": float(late.std() / late.mean() * 100) if len(late) > 1
           else float("nan")}
    return res, row


def first_applied(tr: pd.DataFrame) -> float:
    """When the burst sequence in Wave's trace first advances past the first burst, i.e.
    when the first TxTime update first shows in the burst pace (what the seed's Fig. 1
    plots). The simulator traces at ACK arrivals, so this is one RTT after the burst was
    sent there; the UDP driver samples every few ms."""
    b = tr[tr["key"].astype(str) == "burst_seq"].set_index("t_s")["value"].dropna()
    sent = b[b >= 1]
    later = sent[sent > sent.iloc[0]] if len(sent) else sent
    return float(later.index[0]) if len(later) else float("nan")


def two_flows(cc: str, seed: int, timing: Timing = SEED_TIMING, setting: str = SETTING):
    """Experiment 2: flow 1 for the whole run, flow 2 from `timing.start` to
    `timing.stop`, on 10 Mbit/s; returns (result, per-flow goodput bins, row)."""
    tm = timing
    flows = [{"cc": cc, "bytes": "unlimited"},
             {"cc": cc, "bytes": "unlimited", "start": f"{tm.start:g}s",
              "stop": f"{tm.stop:g}s"}]
    res = simulate(path("10Mbps", flows, f"{tm.total:g}s", setting=setting), seed=seed)
    bins = {fl: throughput_bins(res, fl, until=tm.total) for fl in (0, 1)}
    t, g0 = bins[0]
    g1 = bins[1][1]
    mid = (t > tm.start + tm.settle) & (t <= tm.stop)
    shares = (g0[mid].mean(), g1[mid].mean())
    row = {"experiment": "two flows 10 Mbit/s", "cc": cc, "seed": seed,
           "flow1_alone_Mbps": g0[(t > tm.warmup) & (t <= tm.start)].mean(),
           "flow1_shared_Mbps": shares[0], "flow2_shared_Mbps": shares[1],
           "flow1_after_Mbps": g0[(t > tm.stop + tm.settle) & (t <= tm.total)].mean(),
           "jain_shared": jain_index(list(shares))}
    return res, bins, row


def experiments(seed: int, variants: list[str], timing: Timing = SEED_TIMING,
                figures: Path | None = None,
                setting: str = SETTING) -> tuple[pd.DataFrame, list[Path]]:
    """Every experiment with one seed: the rows of runs.parquet and (into `figures`, if
    given) the three figures."""
    rows, figs = [], []
    tm = timing
    if "wave" in variants:
        res, row = single_flow(seed, tm, setting)
        rows.append(row)
        if figures is not None:
            figs.append(_fig_single(res, figures / "fig1-wave-single-flow.png", tm, seed,
                                    capacity_mbps(6, setting), setting))
    fig, ax = _new_figure(len(variants), (8, 3 * len(variants)), sharex=True, sharey=True)
    rtt_alone = {}
    for i, cc in enumerate(variants):
        res, bins, row = two_flows(cc, seed, tm, setting)
        rows.append(row)
        r = res.series("rtt").dropna()
        alone = r[(r["flow"] == 0) & (r["t_s"] > tm.warmup) & (r["t_s"] <= tm.start)]
        x = alone["rtt_s"].to_numpy() * 1e3
        rows.append({"experiment": f"RTT alone on 10 Mbit/s ({tm.warmup:g}-{tm.start:g} s)",
                     "cc": cc, "seed": seed, "rtt_min_ms": x.min(),
                     "rtt_p50_ms": float(np.median(x)),
                     "rtt_p95_ms": float(np.percentile(x, 95))})
        rtt_alone[cc] = x
        for fl in (0, 1):
            ax[i].plot(*bins[fl], lw=0.8, label=f"flow {fl + 1} ({cc})")
        if cc == "wave":
            mid = (tm.start + tm.stop) / 2
            draw_paper(ax[i], [tm.start / 2, mid, mid, (tm.stop + tm.total) / 2],
                       [PAPER["alone_Mbps"], PAPER["shared_Mbps"], PAPER["shared_Mbps"],
                        PAPER["alone_Mbps"]], "Figs. 4-5: 10, ~5 + ~5, 10 Mbit/s")
        else:
            note_no_paper(ax[i], f"the seed's Fig. {6 if cc == 'bbr' else 7} gives no "
                          "numbers" if cc in ("bbr", "cubic") else "not in the seed")
        ax[i].set_ylabel("goodput [Mbit/s]")
        ax[i].set_title(cc, fontsize=9, loc="left")
        ax[i].legend(fontsize=7)
        ax[i].grid(alpha=0.3)
    ax[-1].set_xlabel("time [s]")
    fig.suptitle(f"Two flows sharing 10 Mbit/s (flow 2 active {tm.start:g}–{tm.stop:g} s; "
                 f"seed {seed}; {NS3_STUDY_LABELS[setting]})")
    fig.tight_layout()
    if figures is None:
        import matplotlib.pyplot as plt

        plt.close(fig)
        return pd.DataFrame(rows), figs
    figs.append(save(fig, figures / "fig2-two-flows.png"))

    fig, (ax,) = _new_figure(1, (6.4, 4))
    for cc, x in rtt_alone.items():
        x = np.sort(x)
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{cc} (n={len(x):,} samples)")
    ax.set_xlabel("RTT [ms]")
    ax.set_ylabel("CDF")
    ax.set_title(f"RTT of flow 1 alone, {tm.warmup:g}–{tm.start:g} s (seed {seed}; "
                 f"{NS3_STUDY_LABELS[setting]})", fontsize=9)
    note_no_paper(ax, "the seed's Fig. 8 gives no RTT values")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    figs.append(save(fig, figures / "fig3-rtt-cdf.png"))
    return pd.DataFrame(rows), figs


def run(out: Path, seeds: int = 1, workers: int | None = None,
        variants: list[str] | None = None, quick: bool = False,
        setting: str = SETTING) -> list[Path]:
    """Runs the three experiments once (seed 1: the path has no random component, see
    :data:`DETERMINISTIC`; `seeds` is accepted and not needed); `quick`: a quarter of the
    seed's timings. Returns the files written."""
    from tcplab.reproduce.inet_vegas_westwood import available

    out.mkdir(parents=True, exist_ok=True)
    vs = available(variants or COMPARE)
    timing = QUICK_TIMING if quick else SEED_TIMING
    runs, figs = experiments(1, vs, timing, out, setting)
    summary, text = _tables(runs, 1)
    head = (one_seed_note("the Wave path", seeds) + f" TCP settings: {setting} "
            f"({', '.join(f'{k} = {v}' for k, v in SETTINGS[setting].items())}).\n\n")
    if quick:
        head += "Quick mode: a quarter of the seed's timings (not the study's numbers).\n\n"
    text = claim_table(claims(runs), head.strip()) + text
    return write_outputs(out, runs, summary, text, figs)


def claims(runs: pd.DataFrame) -> list[Claim]:
    """The seed's claims against the measured rows (one seed)."""
    def get(exp_prefix, cc, col):
        r = runs[runs["experiment"].str.startswith(exp_prefix) & (runs["cc"] == cc)]
        return float(r[col].mean()) if len(r) and col in r and r[col].notna().any() else None

    out = []
    g = get("single", "wave", "goodput_Mbps")
    cap = get("single", "wave", "capacity_Mbps") or 6 * 1460 / 1500
    out.append(Claim(
        "One flow bursts at almost the bottleneck rate (Fig. 1)", "almost 6 Mbit/s",
        "n/a" if g is None else f"{g:.2f} Mbit/s ({g / cap * 100:.1f} % of the {cap:.2f} Mbit/s "
        "goodput capacity)",
        verdict(None if g is None else within(g, PAPER["single_Mbps"], RATE_TOL)),
        "±10 % of 6 Mbit/s; TxTime tracks the ACK-train dispersion (wave.md, Figures)"))
    t = get("single", "wave", "txtime_first_update_s")
    ta = get("single", "wave", "txtime_first_applied_s")
    out.append(Claim(
        "First TxTime update at the first ACK train, at 0.5 s in the burst sequence "
        "(Fig. 1)", "at 0.5 s",
        "n/a" if None in (t, ta) else f"computed at {t:.2f} s (first ACK train); the burst "
        f"sequence first advances at {ta:.2f} s",
        verdict(None if ta is None else abs(ta - PAPER["first_update_s"]) <= 0.25),
        "±0.25 s on when the burst pace changes (what Fig. 1 plots): the new TxTime is "
        "computed one RTT after the first burst and used when TXTimer0 (500 ms) expires; "
        "the simulator's trace sees a burst at its ACKs (wave.md, Figures)"))
    cv = get("single", "wave", "txtime_cv_%")
    out.append(Claim(
        "TxTime follows a wave-like trend (Fig. 2)", "no number (a picture)",
        "n/a" if cv is None else f"TxTime varies by {cv:.1f} % (coefficient of variation "
        "after the first tenth of the run)",
        verdict(None if cv is None else cv >= 5.0),
        "holds if it varies by ≥ 5 %; a noiseless path gives ΔRTT = 0 every round, so "
        "TxTime = ATD (wave.md, 'Why TxTime does not oscillate here')"))
    s1, s2 = (get("two flows", "wave", c) for c in ("flow1_shared_Mbps", "flow2_shared_Mbps"))
    jain = get("two flows", "wave", "jain_shared")
    have = None not in (s1, s2, jain)
    ok = None if not have else (within(s1, PAPER["shared_Mbps"], RATE_TOL)
                                and within(s2, PAPER["shared_Mbps"], RATE_TOL))
    out.append(Claim(
        "Two Wave flows share the 10 Mbit/s about equally (Figs. 4-5)",
        "around 5 + 5 Mbit/s",
        "n/a" if not have else f"{s1:.2f} + {s2:.2f} Mbit/s (Jain {jain:.2f})",
        verdict(ok, have and jain >= 0.95),
        "±10 % of 5 Mbit/s each, shape = Jain ≥ 0.95; the bursts interleave at a fixed "
        "phase without noise (wave.md, 'Uneven sharing')"))
    a, b = (get("two flows", "wave", c) for c in ("flow1_alone_Mbps", "flow1_after_Mbps"))
    out.append(Claim(
        "Flow 1 has the full rate alone and regains it when flow 2 stops (Figs. 4-5)",
        "10 Mbit/s", "n/a" if None in (a, b) else f"{a:.2f} alone, {b:.2f} after Mbit/s",
        verdict(None if None in (a, b) else within(a, PAPER["alone_Mbps"], RATE_TOL)
                and within(b, PAPER["alone_Mbps"], RATE_TOL)),
        f"±10 % of 10 Mbit/s (goodput capacity {cap * 10 / 6:.2f}); wave.md, Figures"))
    rtt = {cc: get("RTT alone", cc, "rtt_p50_ms") for cc in COMPARE}
    known = all(v is not None for v in rtt.values())
    out.append(Claim(
        "Wave's RTT far below Cubic's, comparable to BBR's (Fig. 8)",
        "no number (a picture)",
        "n/a" if not known else "median " + ", ".join(f"{cc} {v:.1f} ms"
                                                       for cc, v in rtt.items()),
        verdict(None if not known else rtt["wave"] < 0.5 * rtt["cubic"]
                and rtt["wave"] <= 1.2 * rtt["bbr"]),
        "holds if Wave's median RTT is below half of Cubic's and within 1.2× BBR's; Cubic "
        "fills the 100-packet buffer (wave.md, Figures)"))
    return out


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
    head = (f"Mean over {seeds} seeds (± 95 % CI when the seeds differ).\n\n" if seeds > 1
            else "n = 1 per cell: one seed (the path has no random component).\n\n")
    if summary["identical"].any():
        head += same_note(seeds) + "\n\n"
    return summary, head + "\n".join(parts)


def _fig_single(res, path: Path, timing: Timing = SEED_TIMING, seed: int = 1,
                cap_mbps: float = 6 * 1460 / 1500, setting: str = SETTING) -> Path:
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
    z0 = timing.single / 2
    zoom = r[(r["t_s"] >= z0) & (r["t_s"] < z0 + 0.5)]
    ax[2].plot(zoom["t_s"], zoom["rtt_s"] * 1e3, lw=0.8, marker=".", ms=2)
    ax[2].axhline(52, color="k", ls=":", lw=0.8, label="propagation RTT")
    ax[2].set_ylabel("RTT [ms]")
    ax[2].set_title(f"RTT per ACK, {z0:.1f}-{z0 + 0.5:.1f} s (zoom)", fontsize=8)
    ax[2].legend(fontsize=7)
    t, g = throughput_bins(res, 0)
    ax[3].plot(t, g, lw=0.8, label="Wave goodput")
    ax[3].axhline(cap_mbps, color="r", ls="--", lw=0.8, label="capacity (goodput)")
    ax[3].set_ylabel("Mbit/s")
    ax[3].set_xlabel("time [s]")
    ax[3].set_ylim(0, 6.8)
    draw_paper(ax[3], [timing.single / 2], [PAPER["single_Mbps"]],
               "Fig. 1 text: 'almost 6 Mbit/s'")
    tx0 = tx["value"].iloc[0] * 1e3 if len(tx) else 500.0
    draw_paper(ax[1], [PAPER["first_update_s"]], [tx0],
               "Fig. 1 text: first update at 0.5 s, TXTimer0 500 ms until then")
    ax[3].legend(fontsize=7)
    for a in (ax[0], ax[1], ax[3]):
        a.set_xlim(0, timing.single)
    ax[1].legend(fontsize=7)
    fig.suptitle(f"One TCP Wave flow over a 6 Mbit/s bottleneck (seed {seed}; "
                 f"{NS3_STUDY_LABELS[setting]})")
    fig.tight_layout()
    return save(fig, path)
