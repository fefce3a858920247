"""Sweep plans: a TOML file naming a scenario, a grid, seeds and the plots to draw.

    scenario = "../examples/newreno-lossy.toml"   # relative to the plan file
    seeds = 5                                      # or a list, e.g. [1, 2, 3]
    level = 0.9                                    # confidence level of the intervals
    metrics = ["goodput_bps", "retransmission_ratio"]
    [grid]
    "link.delay" = ["1ms", "10ms", "30ms"]
    "flow.*.cc" = ["reno", "newreno"]
    [[plot]]
    x = "link.delay"
    y = "goodput_bps"
    series = "flow.*.cc"
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.files import inside, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_KEYS = {"scenario", "seeds", "replications", "level", "metrics", "grid", "plot", "name"}
_PLOT_KEYS = {"x", "y", "series", "title", "ylabel", "xlabel", "scale"}


@dataclass
class PlotSpec:
    x: str
    y: str
    series: str | None = None
    title: str | None = None
    xlabel: str | None = None
    ylabel: str | None = None
    scale: float = 1.0


@dataclass
class Plan:
    name: str
    scenario: Path
    grid: dict[str, list[Any]]
    seeds: list[int]
    replications: int = 1
    level: float = 0.95
    metrics: list[str] = field(default_factory=lambda: ["goodput_bps"])
    plots: list[PlotSpec] = field(default_factory=list)


def _err(file: str, key: str, value: Any, why: str) -> Exception:
    shown = f" = {value!r}" if value is not None else ""
    return _tcplab.ScenarioError(f"{file}: {key}{shown}: {why}")


def load_plan(path: str | Path) -> Plan:
    """Reads and checks a plan file; errors name the file, key, value and reason."""
    path = Path(path)
    f = str(path)
    try:
        data = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as e:
        raise _tcplab.ScenarioError(f"{f}: TOML syntax error: {e}") from None
    for k in data:
        if k not in _KEYS:
            raise _err(f, k, data[k], f"unknown key (known: {', '.join(sorted(_KEYS))})")
    if "scenario" not in data:
        raise _err(f, "scenario", None, "required: the scenario file to sweep")
    scen = (path.parent / data["scenario"]).resolve()
    grid = data.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise _err(f, "grid", grid, "required: a table of dotted keys to lists of values")
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            raise _err(f, f"grid.\"{k}\"", v, "must be a non-empty list of values")
    seeds = data.get("seeds", 5)
    if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
        seed_list = list(range(1, seeds + 1))
    elif isinstance(seeds, list) and seeds and all(isinstance(s, int) and s >= 0 for s in seeds):
        seed_list = seeds
    else:
        raise _err(f, "seeds", seeds, "a count >= 1 or a list of seeds >= 0")
    if len(set(seed_list)) != len(seed_list):
        raise _err(f, "seeds", seeds, "seeds must be distinct (a seed run again gives the "
                   "identical run, not another sample; use replications for more runs)")
    for k, v in grid.items():
        twice = [x for i, x in enumerate(v) if x in v[:i]]
        if twice:
            raise _err(f, f'grid."{k}"', v, f"lists {twice[0]!r} more than once (its runs "
                       "would count twice in the point's sample)")
    level = data.get("level", 0.95)
    if not isinstance(level, (int, float)) or not 0 < level < 1:
        raise _err(f, "level", level, "a confidence level in (0, 1), e.g. 0.9")
    reps = data.get("replications", 1)
    if not isinstance(reps, int) or reps < 1:
        raise _err(f, "replications", reps, "a whole number >= 1")
    metrics = data.get("metrics", ["goodput_bps"])
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise _err(f, "metrics", metrics, "a list of column names of the flows table")
    plots = []
    for i, p in enumerate(data.get("plot", [])):
        for k in p:
            if k not in _PLOT_KEYS:
                raise _err(f, f"plot[{i}].{k}", p[k],
                           f"unknown key (known: {', '.join(sorted(_PLOT_KEYS))})")
        for k in ("x", "y"):
            if k not in p:
                raise _err(f, f"plot[{i}].{k}", None, "required")
        for k in ("x", "y", "series", "title", "xlabel", "ylabel"):
            if k in p and not isinstance(p[k], str):
                raise _err(f, f"plot[{i}].{k}", p[k], "must be a string")
        if "scale" in p and (isinstance(p["scale"], bool)
                             or not isinstance(p["scale"], (int, float))):
            raise _err(f, f"plot[{i}].scale", p["scale"], "must be a number (e.g. 1e-6)")
        if p["x"] not in grid:
            raise _err(f, f"plot[{i}].x", p["x"], "must be one of the grid keys")
        if p.get("series") is not None and p["series"] not in grid:
            raise _err(f, f"plot[{i}].series", p["series"], "must be one of the grid keys")
        plots.append(PlotSpec(**p))
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise _err(f, "name", name, "must be a string")
    try:
        inside(path.parent, f"{name}-runs.parquet")
    except ValueError:
        raise _err(f, "name", name, "prefixes output file names: no '/', '\\' or NUL") from None
    return Plan(name=name, scenario=scen, grid=grid, seeds=seed_list,
                replications=reps, level=float(level), metrics=metrics, plots=plots)


def check_plan(plan: Plan, file: str = "plan") -> Any:
    """Checks a plan against its scenario before anything runs; returns the Scenario.

    Every grid value is applied alone to the scenario (a bad unit or key is reported with
    its grid key), and metrics and plot axes must be numeric columns of the flows table
    (found from a 1 ms run of the first grid point).
    """
    import pandas as pd

    from tcplab.scenario import Scenario, simulate

    sc = Scenario.from_toml(plan.scenario)
    for k, values in plan.grid.items():
        for v in values:
            try:
                sc.with_values(**{k: v})
            except _tcplab.ScenarioError as e:
                raise _err(file, f'grid."{k}"', v, str(e)) from None
    first = {k: v[0] for k, v in plan.grid.items()}
    try:
        probe = simulate(sc.with_values(**{**first, "duration": "1ms", "sample": "off"}),
                         seed=plan.seeds[0], time_limit=60)
    except _tcplab.ScenarioError as e:  # a combination the values alone did not show
        raise _err(file, "grid", first, str(e)) from None
    flows = probe.flows
    numeric = sorted(["events", *(c for c in flows.columns
                                  if c not in ("seed", "replication", "flow")
                                  and pd.api.types.is_numeric_dtype(flows[c]))])
    why = f"not a numeric column of the flows table (numeric: {', '.join(numeric)})"
    for m in plan.metrics:
        if m not in numeric:
            raise _err(file, "metrics", m, why)
    for i, p in enumerate(plan.plots):
        if p.y not in numeric:
            raise _err(file, f"plot[{i}].y", p.y, why)
    return sc

