"""Parameter sweeps: a grid of scenario values × seeds, run in parallel, one tidy table.

    res = tcplab.sweep(sc, {"link.delay": ["1ms", "10ms"], "flow.*.cc": ["reno", "newreno"]},
                       seeds=5)
    res.runs                       # one row per flow per run, with its parameters and seed
    res.summary("goodput_bps", level=0.9)   # mean and confidence interval per grid point

A run that fails (bad parameters, a violated invariant, a crash, its time or memory
limit) is recorded in ``res.failures`` with its parameters and message; the other runs are
kept. With ``stream_to=DIR`` each finished run is also written to ``DIR`` as it completes.
``executor="dask"`` runs on a Dask cluster (``pip install tcplab[dask]``).

Seeds and the values of each grid key must be distinct: a repeated one gives an identical
run that would count as another sample. Ctrl-C stops the runs in progress at once and
raises :class:`SweepInterrupted` (a ``KeyboardInterrupt``) holding the finished ones.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import _tcplab
from tcplab.columns import valid_range
from tcplab.files import inside
from tcplab.scenario import (
    MAX_SEED,
    Scenario,
    check_memory_limit,
    check_time_limit,
    check_whole,
    simulate,
)
from tcplab.stats import interval

#: Default wall-clock limit of one run in a sweep, in seconds.
DEFAULT_TIME_LIMIT_S = 3600.0


def default_memory_limit(workers: int) -> int:
    """Bytes one run may allocate by default: an equal share of the machine's memory."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return max(1 << 30, total // max(workers, 1))


@dataclass(frozen=True)
class _Job:
    """One run: the scenario with the point applied, and where it sits in the sweep."""

    index: int
    data: dict
    source: str
    point: dict
    seed: int
    rep: int
    time_limit: float | None


def _one(job: _Job) -> tuple[_Job, Any, str | None]:
    """Runs one job; returns its flows table or the error (picklable either way)."""
    try:
        res = simulate(Scenario(job.data, source=job.source), seed=job.seed,
                       replication=job.rep, time_limit=job.time_limit)
        flows = res.flows
        flows["events"] = res.info["events"]
        return job, flows, None
    except Exception as e:  # noqa: BLE001 - a failed point is reported, the sweep goes on
        return job, None, f"{type(e).__name__}: {e}"


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
        paths = [inside(out, f"{prefix}runs.parquet"), inside(out, f"{prefix}failures.parquet")]
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
        twice = [x for i, x in enumerate(v) if x in v[:i]]
        if twice:
            raise ValueError(f"grid['{k}'] lists {twice[0]!r} more than once (its runs would "
                             "count twice in the point's sample)")
        values.append(v)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def sweep(scenario: Scenario | str | Path, grid: Mapping[str, Iterable[Any]],
          seeds: int | Sequence[int] = 5, replications: int = 1, workers: int | None = None,
          executor: str = "process", progress: bool | None = None, *,
          time_limit: float | None = DEFAULT_TIME_LIMIT_S, memory_limit: int | None = None,
          stream_to: str | Path | None = None, client: Any = None) -> SweepResult:
    """Runs every grid point × seed × replication; see the module docs.

    `executor` is "process" (default: local worker processes), "thread" (the simulator
    releases the GIL, so threads also run in parallel and start faster), "serial" or
    "dask" (`client`: a ``dask.distributed.Client``, a scheduler address, or None for the
    current client or else a local cluster of `workers` processes).

    `time_limit` (seconds, default one hour; None for none) stops a run that takes longer;
    `memory_limit` (bytes; default an equal share of the machine's memory per worker)
    caps what a run may allocate in the "process" executor, where a run that crashes its
    worker is reported too. On Dask the cluster's own worker memory limit applies.
    Points the scenario rejects are failures that never start. With `stream_to`, each
    finished run's rows are written to ``<stream_to>/run-<n>.parquet`` and each failure
    appended to ``<stream_to>/failures.jsonl`` as they complete.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_toml(scenario)
    if isinstance(seeds, bool) or not isinstance(seeds, (int, Sequence)):
        raise TypeError(f"seeds must be a count or a list of seeds, not {seeds!r}")
    seed_list = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
    if not seed_list:
        raise ValueError("seeds must be a positive count or a non-empty list of seeds")
    for s in seed_list:
        check_whole(s, "seed", MAX_SEED)
    repeated = sorted({s for s in seed_list if seed_list.count(s) > 1})
    if repeated:
        raise ValueError(
            f"seeds must be distinct: {', '.join(map(str, repeated))} listed more than once "
            "(a seed run again gives the identical run, not another sample; use "
            "replications for more runs per seed)")
    check_whole(replications, "replications", 2**32 - 1)
    if replications < 1:
        raise ValueError("replications must be >= 1")
    if executor not in ("process", "thread", "serial", "dask"):
        raise ValueError(
            f"executor must be 'process', 'thread', 'serial' or 'dask', not {executor!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"workers must be a whole number >= 1, not {workers!r}")
    time_limit = check_time_limit(time_limit)
    memory_limit = check_memory_limit(memory_limit)
    points = expand_grid(grid)
    params = list(grid)
    workers = workers or os.cpu_count() or 1
    if memory_limit is None:
        memory_limit = default_memory_limit(workers)
    sink = _Sink(params, stream_to)
    jobs = []
    for p in points:
        try:
            data = scenario.with_values(**p)._data
        except _tcplab.ScenarioError as e:  # never started: report every run of the point
            for s in seed_list:
                for r in range(replications):
                    sink.fail(p, s, r, f"ScenarioError: {e}")
            continue
        jobs += [_Job(len(jobs) + k, data, scenario.source, p, s, r, time_limit)
                 for k, (s, r) in enumerate(itertools.product(seed_list, range(replications)))]
    bar = _progress_bar(len(jobs) + len(sink.fails),
                        sys.stderr.isatty() if progress is None else progress)
    if sink.fails:
        bar.set_postfix(failed=len(sink.fails))
        bar.update(len(sink.fails))

    def collect(job: _Job, flows: Any, err: str | None) -> None:
        if err is None:
            sink.ok(job, flows)
        else:
            sink.fail(job.point, job.seed, job.rep, err)
            bar.set_postfix(failed=len(sink.fails))
        bar.update(1)

    try:
        _run_jobs(jobs, executor, workers, time_limit, memory_limit, client, collect)
    except KeyboardInterrupt:
        bar.close()
        raise SweepInterrupted(sink.result()) from None
    bar.close()
    return sink.result()


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: the runs that finished before it are in `partial` (a
    `SweepResult`); the unfinished ones are in neither of its tables."""

    def __init__(self, partial: SweepResult):
        super().__init__("interrupted")
        self.partial = partial


def _run_jobs(jobs: list[_Job], executor: str, workers: int, time_limit: float | None,
              memory_limit: int | None, client: Any, collect) -> None:
    """Runs `jobs` on `executor`, passing each outcome to `collect` as it arrives. On
    Ctrl-C no run is left going: threads' runs are cancelled, worker processes killed."""
    if executor == "dask":
        from tcplab.dask_executor import run_on_dask

        for out in run_on_dask(_one, jobs, client, workers):
            collect(*out)
    elif executor == "serial" or (executor == "thread" and (workers == 1 or len(jobs) <= 1)):
        for j in jobs:
            collect(*_one(j))
    elif executor == "thread":
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            for f in as_completed([pool.submit(_one, j) for j in jobs]):
                collect(*f.result())
        except BaseException:
            # Ctrl-C reaches the main thread only: stop the runs on the others too.
            pool.shutdown(wait=False, cancel_futures=True)
            _tcplab.cancel_runs()
            raise
        finally:
            pool.shutdown(wait=True)
    else:
        from tcplab.pool import run_supervised

        for o in run_supervised(_one, jobs, workers, time_limit, memory_limit):
            if o.error is None:
                collect(*o.value)
            else:
                collect(jobs[o.index], None, o.error)


class _Sink:
    """Collects finished runs and failures, writing each to `stream_to` as it arrives."""

    def __init__(self, params: list[str], stream_to: str | Path | None):
        self.params, self.frames, self.fails = params, [], []
        self.dir = Path(stream_to) if stream_to is not None else None
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)

    def ok(self, job: _Job, flows: pd.DataFrame) -> None:
        for k in self.params:
            flows.insert(0, k, [job.point[k]] * len(flows))
        self.frames.append(flows)
        if self.dir is not None:
            flows.to_parquet(inside(self.dir, f"run-{job.index:06d}.parquet"), index=False)

    def result(self) -> SweepResult:
        """The runs and failures collected so far, sorted by grid point, seed and flow."""
        runs = pd.concat(self.frames, ignore_index=True) if self.frames else pd.DataFrame()
        if len(runs):
            order = [*self.params, "seed", "replication", "flow"]
            runs = runs.sort_values(order, kind="stable", key=_sort_key).reset_index(drop=True)
        failures = pd.DataFrame(self.fails,
                                columns=[*self.params, "seed", "replication", "error"])
        return SweepResult(runs=runs, failures=failures, params=self.params)

    def fail(self, point: dict, seed: int, rep: int, err: str) -> None:
        row = {**point, "seed": seed, "replication": rep, "error": err}
        self.fails.append(row)
        if self.dir is not None:
            import json

            with open(self.dir / "failures.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(row, default=str) + "\n")


def _sort_key(col: pd.Series) -> pd.Series:
    """Sort unit strings by their value when all are of one kind ("5ms" before "10ms",
    "2MiB" before "10MiB")."""
    from tcplab.units import sort_key

    if col.dtype == object or pd.api.types.is_string_dtype(col):
        keys = sort_key(col.tolist())
        if keys is not None:
            return pd.Series(keys, index=col.index)
    return col
