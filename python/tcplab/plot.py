"""Figures of runs and sweeps. Every function draws with matplotlib's object API and
returns the Figure (or draws into Axes you pass), so it works in notebooks, scripts and
files alike; importing this module never changes matplotlib's backend.

The run figure (:func:`plot_run`) shows, over time:

1. link throughput (wire bytes delivered per bin) against the link's capacity (the
   delivery opportunities it offered, replaying rate, traces, schedules and outages);
2. goodput per flow (bytes delivered in order per bin: it drops to zero while a hole is
   repaired and jumps when the hole fills, so it can exceed the capacity for a bin);
3. congestion window, 4. RTT (smoothed line, samples as points: Karn's rule leaves gaps
   where only retransmitted segments were acknowledged), 5. queue length.

Fast recovery is shaded orange and RTO stalls red (per flow, panels 2–3); link outages
are shaded grey and other scheduled link changes marked by dotted lines on every panel.
Flows are labelled by name and controller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tcplab.result import Result

RECOVERY_COLOR = "tab:orange"
RTO_COLOR = "tab:red"
OUTAGE_COLOR = "0.6"


def _new_figure(nrows: int, figsize, sharex: bool = False, sharey: bool = False):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(nrows, 1, figsize=figsize, sharex=sharex, sharey=sharey,
                           squeeze=False)
    return fig, list(ax[:, 0])


def save(fig, path: str | Path, dpi: int = 110) -> Path:
    """Writes `fig` to `path` (parent directories created) and releases it from pyplot."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- data behind the figure


def bin_edges(res: Result, bin_s: float | None = None) -> np.ndarray:
    """Bin edges from 0 to the end of the run: `bin_s` wide, by default 1/100 of the run
    but never shorter than the sampling interval."""
    end = float(res.info["end_time_s"])
    if bin_s is None:
        t = np.unique(res.tables["flow_series"]["t_s"].to_numpy())
        step = float(np.median(np.diff(t))) if len(t) > 2 else 0.0
        bin_s = max(end / 100.0, step)
    if end <= 0 or bin_s <= 0:
        return np.array([0.0, max(end, 1e-9)])
    n = max(1, math.ceil(end / bin_s - 1e-9))
    return np.arange(n + 1) * bin_s


def _rate(t, cumulative, edges) -> np.ndarray:
    """Mean rate (bit/s) per bin of a cumulative byte counter sampled at times `t`."""
    t = np.asarray(t, dtype=float)
    c = np.asarray(cumulative, dtype=float)
    if len(t) == 0:
        return np.zeros(len(edges) - 1)
    at = np.interp(edges, t, c, left=0.0, right=c[-1])
    return np.diff(at) * 8.0 / np.diff(edges)


def flow_labels(res: Result) -> dict[int, str]:
    """``flow index → "name (controller)"`` (the transport for flows without one)."""
    f = res.flows
    out = {}
    for _, r in f.iterrows():
        what = r["cc"] if "cc" in f and isinstance(r["cc"], str) else r["transport"]
        out[int(r["flow"])] = f"{r['name']} ({what})"
    return out


def throughput_series(res: Result, edges=None):
    """Goodput per flow and bin: ``t_s`` (bin end), ``flow``, ``goodput_mbps``."""
    import pandas as pd

    edges = bin_edges(res) if edges is None else np.asarray(edges, dtype=float)
    if "delivered" not in res.tables["flow_series"].column_names:
        return pd.DataFrame(columns=["t_s", "flow", "goodput_mbps"])
    d = res.series("delivered")
    rows = []
    for f, g in d.groupby("flow"):
        g = g.sort_values("t_s")
        r = _rate(g["t_s"], g["delivered"], edges) / 1e6
        rows.append(pd.DataFrame({"t_s": edges[1:], "flow": f, "goodput_mbps": r}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["t_s", "flow", "goodput_mbps"])


def new_rtt_samples(rtt):
    """The rows of an ``rtt`` series (one flow) whose latest RTT sample is new: the column
    repeats the last sample until another is taken, so a repeat means none was (Karn's
    rule during recovery)."""
    g = rtt.dropna(subset=["rtt_s"]).sort_values("t_s")
    return g[g["rtt_s"].diff().fillna(1.0) != 0]


@dataclass
class LinkLoad:
    """Throughput and capacity of one link direction per bin (Mbit/s)."""

    link: str
    direction: str
    throughput_mbps: np.ndarray
    capacity_mbps: np.ndarray | None


def link_loads(res: Result, edges, top: int = 2) -> list[LinkLoad]:
    """The `top` link directions with the highest utilisation that carried data (none
    for runs without link series, e.g. a `tcplab send` over real sockets)."""
    if "delivered_bytes" not in res.tables["link_series"].column_names:
        return []
    q = res.series("delivered_bytes")
    q = q.assign(link=q["link"].astype(str), direction=q["direction"].astype(str))
    cands = []
    for (link, d), g in q.groupby(["link", "direction"]):
        if g["delivered_bytes"].max() <= 0 or g["t_s"].nunique() < 3:
            continue
        g = g.sort_values("t_s")
        thr = _rate(g["t_s"], g["delivered_bytes"], edges) / 1e6
        cap = None
        if res.scenario is not None:
            from tcplab.mahimahi import capacity_bps

            try:
                cap = capacity_bps(res.scenario, link, edges, direction=d) / 1e6
            except Exception:  # noqa: BLE001 - too many opportunities to replay: no line
                cap = None
        busy = cap is not None and cap.sum() > 0
        util = thr.sum() / cap.sum() if busy else thr.sum() / max(thr.max(), 1e-12) * 1e-9
        cands.append((util, LinkLoad(link, d, thr, cap)))
    cands.sort(key=lambda c: -c[0])
    best = cands[0][0] if cands else 0.0
    return [ld for util, ld in cands[:top] if util >= 0.1 * best]


def _spans(t, mask) -> list[tuple[float, float]]:
    """[start, end) spans where `mask` holds, ending at the next sample time."""
    out = []
    start = None
    for i, m in enumerate(mask):
        if m and start is None:
            start = t[i]
        elif not m and start is not None:
            out.append((start, t[i]))
            start = None
    if start is not None:
        out.append((start, t[-1]))
    return out


def recovery_spans(res: Result) -> dict[int, list[tuple[float, float]]]:
    """Per flow: spans sampled in fast recovery (``state == "recovery"``)."""
    fs = res.tables["flow_series"]
    if "state" not in fs.column_names:
        return {}
    s = res.series("state")
    out = {}
    for f, g in s.groupby("flow"):
        g = g.sort_values("t_s")
        out[int(f)] = _spans(g["t_s"].to_numpy(), (g["state"].astype(str) == "recovery").to_numpy())
    return out


def rto_spans(res: Result) -> dict[int, list[tuple[float, float]]]:
    """Per flow: RTO stalls, from the flow's last in-order progress before a timeout to its
    first progress after it (the time the flow was stuck until the timer fired and the
    retransmission got through)."""
    fs = res.tables["flow_series"]
    if "rtos" not in fs.column_names:
        return {}
    df = fs.select(["t_s", "flow", "rtos", "delivered"]).to_pandas()
    out = {}
    for f, g in df.groupby("flow"):
        g = g.sort_values("t_s")
        t = g["t_s"].to_numpy()
        rtos = g["rtos"].fillna(0).to_numpy()
        dl = g["delivered"].fillna(0).to_numpy()
        progress = np.flatnonzero(np.diff(dl) > 0) + 1  # samples where delivered grew
        spans: list[tuple[float, float]] = []
        for i in np.flatnonzero(np.diff(rtos) > 0) + 1:
            before = progress[progress < i]
            after = progress[progress >= i]
            a = t[before[-1]] if len(before) else t[0]
            b = t[after[0]] if len(after) else t[-1]
            if spans and a <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
            else:
                spans.append((a, b))
        out[int(f)] = spans
    return out


@dataclass
class LinkEvent:
    """A scheduled change of a link: an outage (``end`` set) or a change at ``start``."""

    link: str
    start: float
    end: float | None
    label: str


def _describe(before: dict, after: dict) -> str:
    parts = []
    if after["rate_bps"] != before["rate_bps"] or after["trace"] != before["trace"]:
        parts.append("trace" if after["trace"] else f"{after['rate_bps'] / 1e6:g} Mbit/s")
    if after["delay_s"] != before["delay_s"]:
        parts.append(f"{after['delay_s'] * 1e3:g} ms")
    return ", ".join(parts)


def link_events(res: Result) -> list[LinkEvent]:
    """Scheduled link changes and outages (handovers) of the run's scenario."""
    if res.scenario is None:
        return []
    out = []
    end = float(res.info["end_time_s"])
    for ln in res.scenario.links:
        prev = ln["fwd"]
        down_at = None
        for c in ln["changes"]:
            p = c["fwd"]
            if c["at_s"] > end:
                break
            if not p["up"] and prev["up"]:
                down_at = c["at_s"]
            elif p["up"] and not prev["up"]:
                what = _describe(prev, p)
                out.append(LinkEvent(ln["name"], down_at if down_at is not None else 0.0,
                                     c["at_s"], "outage" + (f", then {what}" if what else "")))
                down_at = None
            else:
                what = _describe(prev, p)
                if what:
                    out.append(LinkEvent(ln["name"], c["at_s"], None, what))
            prev = p
        if down_at is not None:
            out.append(LinkEvent(ln["name"], down_at, end, "down"))
    return out


# ---------------------------------------------------------------- drawing


def _mark_events(ax, events: list[LinkEvent], label: bool):
    """Outages shaded, other changes dotted; `label`: name each one (top panel)."""
    first = True
    for e in events:
        if e.end is not None:
            ax.axvspan(e.start, e.end, color=OUTAGE_COLOR, alpha=0.35, lw=0,
                       label="link outage" if label and first else None)
            first = first and not label
        else:
            ax.axvline(e.start, color="k", ls=":", lw=0.9)
        if label:
            ax.annotate(f"{e.link}: {e.label}", (e.start, 0.0),
                        xycoords=("data", "axes fraction"), xytext=(3, 4),
                        textcoords="offset points", fontsize=7, va="bottom")


def _shade(ax, spans: list[tuple[float, float]], color: str, label: str | None,
           band: tuple[float, float] | None = None):
    """Shades spans over the full height, or (`band`: axes-fraction y and height) as a
    strip, so several flows' periods stay apart."""
    if band is not None and spans:
        ax.broken_barh([(a, b - a) for a, b in spans], band, color=color, alpha=0.55, lw=0,
                       label=label, transform=ax.get_xaxis_transform())
        return
    for i, (a, b) in enumerate(spans):
        ax.axvspan(a, b, color=color, alpha=0.18, lw=0, label=label if i == 0 else None)


def plot_run(res: Result, path: str | Path | None = None, *, axes=None, max_flows: int = 8,
             bin_s: float | None = None, dpi: int = 110):
    """Draws the run figure (see the module docs) and returns its Figure.

    `axes`: five Axes to draw into (default: a new figure); `path`: also write a PNG
    there (the figure is then released from pyplot). `bin_s`: throughput bin width.
    """
    if axes is None:
        fig, ax = _new_figure(5, (9, 12.5), sharex=True)
    else:
        ax = list(axes)
        if len(ax) != 5:
            raise ValueError("plot_run draws five panels: pass five Axes")
        fig = ax[0].figure
    edges = bin_edges(res, bin_s)
    width = float(edges[1] - edges[0])
    labels = flow_labels(res)
    flows = sorted(labels)[:max_flows]
    colors = {f: f"C{i % 10}" for i, f in enumerate(flows)}
    events = link_events(res)

    # 1. link throughput against capacity
    loads = link_loads(res, edges)
    for i, ld in enumerate(loads):
        c = f"C{(i + 5) % 10}"
        name = f"{ld.link} {ld.direction}"
        ax[0].step(edges[1:], ld.throughput_mbps, where="pre", color=c, lw=0.9,
                   label=f"{name} throughput")
        if ld.capacity_mbps is not None:
            ax[0].step(edges[1:], ld.capacity_mbps, where="pre", color=c, ls="--", lw=1.0,
                       label=f"{name} capacity")
    if not loads:
        ax[0].text(0.5, 0.5, "no link series (not sampled, or a run over real sockets)",
                   transform=ax[0].transAxes, ha="center", fontsize=8)
    ax[0].set_ylabel(f"link [Mbit/s]\n(per {width * 1e3:g} ms)")
    ax[0].set_title("link throughput (wire bytes) vs capacity", fontsize=9, loc="left")

    # 2. goodput per flow, 3. cwnd, 4. RTT
    thr = throughput_series(res, edges)
    cw = res.series("cwnd") if "cwnd" in res.tables["flow_series"].column_names else None
    has_rtt = "srtt_s" in res.tables["flow_series"].column_names
    srtt = res.series("srtt") if has_rtt else None
    rtt = res.series("rtt") if has_rtt else None
    rec = recovery_spans(res)
    rto = rto_spans(res)
    cap_max = max((float(np.max(ld.capacity_mbps)) for ld in loads
                   if ld.capacity_mbps is not None), default=None)
    first_rec = first_rto = True
    for f in flows:
        c = colors[f]
        t = thr[thr["flow"] == f]
        ax[1].step(t["t_s"], t["goodput_mbps"], where="pre", color=c, lw=0.9, label=labels[f])
        if cw is not None:
            g = cw[cw["flow"] == f]
            ax[2].plot(g["t_s"], g["cwnd"] / 1e3, color=c, lw=0.8, label=labels[f])
        if has_rtt:
            g = srtt[srtt["flow"] == f]
            ax[3].plot(g["t_s"], g["srtt_s"] * 1e3, color=c, lw=0.8,
                       label="smoothed" if f == flows[0] else None)
            g = new_rtt_samples(rtt[rtt["flow"] == f])
            ax[3].plot(g["t_s"], g["rtt_s"] * 1e3, ls="none", marker=".", ms=2.5, color=c,
                       label="new samples" if f == flows[0] else None)
        # One flow: shade the panels; several: one strip per flow along the top, in the
        # flow's colour (recovery) and red (RTO), so whose period it was stays readable.
        k = flows.index(f)
        band = None if len(flows) == 1 else (0.97 - 0.05 * (k + 1), 0.04)
        rec_label = "fast recovery" if band is None else f"{labels[f]}: fast recovery"
        for a in (ax[1], ax[2]):
            top = a is ax[1]
            _shade(a, rec.get(f, []), RECOVERY_COLOR if band is None else c,
                   rec_label if top and (first_rec or band is not None) else None, band)
            _shade(a, rto.get(f, []), RTO_COLOR, "RTO stall" if top and first_rto else None,
                   band)
        first_rec = first_rec and not rec.get(f)
        first_rto = first_rto and not rto.get(f)
    if cap_max and len(thr) and thr["goodput_mbps"].max() > 1.25 * cap_max:
        top = 1.25 * cap_max
        ax[1].set_ylim(0, top)
        peak = thr.loc[thr["goodput_mbps"].idxmax()]
        left = peak["t_s"] > edges[-1] / 2  # write the note on the roomier side
        ax[1].annotate(f"peak {peak['goodput_mbps']:.0f} Mbit/s: a repaired hole\n"
                       "releases buffered data at once", (peak["t_s"], top),
                       xytext=(-8 if left else 8, -4), textcoords="offset points",
                       fontsize=7, va="top", ha="right" if left else "left",
                       arrowprops={"arrowstyle": "->", "lw": 0.6})
    ax[1].set_ylabel(f"goodput [Mbit/s]\n(per {width * 1e3:g} ms)")
    ax[1].set_title("in-order delivery to the application", fontsize=9, loc="left")
    ax[2].set_ylabel("cwnd [kB]")
    ax[3].set_ylabel("RTT [ms]")

    # 5. queue
    if "queue_pkts" in res.tables["link_series"].column_names:
        q = res.series("queue")
        q = q.assign(link=q["link"].astype(str), direction=q["direction"].astype(str))
        for (name, d), g in q.groupby(["link", "direction"]):
            if g["queue_pkts"].max() > 0:
                ax[4].plot(g["t_s"], g["queue_pkts"], lw=0.8, label=f"{name} {d}")
    else:
        ax[4].text(0.5, 0.5, "no link queue (a run over real sockets)",
                   transform=ax[4].transAxes, ha="center", fontsize=8)
    ax[4].set_ylabel("queue [packets]")
    ax[4].set_xlabel("time [s]")

    for i, a in enumerate(ax):
        _mark_events(a, events, label=(i == 0))
        a.grid(alpha=0.25)
        if i != 3:
            a.set_ylim(bottom=0)
    for a in ax:
        h, _ = a.get_legend_handles_labels()
        if h:
            a.legend(fontsize=7, ncol=min(4, len(h)), loc="best")
    info = res.info
    fig.suptitle(f"{info['scenario']} (seed {info['seed']}, replication {info['replication']})")
    if axes is None:
        fig.tight_layout()
    if path is not None:
        save(fig, path, dpi=dpi)
    return fig


#: How a published value is drawn beside tcplab's: a hollow black diamond, no line.
PAPER_STYLE = {"ls": "none", "marker": "D", "ms": 7, "mfc": "none", "mew": 1.3, "zorder": 4}


def draw_paper(ax, xs, ys, source: str, color: str = "k", label: str | None = None):
    """Draws published values (`source`: the figure or table they come from, e.g.
    "Fig. 9") as hollow markers labelled "paper (...)", never joined by a line."""
    return ax.plot(list(xs), list(ys), color=color, mec=color, **PAPER_STYLE,
                   label=label if label is not None else f"paper ({source})")


def note_no_paper(ax, why: str = "the paper gives no numbers for this figure"):
    """Says on the figure that no published value is drawn, and why."""
    ax.text(0.99, 0.01, f"paper: none drawn ({why})", transform=ax.transAxes,
            ha="right", va="bottom", fontsize=6.5, color="0.35")


def plot_summary(summary, x: str, series: str | None, path: str | Path | None = None, *,
                 ax=None, ylabel: str | None = None, xlabel: str | None = None,
                 title: str | None = None, scale: float = 1.0, dpi: int = 120,
                 paper=None, no_paper: str | None = None, dodge: float = 0.0,
                 styles: dict | None = None):
    """Mean with its confidence interval (``ci_low``/``ci_high``) against a swept
    parameter, one line per value of `series`; returns the Figure.

    Unit strings on the x axis ("5ms", "10MiB", "0.5%") are placed by their value in
    display units (see :mod:`tcplab.units`); other values are categories, evenly spaced
    and not joined by lines. The legend gives n, the runs per point; a point whose runs
    all gave the same value (seeds do not change it) is drawn hollow.

    `paper`: published values to draw beside the series, rows of (`x`, ``value``,
    ``source``) in display units and optionally `series` (its colour); `no_paper`: the
    reason none is drawn, written on the figure. `dodge`: shift series k by
    (k - (K - 1) / 2) × dodge of each x value (multiplicatively; on categories, by that
    many category widths, with the paper's markers just right of their series), so that
    equal values stay visible side by side. `styles`: per series, extra matplotlib keywords (e.g.
    ``{"ls": "--", "marker": "s"}``).
    """
    from tcplab.units import display_unit, to_number

    if ax is None:
        fig, (ax,) = _new_figure(1, (6.4, 4.2))
        own = True
    else:
        fig, own = ax.figure, False
    groups = list(summary.groupby(series, sort=False)) if series else [(None, summary)]
    unit = display_unit(summary[x].tolist())
    categories = list(dict.fromkeys(summary[x]))
    categorical = any(to_number(v) is None for v in categories)
    if categorical:
        ax.set_xticks(range(len(categories)), [str(v) for v in categories])
    colors, shifts = {}, {}
    for k, (name, g) in enumerate(groups):
        color = f"C{k % 10}"  # explicit: the hollow markers must not advance the cycle
        colors[name] = color
        xs = ([categories.index(v) for v in g[x]] if categorical
              else [to_number(v) for v in g[x]])
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        xv = np.array([xs[i] for i in order], dtype=float)
        shift = (k - (len(groups) - 1) / 2) * dodge
        shifts[name] = shift
        xv = xv + shift if categorical else xv * (1 + shift)
        m = g["mean"].to_numpy()[order] * scale
        lo = g["ci_low"].to_numpy()[order] * scale
        hi = g["ci_high"].to_numpy()[order] * scale
        err = np.vstack([np.nan_to_num(np.maximum(m - lo, 0)),
                         np.nan_to_num(np.maximum(hi - m, 0))])
        ns = sorted(set(int(n) for n in g["n"]))
        nlab = f"n={ns[0]}" if len(ns) == 1 else f"n={ns[0]}–{ns[-1]}"
        kw = {"marker": "o", "ms": 3, "capsize": 3, "lw": 1, "color": color,
              "ls": "none" if categorical else "-", **(styles or {}).get(name, {})}
        ax.errorbar(xv, m, yerr=err, label=f"{name} ({nlab})" if series else nlab, **kw)
        if "identical" in g:
            same = g["identical"].to_numpy()[order].astype(bool)
            if same.any():
                ax.plot(xv[same], m[same], ls="none", marker="o", ms=6, mfc="white",
                        mec=color, zorder=3)
    if paper is not None and len(paper):
        by_series = bool(series) and series in paper
        for key, p in paper.groupby(["source", series] if by_series else ["source"],
                                    sort=False):
            key = key if isinstance(key, tuple) else (key,)
            src, name = key[0], (key[1] if by_series else None)
            px = ([categories.index(v) for v in p[x]] if categorical
                  else [to_number(v) for v in p[x]])
            if categorical and dodge:
                # Beside its series' dodged points, not on top of them.
                px = [v + shifts.get(name, 0.0) + 0.45 * dodge for v in px]
            lab = f"paper ({src})" + (f": {name}" if by_series else "")
            draw_paper(ax, px, p["value"], src, color=colors.get(name, "k"), label=lab)
    elif no_paper:
        note_no_paper(ax, no_paper)
    ax.set_xlabel(xlabel or (f"{x} [{unit}]" if unit else x))
    ax.set_ylabel(ylabel or str(summary["metric"].iloc[0]))
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    if own:
        fig.tight_layout()
    if path is not None:
        save(fig, path, dpi=dpi)
    return fig
