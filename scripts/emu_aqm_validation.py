#!/usr/bin/env python3
"""The kernel's TCP through the emulator's CoDel and FQ-CoDel links, beside the simulator.

Four Cubic flows (started 1 s apart) share a 10 Mbit/s link with a 1,000-packet buffer
(40 ms RTT) for `--duration`; the link's queue is drop-tail (`fifo`: drop-tail with its
sojourn measured), CoDel (with `ecn = true`) or FQ-CoDel (ECN on by default). Each
discipline runs:

- the Linux kernel's Cubic through `tcplab emulate`'s link with `net.ipv4.tcp_ecn = 1` in
  the namespace (the senders ask for ECN; the host's receivers accept it, Linux's default
  2), so the discipline marks CE instead of dropping;
- the same with `tcp_ecn = 0` (drops);
- tcplab's simulator on the same scenario (`stack = "linux"`, the profile validated
  against the kernel). Its TCP sends no ECT yet, so its discipline drops.

Prints one markdown table (the forward direction's link counters, the flows' goodput and
Jain index). Needs root and /dev/net/tun for the emulated rows. Regenerate the table in
docs/validation.md with:

    python scripts/emu_aqm_validation.py --duration 30s
"""

from __future__ import annotations

import argparse
import sys

import tcplab
from tcplab import _tcplab, units
from tcplab.result import Result

DISCIPLINES = {
    "fifo": "fifo",
    "codel": {"kind": "codel", "ecn": True},
    "fq_codel": "fq_codel",
}


def scenario(discipline, duration: str) -> dict:
    return {
        "name": "emu-aqm",
        "duration": duration,
        "sample": "100ms",
        "link": {"rate": "10Mbps", "delay": "20ms", "queue": "1000pkt",
                 "discipline": discipline},
        "flow": [{"name": f"cubic-{i + 1}", "cc": "cubic", "stack": "linux",
                  "bytes": "unlimited", "start": f"{i}s"} for i in range(4)],
    }


def jain(xs) -> float:
    xs = [float(x) for x in xs]
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs else float("nan")


def row(name: str, how: str, res: Result, duration_s: float) -> dict:
    lk = res.links
    f = lk[lk["direction"] == "fwd"].iloc[0]
    gp = res.flows["goodput_bps"]

    def get(key, scale=1.0):
        v = f.get(key)
        return float("nan") if v is None else float(v) * scale

    return {
        "discipline": name,
        "run": how,
        # All four flows' bytes over the run (each flow's own goodput is over its own
        # lifetime, and they start 1 s apart).
        "throughput_Mbps": res.flows["bytes_delivered"].sum() * 8 / duration_s / 1e6,
        "jain": jain(gp),
        "sojourn_p50_ms": get("sojourn_p50_ms"),
        "sojourn_p95_ms": get("sojourn_p95_ms"),
        "dropped_aqm": int(get("dropped_aqm", 1) if f.get("dropped_aqm") is not None else 0),
        "dropped_limit": int(get("dropped_limit", 1)
                             if f.get("dropped_limit") is not None else 0),
        "marked_ce": int(get("marked_ce", 1) if f.get("marked_ce") is not None else 0),
        "retx_segments": int(res.flows["retransmitted_segments"].sum()),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="30s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated disciplines (fifo,codel,fq_codel)")
    a = ap.parse_args()
    from tcplab.net import _scenario_args, available

    ok, why = available()
    if not ok:
        print(f"the emulator cannot run here: {why}", file=sys.stderr)
        return 1
    names = a.only.split(",") if a.only else list(DISCIPLINES)
    duration_s = units.parse(a.duration).value
    rows = []
    for name in names:
        sc = tcplab.Scenario(scenario(DISCIPLINES[name], a.duration), source=f"emu-aqm-{name}")
        for ecn in (1, 0):
            info, tables = _tcplab.emulate_flow(mode="kernel", seed=a.seed, tcp_ecn=ecn,
                                                **_scenario_args(sc))
            rows.append(row(name, f"Linux cubic, tcp_ecn={ecn} (emulated)",
                            Result(info, tables), duration_s))
            print(rows[-1], file=sys.stderr, flush=True)
        rows.append(row(name, "tcplab cubic, linux profile, no ECN (simulated)",
                        tcplab.simulate(sc, seed=a.seed), duration_s))
        print(rows[-1], file=sys.stderr, flush=True)
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v)
                                for v in r.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
