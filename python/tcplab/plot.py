"""Standard figures of a run: congestion window, throughput, RTT and queue over time."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402

from tcplab.result import Result  # noqa: E402


def throughput_series(res: Result):
    """Per-flow delivery rate between consecutive samples, in Mbit/s."""
    d = res.series("delivered").sort_values(["flow", "t_s"])
    d["dt"] = d.groupby("flow")["t_s"].diff()
    d["db"] = d.groupby("flow")["delivered"].diff()
    d = d[d["dt"] > 0].copy()
    d["throughput_mbps"] = d["db"] * 8 / d["dt"] / 1e6
    return d[["t_s", "flow", "throughput_mbps"]]


def plot_run(res: Result, path: str | Path, max_flows: int = 8) -> Path:
    """Writes a four-panel PNG (cwnd, throughput, smoothed RTT, bottleneck queue)."""
    fig, ax = plt.subplots(4, 1, figsize=(9, 10), sharex=True)
    cw = res.series("cwnd")
    rtt = res.series("srtt")
    thr = throughput_series(res)
    flows = sorted(cw["flow"].unique())[:max_flows]
    for f in flows:
        c = cw[cw["flow"] == f]
        ax[0].plot(c["t_s"], c["cwnd"] / 1e3, lw=0.8, label=f"flow {f}")
        t = thr[thr["flow"] == f]
        ax[1].plot(t["t_s"], t["throughput_mbps"], lw=0.8)
        r = rtt[rtt["flow"] == f]
        ax[2].plot(r["t_s"], r["srtt_s"] * 1e3, lw=0.8)
    ax[0].set_ylabel("cwnd [kB]")
    ax[1].set_ylabel("throughput [Mbit/s]")
    ax[2].set_ylabel("smoothed RTT [ms]")
    q = res.series("queue")
    fwd = q[q["direction"].astype(str) == "fwd"]
    for name, g in fwd.groupby(fwd["link"].astype(str)):
        if g["queue_pkts"].max() > 0:
            ax[3].plot(g["t_s"], g["queue_pkts"], lw=0.8, label=name)
    ax[3].set_ylabel("queue [packets]")
    ax[3].set_xlabel("time [s]")
    if len(flows) > 1:
        ax[0].legend(fontsize=7, ncol=4)
    handles, _ = ax[3].get_legend_handles_labels()
    if handles:
        ax[3].legend(fontsize=7)
    info = res.info
    fig.suptitle(f"{info['scenario']} (seed {info['seed']}, replication {info['replication']})")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_summary(summary, x: str, series: str | None, path: str | Path, *,
                 ylabel: str | None = None, xlabel: str | None = None,
                 title: str | None = None, scale: float = 1.0) -> Path:
    """Mean with confidence-interval error bars against a swept parameter, one line per
    value of `series`. Unit strings on the x axis are plotted by their numeric value."""
    from tcplab.units import to_number

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = summary.groupby(series, sort=False) if series else [(None, summary)]
    for name, g in groups:
        xs = [to_number(v) for v in g[x]]
        if any(v is None for v in xs):
            xs = list(range(len(g)))
            ax.set_xticks(xs, [str(v) for v in g[x]])
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        xv = [xs[i] for i in order]
        m = g["mean"].to_numpy()[order] * scale
        h = g["half_width"].fillna(0).to_numpy()[order] * scale
        ax.errorbar(xv, m, yerr=h, marker="o", ms=3, capsize=3, lw=1, label=str(name))
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or str(summary["metric"].iloc[0]))
    if title:
        ax.set_title(title, fontsize=10)
    if series:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
