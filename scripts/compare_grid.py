"""The side-by-side table of docs/validation.md: `tcplab compare` for Cubic and BBR at
20 and 100 Mbit/s, 10 and 40 ms one-way delay, 0 and 0.5 % loss (a one-BDP drop-tail
queue). Needs root (the emulated runs). Prints a Markdown table with the emulator's
lateness (mean, p99 and worst departure behind the link model's schedule, in the emulated
rows) and the load average when each cell started; --out keeps the tables and figures of
every point. About 11 minutes.

    python scripts/compare_grid.py [--out results/compare-grid] [--seed 1] [--stack linux]

--stack names a stack profile for tcplab's flow (the sim and udp columns); without it
the flow runs under the default, "linux"; "tcplab" gives tcplab's own defaults (the
second table of docs/validation.md). scripts/kernel_grid.py runs the wider grid.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from pathlib import Path

import pandas as pd
import tcplab
from tcplab.compare import compare
from tcplab.reproduce.common import to_markdown


def scenario(cc: str, rate_mbps: int, delay_ms: int, loss: str,
             stack: str | None = None) -> tcplab.Scenario:
    bdp_pkts = max(30, round(rate_mbps * 1e6 * 2 * delay_ms * 1e-3 / 8 / 1500))
    size = "10MB" if rate_mbps <= 20 else "50MB"
    return tcplab.Scenario({
        "name": f"{cc}-{rate_mbps}M-{delay_ms}ms-{loss}",
        "sample": "10ms",
        "link": {"rate": f"{rate_mbps}Mbps", "delay": f"{delay_ms}ms",
                 "queue": f"{bdp_pkts}pkt", "loss": loss},
        "flow": [{"cc": cc, "recovery": "sack", "bytes": size,
                  **({"stack": stack} if stack else {})}],
    })


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated ccs (default cubic,bbr)")
    ap.add_argument("--stack", help="stack profile of tcplab's flow (linux, ns3, rfc, tcplab)")
    a = ap.parse_args()
    ccs = a.only.split(",") if a.only else ["cubic", "bbr"]
    rows = []
    t0 = time.time()
    for cc, rate, delay, loss in itertools.product(ccs, [20, 100], [10, 40], ["0%", "0.5%"]):
        sc = scenario(cc, rate, delay, loss, a.stack)
        load = os.getloadavg()[0]
        res = compare(sc, seed=a.seed)
        t = res.table.assign(cc=cc, rate_Mbps=rate, delay_ms=delay, loss=loss, load=load)
        rows.append(t)
        if a.out:
            out = Path(a.out)
            out.mkdir(parents=True, exist_ok=True)
            res.plot(out / f"{sc.name}.png")
            for mode, r in res.results.items():
                r.to_parquet(out, prefix=f"{sc.name}-{mode}-")
        print(f"# {sc.name} done at {time.time() - t0:.0f} s", flush=True)
    df = pd.concat(rows, ignore_index=True)
    if a.out:
        df.to_csv(Path(a.out) / "grid.csv", index=False)
    cols = ["cc", "rate_Mbps", "delay_ms", "loss", "mode", "goodput_Mbps", "retx_segments",
            "rtos", "rtt_min_ms", "srtt_p50_ms", "srtt_p95_ms", "srtt_p99_ms",
            "emu_late_mean_ms", "emu_late_p99_ms", "emu_late_max_ms", "load"]
    print(to_markdown(df[cols].set_index("cc")))


if __name__ == "__main__":
    main()
