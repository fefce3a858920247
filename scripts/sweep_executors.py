"""Wall time of one sweep on each executor, and whether their runs tables are identical.

The sweep: examples/newreno-lossy.toml with a 60 MiB flow, 3 delays x 3 recoveries x 4
seeds (36 runs), two workers. Dask runs on a local cluster of two worker processes (its
start-up is timed separately) and on an in-process client. docs/performance.md quotes the
output; the machine is shared, so compare numbers from one run only.
"""

import time
from pathlib import Path

import pandas as pd
import tcplab

ROOT = Path(__file__).resolve().parents[1]
GRID = {"link.delay": ["1ms", "5ms", "20ms"], "flow.0.recovery": ["reno", "newreno", "sack"]}


def digest(df: pd.DataFrame) -> str:
    return f"{int(pd.util.hash_pandas_object(df, index=False).sum()) & (2**64 - 1):016x}"


def timed(label: str, **kw) -> pd.DataFrame:
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "newreno-lossy.toml").with_values(
        **{"flow.0.bytes": "60MiB", "sample": "off"})
    t0 = time.perf_counter()
    res = tcplab.sweep(sc, GRID, seeds=4, workers=2, progress=False, **kw)
    wall = time.perf_counter() - t0
    print(f"| {label} | {wall:.2f} | {len(res.runs)} | {digest(res.runs)} |")
    return res.runs


def unsupervised() -> None:
    """The executor sweeps used before (concurrent.futures): the pool's overhead baseline."""
    from concurrent.futures import ProcessPoolExecutor

    from tcplab import sweeps

    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "newreno-lossy.toml").with_values(
        **{"flow.0.bytes": "60MiB", "sample": "off"})
    jobs = [sweeps._Job(i, sc.with_values(**p)._data, sc.source, p, s, 0, None)
            for i, (p, s) in enumerate((p, s) for p in sweeps.expand_grid(GRID)
                                       for s in range(1, 5))]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        n = sum(out[1] is not None for out in pool.map(sweeps._one, jobs))
    print(f"| process (2, ProcessPoolExecutor, as before) | {time.perf_counter() - t0:.2f} "
          f"| {n} | |")


def main() -> None:
    import distributed

    print("| executor | wall s | runs | runs-table hash |")
    print("|---|---|---|---|")
    timed("serial", executor="serial")
    timed("thread (2)", executor="thread")
    timed("process (2, supervised)", executor="process")
    unsupervised()
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.run(lambda: __import__("tcplab.sweeps"))  # warm the workers' imports
        print(f"| (dask local cluster start-up) | {time.perf_counter() - t0:.2f} | | |")
        timed("dask, LocalCluster 2 processes", executor="dask", client=client)
    with distributed.Client(processes=False, dashboard_address=None) as client:
        timed("dask, Client(processes=False)", executor="dask", client=client)


if __name__ == "__main__":
    main()
