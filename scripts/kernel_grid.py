"""The wider kernel side by side of docs/validation.md: the `linux` stack profile in the
simulator against the Linux kernel's own TCP through the emulator (`tcplab compare`,
modes sim and kernel), on one 20 Mbit/s link with a one-BDP drop-tail queue (at least
30 packets) and random loss on the data direction:

- loss 0, 0.5, 1 and 2 % at 25 ms one-way delay;
- one-way delay 5, 10, 50 and 100 ms at 1 % loss (25 ms is in the row above);
- a stepped-rate Mahimahi trace (examples/traces/stepped.mahi: 12 -> 4 -> 8 Mbit/s,
  4 s each) at 10 ms;
- a 2 s outage (the link down from 2 s to 4 s) at 25 ms;

for Reno, Cubic and BBR, each over several seeds (the seed draws the loss pattern; the
kernel also varies from run to run). Needs root. Prints the Markdown tables that
docs/validation.md shows:

    python scripts/kernel_grid.py [--seeds 3] [--kernel-csv FILE] [--out DIR]
                                  [--only reno,cubic] [--cells "5ms 1%,2s outage"]
                                  [--set KEY=VALUE ...]

--set overrides a flow key of tcplab's side (a TOML value: `--set timer_hz=0`,
`--set 'ack_delay="200ms"'`), for experiments that switch one mechanism.

--kernel-csv keeps the kernel's rows in FILE and, when FILE exists, reads them from it
instead of running the kernel again (to re-run only the simulated column after a
profile change). Transfers are sized to last about 6 s at the expected rate, so the
whole grid (30 cells, 3 seeds) takes about 20 minutes.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import pandas as pd
import tcplab
from tcplab.compare import compare

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
RATE_MBPS = 20
MSS = 1448
CCS = ["reno", "cubic", "bbr"]


def cells() -> list[dict]:
    """(label, link keys, expected loss) of every cell, for one controller."""
    out = []
    for loss in ["0%", "0.5%", "1%", "2%"]:
        out.append({"cell": f"25ms {loss}", "delay_ms": 25, "loss": loss})
    for d in [5, 10, 50, 100]:
        out.append({"cell": f"{d}ms 1%", "delay_ms": d, "loss": "1%"})
    out.append({"cell": "stepped trace", "delay_ms": 10, "loss": "0%", "trace": True})
    out.append({"cell": "2s outage", "delay_ms": 25, "loss": "0%", "outage": True})
    return out


def transfer_bytes(cc: str, c: dict) -> int:
    """About 6 s at the rate the cell allows: the link's, or for the loss-based
    controllers Mathis et al.'s 1.22 MSS / (RTT sqrt(p)) when it is lower; the trace
    cell 10 MB (about 10 s, most of the trace's 12 s period)."""
    if c.get("trace"):
        return 10_000_000
    rate = RATE_MBPS * 1e6
    p = float(c["loss"].rstrip("%")) / 100
    if cc != "bbr" and p > 0:
        rate = min(rate, 1.22 * MSS * 8 / (2 * c["delay_ms"] * 1e-3 * math.sqrt(p)))
    return int(min(10e6, max(0.5e6, rate * 6 / 8)))


def scenario(cc: str, c: dict, stack: str, extra: dict | None = None) -> tcplab.Scenario:
    rtt = 2 * c["delay_ms"] * 1e-3
    queue = max(30, round(RATE_MBPS * 1e6 * rtt / 8 / 1500))
    link: dict = {"delay": f"{c['delay_ms']}ms", "queue": f"{queue}pkt", "loss": c["loss"]}
    if c.get("trace"):
        link["trace"] = str(ROOT / "examples" / "traces" / "stepped.mahi")
    else:
        link["rate"] = f"{RATE_MBPS}Mbps"
    if c.get("outage"):
        link["schedule"] = [{"at": "2s", "up": False}, {"at": "4s", "up": True}]
    name = f"{cc}-{c['cell'].replace(' ', '-')}"
    return tcplab.Scenario({
        "name": name,
        "sample": "10ms",
        "link": link,
        "flow": [{"cc": cc, "bytes": transfer_bytes(cc, c), "stack": stack, **(extra or {})}],
    })


COLS = ["goodput_Mbps", "retx_segments", "rtos", "srtt_p50_ms"]


def run(seeds: list[int], stack: str, kernel_csv: Path | None, out: Path | None,
        ccs: list[str], only_cells: list[str] | None = None,
        extra: dict | None = None) -> pd.DataFrame:
    cached = None
    if kernel_csv and kernel_csv.exists():
        cached = pd.read_csv(kernel_csv)
    modes = ("sim",) if cached is not None else ("sim", "kernel")
    rows = []
    t0 = time.time()
    for cc in ccs:
        for c in cells():
            if only_cells and c["cell"] not in only_cells:
                continue
            sc = scenario(cc, c, stack, extra)
            for seed in seeds:
                load = os.getloadavg()[0]
                res = compare(sc, seed=seed, modes=modes)
                t = res.table.assign(cc=cc, cell=c["cell"], seed=seed, load=load)
                rows.append(t)
                if out:
                    out.mkdir(parents=True, exist_ok=True)
                    res.plot(out / f"{sc.name}-s{seed}.png")
                print(f"# {sc.name} seed {seed} done at {time.time() - t0:.0f} s", flush=True)
    df = pd.concat(rows, ignore_index=True)
    if cached is not None:
        keep = cached["cc"].isin(ccs)
        if only_cells:
            keep &= cached["cell"].isin(only_cells)
        df = pd.concat([df, cached[keep]], ignore_index=True)
    elif kernel_csv:
        df[df["mode"] == "kernel"].to_csv(kernel_csv, index=False)
    if out:
        df.to_csv(out / "kernel-grid.csv", index=False)
    return df


def fmt_spread(s: pd.Series, digits: int) -> str:
    m = s.mean()
    if len(s) < 2:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ({s.min():.{digits}f}–{s.max():.{digits}f})"


def lag(k: pd.DataFrame) -> str:
    """The emulator's fidelity in the kernel's runs: how far behind the link model's
    schedule its departures were, mean and 99th percentile (averaged over the seeds) and
    the worst (a kernel CSV written before the mean and p99 were kept shows "–")."""
    def col(name: str, agg: str) -> str:
        if name not in k or k[name].isna().all():
            return "–"
        return f"{getattr(k[name], agg)():.2f}"
    return (f"{col('emu_late_mean_ms', 'mean')} / {col('emu_late_p99_ms', 'mean')} / "
            f"{col('emu_late_max_ms', 'max')}")


def tables(df: pd.DataFrame) -> str:
    """One Markdown table per controller: kernel and sim means (min–max over seeds)."""
    order = [c["cell"] for c in cells()]
    lines = []
    for cc, g in df.groupby("cc", sort=False):
        k = g[g["mode"] == "kernel"]
        load = ""
        if "load" in k and k["load"].notna().any():
            load = (f"; load average at the kernel's runs {k['load'].min():.0f}–"
                    f"{k['load'].max():.0f}")
        lines.append(f"**{cc}** (kernel `{cc}`; tcplab `stack = \"linux\"`), "
                     f"{g['seed'].nunique()} seeds, mean (min–max){load}\n")
        lines.append("| cell | goodput Mbit/s kernel | goodput Mbit/s tcplab | tcplab / kernel "
                     "| retransmitted kernel | retransmitted tcplab | RTOs kernel / tcplab "
                     "| emulator late ms, mean / p99 / max |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for cell in order:
            k = g[(g["cell"] == cell) & (g["mode"] == "kernel")]
            s = g[(g["cell"] == cell) & (g["mode"] == "sim")]
            if k.empty or s.empty:
                continue
            ratio = s["goodput_Mbps"].mean() / k["goodput_Mbps"].mean()
            mark = "" if abs(ratio - 1) <= 0.15 else " ✗"
            lines.append(
                f"| {cell} | {fmt_spread(k['goodput_Mbps'], 2)} | "
                f"{fmt_spread(s['goodput_Mbps'], 2)} | {ratio:.2f}{mark} | "
                f"{fmt_spread(k['retx_segments'], 0)} | {fmt_spread(s['retx_segments'], 0)} | "
                f"{k['rtos'].mean():.1f} / {s['rtos'].mean():.1f} | {lag(k)} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N (default 3)")
    ap.add_argument("--stack", default="linux", help="tcplab's stack profile (default linux)")
    ap.add_argument("--only", help="comma-separated controllers (default reno,cubic,bbr)")
    ap.add_argument("--kernel-csv", type=Path,
                    help="keep the kernel rows here; reuse them when the file exists")
    ap.add_argument("--cells", help="comma-separated cells, as labelled (default all)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a flow key for tcplab's side, VALUE in TOML (repeatable)")
    ap.add_argument("--out", type=Path, help="directory for the figures and the full CSV")
    a = ap.parse_args()
    ccs = a.only.split(",") if a.only else CCS
    only_cells = a.cells.split(",") if a.cells else None
    if only_cells:
        known = {c["cell"] for c in cells()}
        bad = [c for c in only_cells if c not in known]
        if bad:
            ap.error(f"--cells: unknown cell {bad[0]!r}; the cells are {sorted(known)}")
    extra = {}
    for kv in a.set:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            ap.error(f"--set {kv!r}: expected KEY=VALUE")
        try:
            extra[key] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError as e:
            ap.error(f"--set {kv!r}: {value!r} is not a TOML value ({e})")
    df = run(list(range(1, a.seeds + 1)), a.stack, a.kernel_csv, a.out, ccs, only_cells,
             extra)
    print(tables(df))


if __name__ == "__main__":
    main()
