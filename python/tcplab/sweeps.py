"""Parameter sweeps: a grid of scenario values × seeds, run in parallel, one tidy table.

    res = tcplab.sweep(sc, {"link.delay": ["1ms", "10ms"], "flow.*.cc": ["reno", "newreno"]},
                       seeds=5)
    res.runs                       # one row per flow per run, with its parameters and seed
    res.summary("goodput_bps", level=0.9)   # mean and confidence interval per grid point

A run that fails (bad parameters, a violated invariant) is recorded in ``res.failures``
with its parameters and message; the other runs are kept.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import _tcplab
from tcplab.columns import valid_range
from tcplab.scenario import Scenario, simulate
from tcplab.stats import interval

_ERRORS = (_tcplab.ScenarioError, _tcplab.InvariantError, _tcplab.SimulationPanic, ValueError)


def _one(job: tuple[dict, str, dict, int, int]) -> tuple[dict, int, int, Any, str | None]:
    """Runs one grid point; returns its flows table or the error (picklable either way)."""
    data, source, point, seed, rep = job
    try:
        sc = Scenario(data, source=source).with_values(**point)
        res = simulate(sc, seed=seed, replication=rep)
        flows = res.flows
        flows["events"] = res.info["events"]
        return point, seed, rep, flows, None
    except _ERRORS as e:
        return point, seed, rep, None, f"{type(e).__name__}: {e}"


def _progress_bar(total: int, enabled: bool):
    """A tqdm bar on stderr (disabled: a no-op one)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="run", disable=not enabled, file=sys.stderr,
                dynamic_ncols=True, leave=False)


@dataclass
class SweepResult:
    """Everything a sweep produced."""

    runs: pd.DataFrame
    failures: pd.DataFrame
    params: list[str]

    def summary(self, metric: str = "goodput_bps", level: float = 0.95,
                by: Sequence[str] | None = None, flow: int | None = None) -> pd.DataFrame:
        """Mean, confidence interval and n of `metric` per grid point.

        The interval is Student-t unless that leaves the metric's valid range (see
        docs/results.md), then a percentile bootstrap (column ``interval`` says which);
        ``identical`` marks points whose runs all gave the same value (the seeds do not
        change it; the interval is then zero-wide). `by` defaults to every swept
        parameter; `flow` restricts to one flow id.
        """
        if metric not in self.runs.columns:
            raise KeyError(f"unknown metric '{metric}' (columns: {', '.join(self.runs.columns)})")
        df = self.runs if flow is None else self.runs[self.runs["flow"] == flow]
        keys = list(by) if by is not None else list(self.params)
        rows = []
        groups = df.groupby(keys, sort=False, dropna=False) if keys else [((), df)]
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            iv = interval(g[metric].tolist(), level, valid_range(metric))
            rows.append({**dict(zip(keys, key)), "metric": metric, "mean": iv.mean,
                         "ci_low": iv.low, "ci_high": iv.high,
                         "half_width": (iv.high - iv.low) / 2, "n": iv.n, "level": level,
                         "interval": iv.method, "identical": iv.method == "identical"})
        return pd.DataFrame(rows)

    def to_polars(self):
        """The runs as a polars DataFrame (needs ``pip install polars``)."""
        import polars as pl

        return pl.from_pandas(self.runs)

    def to_parquet(self, out_dir: str | Path, prefix: str = "sweep-") -> list[Path]:
        """Writes ``<prefix>runs.parquet`` and ``<prefix>failures.parquet``; returns them."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / f"{prefix}runs.parquet", out / f"{prefix}failures.parquet"]
        self.runs.to_parquet(paths[0], index=False)
        self.failures.to_parquet(paths[1], index=False)
        return paths


def expand_grid(grid: Mapping[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """All combinations of the grid's values, as dotted-path → value dicts."""
    keys = list(grid)
    values = []
    for k in keys:
        v = grid[k]
        if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
            raise ValueError(f"grid['{k}'] must be a list of values, got {v!r}")
        v = list(v)
        if not v:
            raise ValueError(f"grid['{k}'] is empty")
        values.append(v)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def sweep(scenario: Scenario | str | Path, grid: Mapping[str, Iterable[Any]],
          seeds: int | Sequence[int] = 5, replications: int = 1, workers: int | None = None,
          executor: str = "process", progress: bool | None = None) -> SweepResult:
    """Runs every grid point × seed × replication; see the module docs.

    `executor` is "process" (default: local processes), "thread" (the simulator releases
    the GIL, so threads also run in parallel and start faster) or "serial".
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_toml(scenario)
    seed_list = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
    if not seed_list or any(s < 0 for s in seed_list):
        raise ValueError("seeds must be a positive count or a list of seeds >= 0")
    if replications < 1:
        raise ValueError("replications must be >= 1")
    points = expand_grid(grid)
    params = list(grid)
    jobs = [(scenario._data, scenario.source, p, s, r)
            for p in points for s in seed_list for r in range(replications)]
    workers = workers or os.cpu_count() or 1
    bar = _progress_bar(len(jobs), sys.stderr.isatty() if progress is None else progress)
    frames, fails = [], []

    def collect(out):
        point, seed, rep, flows, err = out
        if err is None:
            for k, v in point.items():
                flows.insert(0, k, [v] * len(flows))
            frames.append(flows)
        else:
            fails.append({**point, "seed": seed, "replication": rep, "error": err})
            bar.set_postfix(failed=len(fails))
        bar.update(1)

    if executor == "serial" or workers == 1 or len(jobs) == 1:
        for j in jobs:
            collect(_one(j))
    elif executor in ("process", "thread"):
        pool_cls = ProcessPoolExecutor if executor == "process" else ThreadPoolExecutor
        with pool_cls(max_workers=workers) as pool:
            futures = [pool.submit(_one, j) for j in jobs]
            for f in as_completed(futures):
                collect(f.result())
    else:
        raise ValueError(f"executor must be 'process', 'thread' or 'serial', not {executor!r}")
    bar.close()
    runs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(runs):
        order = [*params, "seed", "replication", "flow"]
        runs = runs.sort_values(order, kind="stable", key=_sort_key).reset_index(drop=True)
    failures = pd.DataFrame(fails, columns=[*params, "seed", "replication", "error"])
    return SweepResult(runs=runs, failures=failures, params=params)


def _sort_key(col: pd.Series) -> pd.Series:
    """Sort unit strings by their value when all are of one kind ("5ms" before "10ms",
    "2MiB" before "10MiB")."""
    from tcplab.units import sort_key

    if col.dtype == object or pd.api.types.is_string_dtype(col):
        keys = sort_key(col.tolist())
        if keys is not None:
            return pd.Series(keys, index=col.index)
    return col
