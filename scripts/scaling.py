"""How simulation cost grows with the number of flows and with simulated time (B2 family).

Prints wall time, events and events/s for B2 with 25/50/100/200 flows over 10 s, and for
100 flows over 2.5/5/10/20 s; docs/performance.md quotes its output.
"""

import re
import time
from importlib import resources

from tcplab import _tcplab

B2 = (resources.files("tcplab") / "data" / "b2.toml").read_text()


def run(flows: int, seconds: float) -> None:
    text = re.sub(r"count = \d+", f"count = {flows}", B2)
    text = re.sub(r'duration = "[^"]+"', f'duration = "{seconds}s"', text)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        r = _tcplab.bench_run("b2-scaling", text, 1)
        wall = time.perf_counter() - t0
        best = r | {"outer": wall} if best is None or r["wall_s"] < best["wall_s"] else best
    print(f"| {flows} | {seconds} | {best['wall_s'] * 1e3:.0f} | {best['events']:,} | "
          f"{best['events'] / best['wall_s'] / 1e6:.2f} |")


def main() -> None:
    print("| flows | simulated s | wall ms | events | M events/s |")
    print("|---|---|---|---|---|")
    for n in (25, 50, 100, 200):
        run(n, 10)
    for s in (2.5, 5, 20):
        run(100, s)


if __name__ == "__main__":
    main()
