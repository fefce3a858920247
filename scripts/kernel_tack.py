"""The kernel's BBR in the TACK paper's Figure 5b setting and its tcpi_min_rtt in the
Figure 6a setting, through tcplab's emulator, beside tcplab's simulated TCP BBR under
`stack = "linux"` (docs/validation.md). Needs root (the emulated runs). Prints two
Markdown tables.

    python scripts/kernel_tack.py [--seed 1] [--duration 30] [--out DIR]

Figure 5b: 20 Mbit/s, 100 ms each way (200 ms RTT), a 2000-packet queue, 1 % loss on the
data path and 0.2 / 1 / 5 / 10 % on the ACK path (tcplab.reproduce.tack's `lossy_path`);
utilisation = goodput / 20 Mbit/s. Figure 6a: the same link with 50 ms each way
(100 ms RTT) and no loss; the true propagation RTT is 100 ms plus one 1500-byte packet's
serialization at 20 Mbit/s (0.6 ms).
"""

from __future__ import annotations

import argparse
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


def run(sc: tcplab.Scenario, seed: int, out: str | None) -> pd.DataFrame:
    res = compare(sc, seed=seed, modes=("sim", "kernel"))
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        res.plot(d / f"{sc.name}.png")
    return res.table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=int, default=30, help="seconds per run")
    ap.add_argument("--out")
    a = ap.parse_args()
    t0 = time.time()
    rows = []
    for loss in ACK_LOSSES:
        t = run(fig5b(loss, a.duration), a.seed, a.out).assign(ack_loss=loss)
        t["utilisation_%"] = 100 * t["goodput_Mbps"] / RATE_MBPS
        rows.append(t)
        print(f"# fig5b ack loss {loss} done at {time.time() - t0:.0f} s", flush=True)
    df = pd.concat(rows, ignore_index=True)
    print(to_markdown(df[["ack_loss", "mode", "goodput_Mbps", "utilisation_%",
                          "retx_segments", "rtos"]].set_index("ack_loss")))
    t = run(fig6a(a.duration), a.seed, a.out)
    t["true_rtt_ms"] = 100.0 + 1500 * 8 / (RATE_MBPS * 1e6) * 1e3
    t["overestimate_%"] = 100 * (t["rtt_min_ms"] / t["true_rtt_ms"] - 1)
    print(to_markdown(t[["mode", "rtt_min_ms", "true_rtt_ms", "overestimate_%",
                         "srtt_p50_ms"]].set_index("mode")))


if __name__ == "__main__":
    main()
