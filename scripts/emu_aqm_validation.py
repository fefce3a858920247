#!/usr/bin/env python3
"""The kernel's TCP through the emulator's CoDel and FQ-CoDel links, beside the simulator.

Four Cubic flows (started 1 s apart) share a 10 Mbit/s link with a 1,000-packet buffer
(40 ms RTT) for `--duration`; the link's queue is drop-tail (`fifo`: drop-tail with its
sojourn measured), CoDel, PIE or RED (each with `ecn = true`, their other parameters
the defaults) or FQ-CoDel (ECN on by default). Each discipline runs:

- the Linux kernel's Cubic through `tcplab emulate`'s link with `net.ipv4.tcp_ecn = 1` in
  the namespace (the senders ask for ECN; the host's receivers accept it, Linux's default
  2), so the discipline marks CE instead of dropping;
- the same with `tcp_ecn = 0` (drops);
- tcplab's simulator on the same scenario (`stack = "linux"`, the profile validated
  against the kernel), with `ecn = true` (marks) and `ecn = false` (drops).

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
    "pie": {"kind": "pie", "ecn": True},
    "red": {"kind": "red", "ecn": True},
}


def scenario(discipline, duration: str, ecn: bool = False) -> dict:
    return {
        "name": "emu-aqm",
        "duration": duration,
        "sample": "100ms",
        "link": {"rate": "10Mbps", "delay": "20ms", "queue": "1000pkt",
                 "discipline": discipline},
        "flow": [{"name": f"cubic-{i + 1}", "cc": "cubic", "stack": "linux",
                  "bytes": "unlimited", "start": f"{i}s", "ecn": ecn} for i in range(4)],
    }


def jain(xs) -> float:
    xs = [float(x) for x in xs]
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs else float("nan")


def delivered_by(res: Result, duration_s: float) -> dict[int, float]:
    """Each flow's bytes delivered (acknowledged) by the end of the run, from its series:
    a kernel sender that stops writing at the end still drains its socket buffer after
    it, which its flows table counts."""
    s = res.series("delivered")
    s = s[s["t_s"] <= duration_s + 1e-9]
    return s.groupby("flow")["delivered"].max().to_dict()


def row(name: str, how: str, res: Result, duration_s: float) -> dict:
    lk = res.links
    f = lk[lk["direction"] == "fwd"].iloc[0]
    got = delivered_by(res, duration_s)
    starts = dict(zip(res.flows["flow"], res.flows["start_s"]))
    rates = [b * 8 / (duration_s - starts[i]) for i, b in got.items()]

    def count(key) -> int:
        v = f.get(key)
        return 0 if v is None else int(v)

    return {
        "discipline": name,
        "run": how,
        # All four flows' bytes by the end of the run.
        "throughput_Mbps": sum(got.values()) * 8 / duration_s / 1e6,
        # Each flow's rate over its own lifetime (they start 1 s apart).
        "jain": jain(rates),
        "sojourn_p50_ms": float(f["sojourn_p50_ms"]),
        "sojourn_p95_ms": float(f["sojourn_p95_ms"]),
        "dropped_aqm": count("dropped_aqm"),
        "dropped_limit": count("dropped_limit"),
        "marked_ce": count("marked_ce"),
        "retx_segments": int(res.flows["retransmitted_segments"].sum()),
        # The emulator's timing error (its departures' lateness against the model's
        # schedule, 99th percentile; none when simulated).
        "emu_late_p99_ms": res.info.get("late_p99_s", float("nan")) * 1e3,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="30s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated disciplines (" + ",".join(DISCIPLINES) + ")")
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
        for ecn in (True, False):
            sim = tcplab.Scenario(scenario(DISCIPLINES[name], a.duration, ecn),
                                  source=f"emu-aqm-{name}")
            rows.append(row(name, f"tcplab cubic, ecn={str(ecn).lower()} (simulated)",
                            tcplab.simulate(sim, seed=a.seed), duration_s))
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
