"""``tcplab bench``: wall time, events/s, packet-hops/s and peak memory of B1, B1-SACK
(B1 with RFC 6675 SACK recovery), B1-LINUX (B1 under ``stack = "linux"``) and B2.

Each run happens in a fresh child process so its peak resident memory is its own; a
child that only loads tcplab gives the baseline to subtract. The simulation is timed
inside Rust, without Python start-up or table conversion.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from importlib import resources

BENCHES = {"B1": "b1.toml", "B1-SACK": "b1-sack.toml", "B1-LINUX": "b1-linux.toml",
           "B2": "b2.toml", "B2G": None}


def b2_as_graph(flows: int = 100) -> str:
    """B2 written as nodes and links instead of the dumbbell shorthand: the same network
    (node and link names as the shorthand expands them), so the same results; it times
    the general-topology path against the shorthand."""
    out = ['name = "B2G"', 'duration = "10s"', 'sample = "off"']
    nodes = ["left", "right"] + [f"{k}{i}" for i in range(flows) for k in ("src", "dst")]
    out += [f'[[node]]\nname = "{n}"' for n in nodes]
    link = 'rate = "1Gbps"\ndelay = "{d}"\nqueue = "1000pkt"'
    out.append('[[link]]\nname = "bottleneck"\nbetween = ["left", "right"]\n'
               + link.format(d="10ms"))
    for i in range(flows):
        out.append(f'[[link]]\nname = "access{i}.src"\nbetween = ["src{i}", "left"]\n'
                   + link.format(d="1ms"))
        out.append(f'[[link]]\nname = "access{i}.dst"\nbetween = ["right", "dst{i}"]\n'
                   + link.format(d="1ms"))
    for i in range(flows):
        out.append(f'[[flow]]\nname = "flow{i}"\nfrom = "src{i}"\nto = "dst{i}"\n'
                   'cc = "newreno"\nbytes = "unlimited"')
    return "\n".join(out) + "\n"

_CHILD = r"""
import json, sys
from tcplab import _tcplab
text = open(sys.argv[1]).read()
if sys.argv[2] == "run":
    print(json.dumps(_tcplab.bench_run(sys.argv[1], text, 1)))
else:
    _tcplab.parse_scenario(sys.argv[1], text=text)
    print("{}")
"""


def _child(path: str, mode: str) -> tuple[dict, float]:
    """Runs one child; returns its JSON output and peak RSS in MB."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, path, mode], stdout=subprocess.PIPE, text=True
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child for {path} failed with code {proc.returncode}")
    return json.loads(out), usage.ru_maxrss / 1024.0  # Linux reports KiB


def _measure(path: str, repeat: int) -> tuple[float, list]:
    _, base_mb = _child(path, "check")
    return base_mb, [_child(path, "run") for _ in range(repeat)]


def run_bench(name: str, repeat: int) -> dict:
    """Runs benchmark `name` `repeat` times in fresh processes; returns its statistics."""
    if BENCHES[name] is None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, f"{name.lower()}.toml")
            with open(path, "w") as f:
                f.write(b2_as_graph())
            base_mb, runs = _measure(path, repeat)
    else:
        ref = resources.files("tcplab") / "data" / BENCHES[name]
        with resources.as_file(ref) as path:
            base_mb, runs = _measure(str(path), repeat)
    walls = [r[0]["wall_s"] for r in runs]
    first = runs[0][0]
    best = min(walls)
    return {
        "bench": name,
        "repeat": repeat,
        "wall_s_min": best,
        "wall_s_median": statistics.median(walls),
        "events": first["events"],
        "packet_hops": first["packet_hops"],
        "simulated_s": first["end_time_s"],
        "events_per_s": first["events"] / best,
        "packet_hops_per_s": first["packet_hops"] / best,
        "peak_rss_mb": max(r[1] for r in runs),
        "baseline_rss_mb": base_mb,
        "sim_peak_mb": max(r[1] for r in runs) - base_mb,
    }


def main(args) -> int:
    """``tcplab bench``: runs the selected benchmarks and prints (or writes) the table."""
    names = [n.strip().upper() for n in args.only.split(",")] if args.only else list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        print(f"tcplab bench: unknown benchmark(s) {unknown}; choose from {list(BENCHES)}",
              file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("tcplab bench: --repeat must be >= 1", file=sys.stderr)
        return 2
    results = []
    to_stdout = getattr(args, "json", None) == "-"
    text = not (to_stdout or getattr(args, "quiet", False))
    hdr = (f"{'bench':<7} {'wall min':>10} {'median':>10} {'events':>11} {'events/s':>11} "
           f"{'hops/s':>11} {'peak RSS':>9} {'sim part':>9}")
    if text:
        print(hdr)
    for n in names:
        r = run_bench(n, args.repeat)
        results.append(r)
        if text:
            print(f"{n:<7} {r['wall_s_min'] * 1e3:>8.2f}ms {r['wall_s_median'] * 1e3:>8.2f}ms "
                  f"{r['events']:>11,} {r['events_per_s'] / 1e6:>9.2f}M/s "
                  f"{r['packet_hops_per_s'] / 1e6:>9.2f}M/s {r['peak_rss_mb']:>7.1f}MB "
                  f"{r['sim_peak_mb']:>7.1f}MB")
    if to_stdout:
        print(json.dumps(results, indent=2))
    elif args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0
