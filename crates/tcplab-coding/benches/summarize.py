"""Turn the criterion results of `benches/coding.rs` into the Markdown tables of
docs/performance.md.

Usage: python3 crates/tcplab-coding/benches/summarize.py [CRITERION_DIR]
(default: $CARGO_TARGET_DIR/criterion, else target/criterion). Uses each
benchmark's median time; throughput is source bytes (k * 1460) per second.
"""

import json
import os
import sys
from pathlib import Path


def load(root, group, func):
    base = root / group / func.replace("/", "_") / "new"
    try:
        est = json.loads((base / "estimates.json").read_text())
        meta = json.loads((base / "benchmark.json").read_text())
    except FileNotFoundError:
        return None
    ns = est["median"]["point_estimate"]
    return ns, meta["throughput"]["Bytes"]


def table(root, prefix, ks, other):
    head = (
        f"| k | ours encode MB/s | ours decode MB/s | first symbol µs | last symbol µs "
        f"| {other} encode MB/s | {other} decode MB/s (first = last µs) "
        f"| decode ours/{other} | encode ours/{other} |"
    )
    lines = [head, "|" + "---|" * 9]
    for k in ks:
        g = f"{prefix}_k{k}"
        r = {
            f: load(root, g, f)
            for f in (
                "ours/encode",
                "ours/decode",
                "ours/decode_first",
                f"{other}/encode",
                f"{other}/decode",
            )
        }
        if any(v is None for v in r.values()):
            continue
        mbps = {f: b / ns * 1e3 for f, (ns, b) in r.items()}
        us = {f: ns / 1e3 for f, (ns, _) in r.items()}
        lines.append(
            f"| {k} | {mbps['ours/encode']:.0f} | {mbps['ours/decode']:.0f} "
            f"| {us['ours/decode_first']:.1f} | {us['ours/decode']:.1f} "
            f"| {mbps[other + '/encode']:.0f} | {mbps[other + '/decode']:.0f} "
            f"({us[other + '/decode']:.1f}) "
            f"| {mbps['ours/decode'] / mbps[other + '/decode']:.2f} "
            f"| {mbps['ours/encode'] / mbps[other + '/encode']:.2f} |"
        )
    return "\n".join(lines)


def main():
    if len(sys.argv) > 1:
        root = Path(sys.argv[1])
    else:
        root = Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "criterion"
    print("LT (Robust Soliton c = 0.1, delta = 0.5) vs raptorq\n")
    print(table(root, "lt", [16, 64, 256, 1024], "raptorq"))
    print("\nRLNC over GF(2^8) vs rlnc\n")
    print(table(root, "rlnc", [8, 16, 32, 64], "rlnc"))


if __name__ == "__main__":
    main()
