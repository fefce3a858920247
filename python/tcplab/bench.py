"""``tcplab bench``: wall time, events/s, packet-hops/s and peak memory of B1, B1-SACK
(B1 with RFC 6675 SACK recovery), B1-LINUX (B1 under ``stack = "linux"``), B2, and W1/W8
(a saturated 802.11ac cell with 1 and 8 stations, 10 s).

Each run happens in a fresh child process so its peak resident memory is its own; a
child that only loads tcplab gives the baseline to subtract. The simulation is timed
inside Rust, without Python start-up or table conversion.

``--flows N[,N...]`` runs the dumbbell family instead: B2 with its flow count set to each
N (named ``B2@N``), and reports the simulation's share of the peak RSS per flow.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from importlib import resources

#: Benchmark name -> its scenario in tcplab/data (None: generated, `b2_as_graph`). NC/FWD:
#: the coded transports, 10 MiB at 100 Mbit/s with 10 % loss, description-only symbols;
#: -PAY beside each with real bytes (`payload = true`).
BENCHES = {"B1": "b1.toml", "B1-SACK": "b1-sack.toml", "B1-LINUX": "b1-linux.toml",
           "B2": "b2.toml", "B2G": None, "W1": "w1.toml", "W8": "w8.toml",
           "NC": "nc.toml", "NC-PAY": "nc-pay.toml", "FWD": "fwd.toml",
           "FWD-PAY": "fwd-pay.toml"}


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
                   'stack = "tcplab"\ncc = "newreno"\nbytes = "unlimited"\nhandshake = false\n'
                   'rcv_buf = "64MiB"')
    return "\n".join(out) + "\n"


def b2_with_flows(flows: int) -> str:
    """B2's scenario text with its flow count set to `flows` (the dumbbell family)."""
    text = (resources.files("tcplab") / "data" / BENCHES["B2"]).read_text()
    out, n = re.subn(r"(?m)^count = \d+$", f"count = {flows}", text)
    if n != 1:
        raise RuntimeError("b2.toml: expected one `count = N` line to set the flow count")
    return out.replace('name = "B2"', f'name = "B2@{flows}"')


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
    # In a session of its own, Ctrl-C at the terminal reaches only the parent, which stops
    # the child (below); a signal handler set by the child itself would come too late for
    # a Ctrl-C during its interpreter's start-up, which printed a traceback.
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, path, mode], stdout=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    try:
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:  # Ctrl-C: the run in progress is abandoned at once
        proc.kill()
        proc.wait()
        raise
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child for {path} failed with code {proc.returncode}")
    return json.loads(out), usage.ru_maxrss / 1024.0  # Linux reports KiB


def _measure(path: str, repeat: int) -> tuple[float, list]:
    _, base_mb = _child(path, "check")
    return base_mb, [_child(path, "run") for _ in range(repeat)]


def run_bench(name: str, repeat: int, flows: int | None = None) -> dict:
    """Runs benchmark `name` `repeat` times in fresh processes; returns its statistics.
    With `flows`, runs B2 with that many flows (`name` is then only the label)."""
    # Generated scenarios (the dumbbell family, B2 as a graph) go through a temporary file.
    text = b2_with_flows(flows) if flows is not None else (
        b2_as_graph() if BENCHES[name] is None else None)
    if text is not None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.toml")
            with open(path, "w") as f:
                f.write(text)
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
        **({"flows": flows,
            "sim_bytes_per_flow": (max(r[1] for r in runs) - base_mb) * 1024 * 1024 / flows}
           if flows else {}),
    }


def parse_flows(text: str) -> list[int]:
    """``--flows 10,100,1000`` -> [10, 100, 1000]; every count a whole number >= 1."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise ValueError(f"--flows {text!r}: expected whole numbers >= 1 separated by commas")
    return counts


def main(args) -> int:
    """``tcplab bench``: runs the selected benchmarks and prints (or writes) the table."""
    flows = getattr(args, "flows", None)
    if flows is not None:
        try:
            counts = parse_flows(flows)
        except ValueError as e:
            print(f"tcplab bench: {e}", file=sys.stderr)
            return 2
        if args.only:
            print("tcplab bench: --flows runs the dumbbell family (B2); drop --only",
                  file=sys.stderr)
            return 2
        names = [f"B2@{n}" for n in counts]
    else:
        counts = []
        names = [n.strip().upper() for n in args.only.split(",")] if args.only else list(BENCHES)
    unknown = [n for n in names if n not in BENCHES and not counts]
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
    w = max(7, *(len(n) for n in names))
    hdr = (f"{'bench':<{w}} {'wall min':>10} {'median':>10} {'events':>11} {'events/s':>11} "
           f"{'hops/s':>11} {'peak RSS':>9} {'sim part':>9}")
    if counts:
        hdr += f" {'B/flow':>9}"
    if text:
        print(hdr)
    for i, n in enumerate(names):
        r = run_bench(n, args.repeat, counts[i] if counts else None)
        r["bench"] = n
        results.append(r)
        if text:
            line = (f"{n:<{w}} {r['wall_s_min'] * 1e3:>8.2f}ms "
                    f"{r['wall_s_median'] * 1e3:>8.2f}ms "
                    f"{r['events']:>11,} {r['events_per_s'] / 1e6:>9.2f}M/s "
                    f"{r['packet_hops_per_s'] / 1e6:>9.2f}M/s {r['peak_rss_mb']:>7.1f}MB "
                    f"{r['sim_peak_mb']:>7.1f}MB")
            if counts:
                line += f" {r['sim_bytes_per_flow']:>9,.0f}"
            print(line)
    if to_stdout:
        print(json.dumps(results, indent=2))
    elif args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0
