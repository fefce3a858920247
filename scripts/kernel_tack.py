"""The kernel's BBR in the TACK paper's Figure 5b setting and its tcpi_min_rtt in the
Figure 6a setting, through tcplab's emulator, beside tcplab's simulated TCP BBR under
`stack = "linux"` (docs/validation.md). Needs root (the emulated runs). Prints two
Markdown tables.

    python scripts/kernel_tack.py [--seed 1] [--duration 30] [--only fig5b|fig6a]
                                  [--seeds N] [--out DIR]

Figure 5b: 20 Mbit/s, 100 ms each way (200 ms RTT), a 2000-packet queue, 1 % loss on the
data path and 0.2 / 1 / 5 / 10 % on the ACK path (tcplab.reproduce.tack's `lossy_path`);
utilisation = goodput / 20 Mbit/s. Figure 6a: the same link with 50 ms each way
(100 ms RTT) and no loss; the kernel's `tcpi_min_rtt` against the propagation RTT
(100 ms; the SYN's round trip, which Linux samples too, adds only 2 x 60 bytes of
serialization, 0.05 ms): the excess is the end hosts' delay floor (the kernel's stack,
veth, the TUN device and the emulator's own lateness) with `--seeds` runs.

The emulator runs in real time on a shared machine: each table gives its timing fidelity,
how late the emulated link's departures left against the link model's schedule (p50,
p99, max over every departure of the run).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import pandas as pd
import tcplab
from tcplab.compare import compare
from tcplab.reproduce.common import to_markdown

RATE_MBPS = 20
ACK_LOSSES = ["0.2%", "1%", "5%", "10%"]


def fig5b(ack_loss: str, duration_s: int) -> tcplab.Scenario:
    return tcplab.Scenario({
        "name": f"kernel-f5b-a{ack_loss.rstrip('%')}",
        "sample": "100ms",
        "duration": f"{duration_s}s",
        "link": {"rate": f"{RATE_MBPS}Mbps", "delay": "100ms", "queue": "2000pkt",
                 "loss": "1%", "ack_loss": ack_loss},
        "flow": [{"cc": "bbr", "stack": "linux", "bytes": "unlimited"}],
    })


def fig6a(duration_s: int) -> tcplab.Scenario:
    return tcplab.Scenario({
        "name": "kernel-f6a",
        "sample": "100ms",
        "duration": f"{duration_s}s",
        "link": {"rate": f"{RATE_MBPS}Mbps", "delay": "50ms", "queue": "2000pkt"},
        "flow": [{"cc": "bbr", "stack": "linux", "bytes": "unlimited"}],
    })


def lag_ms(result) -> dict[str, float]:
    """The emulator's lateness against the link model's schedule (departures)."""
    if "packets" not in result.tables:
        return {"lag_p50_ms": math.nan, "lag_p99_ms": math.nan, "lag_max_ms": math.nan}
    p = result.tables["packets"].to_pandas()
    dep = p[p["event"] == "depart"]["late_ns"] / 1e6
    return {"lag_p50_ms": float(dep.quantile(0.5)), "lag_p99_ms": float(dep.quantile(0.99)),
            "lag_max_ms": float(dep.max())}


def run(sc: tcplab.Scenario, seed: int, out: str | None, modes=("sim", "kernel")) -> pd.DataFrame:
    res = compare(sc, seed=seed, modes=modes)
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        res.plot(d / f"{sc.name}-seed{seed}.png")
    lags = pd.DataFrame([{"mode": m, **lag_ms(r)} for m, r in res.results.items()])
    return res.table.merge(lags, on="mode")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=int, default=30, help="seconds per run")
    ap.add_argument("--seeds", type=int, default=1, help="Figure 6a: seeds seed..seed+N-1")
    ap.add_argument("--only", choices=["fig5b", "fig6a"])
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.only != "fig6a":
        fig5b_table(a)
    if a.only != "fig5b":
        fig6a_table(a)


def fig5b_table(a) -> None:
    t0 = time.time()
    rows = []
    for loss in ACK_LOSSES:
        t = run(fig5b(loss, a.duration), a.seed, a.out).assign(ack_loss=loss)
        t["utilisation_%"] = 100 * t["goodput_Mbps"] / RATE_MBPS
        rows.append(t)
        print(f"# fig5b ack loss {loss} done at {time.time() - t0:.0f} s", flush=True)
    df = pd.concat(rows, ignore_index=True)
    print(to_markdown(df[["ack_loss", "mode", "goodput_Mbps", "utilisation_%",
                          "retx_segments", "rtos", "lag_p50_ms", "lag_p99_ms", "lag_max_ms"]]
                      .set_index("ack_loss")))


#: Figure 6a's propagation RTT (ms): 50 ms each way.
F6A_PROPAGATION_MS = 100.0


def fig6a_table(a) -> None:
    rows = []
    for seed in range(a.seed, a.seed + a.seeds):
        t = run(fig6a(a.duration), seed, a.out, modes=("kernel",)).assign(seed=seed)
        rows.append(t)
        print(f"# fig6a seed {seed} done", flush=True)
    t = pd.concat(rows, ignore_index=True)
    t["propagation_ms"] = F6A_PROPAGATION_MS
    t["floor_ms"] = t["rtt_min_ms"] - F6A_PROPAGATION_MS
    print(to_markdown(t[["seed", "mode", "rtt_min_ms", "propagation_ms", "floor_ms",
                         "srtt_p50_ms", "lag_p50_ms", "lag_p99_ms", "lag_max_ms"]]
                      .set_index("seed").round(3)))


if __name__ == "__main__":
    main()
