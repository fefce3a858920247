"""Seed 000's Linux tests on real sockets: TCP Wave (tcplab's endpoints over the UDP
driver) through an emulated bottleneck, next to the kernel's Cubic and BBR through the
same emulator and next to the simulation of the same path. Needs root (the emulator).

Path: one point-to-point link, 26 ms one-way (the 52 ms base RTT of ``tcplab reproduce
wave``, whose two 1 ms access links are folded in), 100-packet drop-tail queue, 6 Mbit/s
(single flow) or 10 Mbit/s (two flows). Real time is expensive, so the seed's timings are
scaled: the single flow runs 30 s; in the sharing test flow 1 runs 60 s and flow 2 from
25 s to 50 s (the seed: 240 s, 100-200 s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tcplab.plot import draw_paper, note_no_paper
from tcplab.reproduce.common import claim_table, to_markdown
from tcplab.reproduce.wave import PAPER, claims, first_applied, throughput_bins
from tcplab.result import Result
from tcplab.scenario import Scenario, simulate
from tcplab.stats import jain_index

NAME = "wave-real"
DESCRIPTION = "Seed 000 on real sockets: Wave over UDP vs Linux Cubic/BBR via the emulator"

ONE_WAY = "26ms"
BUFFER = "100pkt"
SINGLE_S = 30
SHARE_S, SHARE_START, SHARE_STOP = 60, 25, 50
#: --quick: a third of those timings (the code paths in about 2 minutes of real time; not
#: the study's numbers).
QUICK_TIMES = (10, 24, 8, 16)
#: The testbed's setting: Linux hosts, so tcplab's own flows (Wave over UDP and
#: in the simulator) run under `stack = "linux"` (MSS 1448 with timestamps, delayed ACKs
#: as Linux, its RTO rule; the kernel runs are Linux itself).
STACK = {"stack": "linux"}
#: The single flow's 6 Mbit/s as goodput (MSS 1448 over the 1500-byte packet).
CAPACITY_BPS = 6e6 * 1448 / 1500
#: (label, how it runs, controller)
RUNS = [("wave (udp)", "udp", "wave"), ("cubic (linux)", "kernel", "cubic"),
        ("bbr (linux)", "kernel", "bbr"), ("wave (sim)", "sim", "wave")]


def path(rate: str, flows: list[dict], duration: int, sample: str) -> Scenario:
    """The seed's bottleneck path (`rate`, its delay and buffer) carrying `flows`."""
    return Scenario({
        "name": "wave-real", "sample": sample, "duration": f"{duration}s",
        "link": {"rate": rate, "delay": ONE_WAY, "queue": BUFFER},
        "flow": flows,
    }, source=f"{NAME} (tcplab.reproduce)")


def ready() -> tuple[bool, str]:
    """Whether the emulator can run here (root and /dev/net/tun), and if not, why."""
    from tcplab.net import available

    return available()


def run_one(sc: Scenario, mode: str) -> Result:
    """`sc` simulated (mode "sim") or through the emulator: "udp" (tcplab over UDP) or
    "kernel" (Linux TCP with the flows' cc)."""
    from tcplab import _tcplab
    from tcplab.net import _scenario_args

    if mode == "sim":
        return simulate(sc, seed=1)
    info, tables = _tcplab.emulate_flow(mode=mode, seed=1, **_scenario_args(sc))
    return Result(info, tables)


def _rtts(res: Result, flow: int, t0: float, t1: float) -> np.ndarray:
    """RTT samples of `flow` in [t0, t1): raw samples where the sender has them (tcplab),
    else the smoothed RTT (the kernel exposes only that)."""
    s = res.tables["flow_series"].to_pandas()
    s = s[(s["flow"] == flow) & (s["t_s"] >= t0) & (s["t_s"] < t1)]
    col = "rtt_s" if s["rtt_s"].notna().any() else "srtt_s"
    return s[col].dropna().to_numpy()


def run(out: Path, seeds: int = 1, workers: int | None = None,
        quick: bool = False) -> list[Path]:
    """Runs the study (needs root: the emulated runs); writes figures and tables to
    `out` and returns their paths; `quick`: see :data:`QUICK_TIMES`."""
    single_s, share_s, start, stop = (QUICK_TIMES if quick else
                                      (SINGLE_S, SHARE_S, SHARE_START, SHARE_STOP))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tcplab.net import available

    ok, why = available()
    if not ok:
        raise RuntimeError(f"wave-real needs the emulator: {why}")
    out.mkdir(parents=True, exist_ok=True)
    rows, paths = [], []
    cap = CAPACITY_BPS

    # 1. One flow over 6 Mbit/s.
    single = {}
    for label, mode, cc in RUNS:
        sc = path("6Mbps", [{"cc": cc, "bytes": "unlimited", **STACK}], single_s, "2ms")
        res = run_one(sc, mode)
        res.to_parquet(out, prefix=f"single-{mode}-{cc}-")
        single[label] = res
        f = res.flows.iloc[0]
        r = _rtts(res, 0, 5, single_s)
        rows.append({"experiment": f"single flow 6 Mbit/s ({single_s} s)", "run": label,
                     "goodput_Mbps": f.goodput_bps / 1e6,
                     "utilisation_%": f.goodput_bps / cap * 100,
                     "retx_segments": int(f.retransmitted_segments),
                     "rtt_min_ms": r.min() * 1e3, "rtt_p50_ms": np.median(r) * 1e3,
                     "rtt_p95_ms": np.percentile(r, 95) * 1e3})
    fig, ax = plt.subplots(4, 1, figsize=(8, 10))
    for label in ("wave (udp)", "wave (sim)"):
        tr = single[label].tables["cc_trace"].to_pandas()
        tr["key"] = tr["key"].astype(str)
        b = tr[tr["key"] == "burst_seq"]
        ax[0].plot(b["t_s"], b["value"], lw=0.8, label=label)
        tx = tr[tr["key"] == "txtime_s"]
        ax[1].plot(tx["t_s"], tx["value"] * 1e3, lw=0.8, label=label)
        s = single[label].tables["flow_series"].to_pandas()
        z0 = single_s / 2
        z = s[(s["t_s"] >= z0) & (s["t_s"] < z0 + 0.5)]
        ax[2].plot(z["t_s"], z["rtt_s"] * 1e3, lw=0.8, marker=".", ms=2, label=label)
    ax[0].set_ylabel("burst sequence")
    ax[1].set_ylabel("TxTime [ms]")
    ax[2].axhline(52, color="k", ls=":", lw=0.8, label="propagation RTT")
    ax[2].set_ylabel("RTT [ms]")
    ax[2].set_title(f"RTT samples, {z0:.1f}-{z0 + 0.5:.1f} s (zoom)", fontsize=8)
    for label, res in single.items():
        t, g = throughput_bins(res, 0, until=float(single_s))
        ax[3].plot(t, g, lw=0.8, label=label)
    draw_paper(ax[3], [single_s / 2], [PAPER["single_Mbps"]], "Fig. 1 text: 'almost 6 Mbit/s'")
    ax[3].axhline(cap / 1e6, color="r", ls="--", lw=0.8, label="capacity (goodput)")
    ax[3].set_ylabel("Mbit/s")
    ax[3].set_xlabel("time [s]")
    for a in ax:
        a.legend(fontsize=7)
    fig.suptitle("One flow over a 6 Mbit/s emulated bottleneck (real sockets)")
    fig.tight_layout()
    p = out / "fig1-real-single-flow.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    # 2. Two flows sharing 10 Mbit/s.
    fig, ax = plt.subplots(len(RUNS), 1, figsize=(8, 2.6 * len(RUNS)), sharex=True)
    rtt_alone = {}
    for i, (label, mode, cc) in enumerate(RUNS):
        flows = [{"cc": cc, "bytes": "unlimited", **STACK},
                 {"cc": cc, "bytes": "unlimited", "start": f"{start}s",
                  "stop": f"{stop}s", **STACK}]
        res = run_one(path("10Mbps", flows, share_s, "10ms"), mode)
        res.to_parquet(out, prefix=f"share-{mode}-{cc}-")
        shares = {}
        for fl in (0, 1):
            t, g = throughput_bins(res, fl, until=float(share_s))
            ax[i].plot(t, g, lw=0.8, label=f"flow {fl + 1}")
            mid = (t > start + 3) & (t <= stop)
            shares[fl] = g[mid].mean() if mid.any() else float("nan")
            if fl == 0:
                before = g[(t > 5) & (t <= start)].mean()
                after = g[(t > stop + 3) & (t <= share_s)].mean()
        if cc == "wave":
            half = (start + stop) / 2
            draw_paper(ax[i], [start / 2, half, half, (stop + share_s) / 2],
                       [PAPER["alone_Mbps"], PAPER["shared_Mbps"], PAPER["shared_Mbps"],
                        PAPER["alone_Mbps"]], "Figs. 4-5 at scaled times: 10, ~5 + ~5, 10")
        else:
            note_no_paper(ax[i], "the seed's Figs. 6-7 give no numbers")
        ax[i].set_ylabel(f"{label}\n[Mbit/s]", fontsize=8)
        ax[i].legend(fontsize=7)
        rows.append({"experiment": "two flows 10 Mbit/s", "run": label,
                     "flow1_alone_Mbps": before, "flow1_shared_Mbps": shares[0],
                     "flow2_shared_Mbps": shares[1], "flow1_after_Mbps": after,
                     "jain_shared": jain_index([shares[0], shares[1]])})
        rtt_alone[label] = _rtts(res, 0, 5, start)
    ax[-1].set_xlabel("time [s]")
    fig.suptitle(f"Two flows sharing 10 Mbit/s (flow 2 active {start}-{stop} s)")
    fig.tight_layout()
    p = out / "fig2-real-two-flows.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    # 3. RTT each induces alone on 10 Mbit/s.
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for label, r in rtt_alone.items():
        x = np.sort(r * 1e3)
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=label)
        rows.append({"experiment": f"RTT alone on 10 Mbit/s (5-{start} s)", "run": label,
                     "rtt_min_ms": x.min(), "rtt_p50_ms": float(np.median(x)),
                     "rtt_p95_ms": float(np.percentile(x, 95))})
    note_no_paper(ax, "the seed's Fig. 8 gives no RTT values")
    ax.set_xlabel("RTT [ms] (kernel: smoothed RTT)")
    ax.set_ylabel("CDF")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    p = out / "fig3-real-rtt-cdf.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    table = pd.DataFrame(rows)
    table.to_csv(out / "results.csv", index=False)
    md = out / "tables.md"
    with open(md, "w") as f:
        f.write(claim_table(claims(as_wave_rows(table, single["wave (udp)"], single_s)),
                            "One run per line (real time; the seeds are not used). The "
                            "claims are judged on the Wave run over UDP."
                            + (" Quick mode: a third of the timings (not the study's "
                               "numbers)." if quick else "")))
        for exp, g in table.groupby("experiment", sort=False):
            g = g.dropna(axis=1, how="all").drop(columns=["experiment"]).set_index("run")
            f.write(f"### {exp}\n\n{to_markdown(g)}\n\n")
    return [*paths, out / "results.csv", md]


def as_wave_rows(table: pd.DataFrame, single_udp: Result,
                 single_s: float = SINGLE_S) -> pd.DataFrame:
    """This study's rows in the form of ``tcplab reproduce wave``'s (experiment, cc, ...),
    the Wave run over UDP as "wave" and the kernel's as "cubic"/"bbr", so the claims of
    :func:`tcplab.reproduce.wave.claims` apply."""
    cc_of = {"wave (udp)": "wave", "cubic (linux)": "cubic", "bbr (linux)": "bbr"}
    rows = []
    tr = single_udp.tables["cc_trace"].to_pandas()
    tx = tr[tr["key"].astype(str) == "txtime_s"]
    first = tx[tx["value"] != tx["value"].iloc[0]]["t_s"] if len(tx) else tx["t_s"]
    late = tx[tx["t_s"] > single_s / 10]["value"]
    for r in table.to_dict("records"):
        cc = cc_of.get(r["run"])
        if cc is None:
            continue
        exp = r["experiment"]
        if exp.startswith("single") and cc == "wave":
            rows.append({"experiment": "single 6 Mbit/s", "cc": cc,
                         "goodput_Mbps": r["goodput_Mbps"],
                         "capacity_Mbps": CAPACITY_BPS / 1e6,
                         "txtime_first_update_s": float(first.iloc[0]) if len(first)
                         else float("nan"),
                         "txtime_first_applied_s": first_applied(tr),
                         "txtime_cv_%": float(late.std() / late.mean() * 100)
                         if len(late) > 1 else float("nan")})
        elif exp.startswith("two flows") or exp.startswith("RTT alone"):
            rows.append({**r, "cc": cc})
    return pd.DataFrame(rows)
