"""Decode delay of LT vs RLNC as the coding window grows (shape of seed 004, Figs. 9-10).

For each coding window of N segments (1460 B each) the script encodes one window, then
times the receiver: the total decode time (until every segment is recovered) and the time
until the *first* segment is released. LT's peeling decoder releases segments as soon as
degree-one symbols arrive, so its first-segment latency stays nearly flat; RLNC's Gaussian
elimination (dense coefficients) releases nothing until the rank is full and its total
cost grows roughly quadratically with N.

Run:  python examples/coding_decode_delay.py [--out results/coding_decode_delay.png]
Times are wall-clock medians in microseconds and include the per-call Python overhead,
which is the same per symbol for both codes.
"""

import argparse
import os
import statistics
import time
from pathlib import Path

from tcplab.coding import LtDecoder, LtEncoder, RlncDecoder, RlncEncoder

SEGMENT = 1460
WINDOWS = [4, 8, 16, 32, 64, 128, 256]


def lt_symbols(data, n):
    """Encoded symbols of one window, as many as one decoder needs (seeds 0, 1, ...)."""
    enc = LtEncoder(data, SEGMENT, window=n)
    probe = LtDecoder(len(data), SEGMENT, window=n)
    out = []
    while not probe.is_complete:
        sym = enc.encode(0, len(out))
        probe.receive(sym)
        out.append(sym)
    return out


def rlnc_symbols(data, n):
    """n innovative RLNC symbols over one window of n segments."""
    enc = RlncEncoder(SEGMENT, n)
    for i in range(n):
        enc.push(data[i * SEGMENT : (i + 1) * SEGMENT])
    probe = RlncDecoder(SEGMENT, n)
    out, seed = [], 0
    while probe.rank < n:
        sym = enc.encode(seed)
        seed += 1
        if probe.receive(sym)["outcome"] == "innovative":
            out.append(sym)
    return out


def time_lt(data, n, symbols):
    t0 = time.perf_counter()
    dec = LtDecoder(len(data), SEGMENT, window=n)
    first = None
    for sym in symbols:
        if dec.receive(sym) and first is None:
            first = time.perf_counter() - t0
    total = time.perf_counter() - t0
    assert dec.data() == data
    return first, total


def time_rlnc(n, symbols):
    t0 = time.perf_counter()
    dec = RlncDecoder(SEGMENT, n)
    first = None
    for sym in symbols:
        if dec.receive(sym)["newly_decoded"] and first is None:
            first = time.perf_counter() - t0
    total = time.perf_counter() - t0
    assert dec.first_undecoded() == n
    return first, total


def measure(repeats):
    rows = []
    for n in WINDOWS:
        data = os.urandom(n * SEGMENT)
        lt_syms, rl_syms = lt_symbols(data, n), rlnc_symbols(data, n)
        lt = [time_lt(data, n, lt_syms) for _ in range(repeats)]
        rl = [time_rlnc(n, rl_syms) for _ in range(repeats)]
        med = lambda xs, i: statistics.median(x[i] for x in xs) * 1e6  # noqa: E731
        rows.append(
            {
                "window": n,
                "window_bytes": n * SEGMENT,
                "lt_symbols": len(lt_syms),
                "lt_first_us": med(lt, 0),
                "lt_total_us": med(lt, 1),
                "rlnc_first_us": med(rl, 0),
                "rlnc_total_us": med(rl, 1),
            }
        )
    return rows


def print_table(rows):
    head = ("N", "bytes", "LT syms", "LT first", "LT total", "RLNC first", "RLNC total")
    print("{:>5} {:>8} {:>8} {:>10} {:>10} {:>11} {:>11}".format(*head))
    for r in rows:
        print(
            f"{r['window']:>5} {r['window_bytes']:>8} {r['lt_symbols']:>8} "
            f"{r['lt_first_us']:>10.1f} {r['lt_total_us']:>10.1f} "
            f"{r['rlnc_first_us']:>11.1f} {r['rlnc_total_us']:>11.1f}"
        )
    print("(times: median microseconds from the first symbol fed)")


def plot(rows, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed; skipping the figure")
        return
    x = [r["window_bytes"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, [r["rlnc_total_us"] for r in rows], "s-", label="RLNC (TCP/NC): all decoded")
    ax.plot(x, [r["lt_total_us"] for r in rows], "o-", label="LT (TCP-Forward): all decoded")
    ax.plot(x, [r["lt_first_us"] for r in rows], "o--", label="LT: first segment")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("coding window (bytes)")
    ax.set_ylabel("decode delay (µs)")
    ax.set_title("Decode delay vs coding window (shape of seed 004, Figs. 9-10)")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"figure written to {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results/coding_decode_delay.png"))
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    rows = measure(args.repeats)
    print_table(rows)
    plot(rows, args.out)


if __name__ == "__main__":
    main()
