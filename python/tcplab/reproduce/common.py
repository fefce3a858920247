"""Shared steps of the reproductions: sweep, summarise, plot, write tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tcplab.plot import plot_summary
from tcplab.scenario import Scenario
from tcplab.sweeps import SweepResult, sweep


def run_figure(base: Scenario, grid: dict, x: str, series: str, metric: str, *,
               seeds: int, level: float, workers: int | None, out: Path, name: str,
               ylabel: str, xlabel: str, title: str, scale: float = 1.0,
               result: SweepResult | None = None) -> tuple[SweepResult, pd.DataFrame, Path]:
    """Sweeps `grid` (unless `result` is given), writes `<name>.png` and summary tables."""
    res = result or sweep(base, grid, seeds=seeds, workers=workers)
    summ = res.summary(metric, level=level, by=[x, series])
    png = plot_summary(summ, x, series, out / f"{name}.png", ylabel=ylabel, xlabel=xlabel,
                       title=title, scale=scale)
    summ.to_csv(out / f"{name}.csv", index=False)
    return res, summ, png


def pivot_means(summ: pd.DataFrame, x: str, series: str, scale: float = 1.0) -> pd.DataFrame:
    """A readable table: rows = x values (in sweep order), columns = series, cells = mean."""
    t = summ.pivot_table(index=x, columns=series, values="mean", sort=False) * scale
    return t


def to_markdown(df: pd.DataFrame, digits: int = 2) -> str:
    """A Markdown table of a DataFrame (index included), without extra dependencies."""
    cols = [str(df.index.name or "")] + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in df.iterrows():
        cells = [str(idx)] + [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
