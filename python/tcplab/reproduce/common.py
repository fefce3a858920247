"""Shared steps of the reproductions: sweep, summarise, plot, write tables.

Every study writes the same kinds of file into its directory and returns all of them:
``runs.parquet`` (every run, one row per flow or measurement), ``summary.csv`` (the
numbers behind the tables and figures: mean, interval, n, whether the seeds changed it),
``tables.md`` (the tables people read), the figures (``fig*.png``) and, for sweeps,
``failures.parquet`` (runs that failed, with their parameters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tcplab.plot import plot_summary
from tcplab.scenario import Scenario
from tcplab.sweeps import SweepResult, sweep

#: Settings of older releases, merged into the studies' TCP flows so that their
#: documented numbers (docs/reproductions) stay what was checked against each source:
#: tcplab's own defaults (`stack = "tcplab"`, not the `linux` profile TCP flows default
#: to now), no SYN exchange (data from t = 0) and a 64 MiB receive window.
#: The studies have not been re-run with the handshake and the 6 MiB default yet.
NO_HANDSHAKE_64MIB_WINDOW = {"stack": "tcplab", "handshake": False, "rcv_buf": "64MiB"}

#: The two settings of the studies of ns-3 papers (wave, handover): "ns3", ns-3's TCP
#: (`stack = "ns3"`) keeping the studies' MSS of 1448 and 64 MiB buffers; "pinned", the
#: settings of before the stack profiles, the numbers their docs compare with.
NS3_STUDY_SETTINGS = {
    "ns3": {"stack": "ns3", "mss": 1448, "rcv_buf": "64MiB", "snd_buf": "64MiB"},
    "pinned": {"mss": 1460, **NO_HANDSHAKE_64MIB_WINDOW},
}

#: How a figure names each of those settings.
NS3_STUDY_LABELS = {"ns3": "ns-3's TCP, stack = \"ns3\"",
                    "pinned": "pinned settings: tcplab defaults, MSS 1460"}

#: The verdicts of a claim table (see :class:`Claim`).
HOLDS, SHAPE, DIFFERS, NOT_RUN = "holds", "shape only", "differs", "not measured"


@dataclass
class Claim:
    """One row of a study's claim table: what the paper claims (`claim`, with the figure
    or table), its number (`paper`, or "no number" where it gives none), tcplab's measured
    value (`tcplab`), the `verdict` computed from the measured numbers by :func:`verdict`
    and `why`: the reason, citing the experiment in docs/reproductions that shows it."""

    claim: str
    paper: str
    tcplab: str
    verdict: str
    why: str


def verdict(holds: bool | None, shape: bool | None = False) -> str:
    """``holds`` when the paper's number (or inequality) is met within the stated
    tolerance, ``shape only`` when only its direction or ordering is, ``differs``
    otherwise; ``not measured`` when the run did not measure it (None: e.g. a quick run
    without that point)."""
    if holds is None:
        return NOT_RUN
    return HOLDS if holds else SHAPE if shape else DIFFERS


def within(measured: float, paper: float, rel: float) -> bool:
    """`measured` within ±`rel` (a fraction) of `paper`."""
    return (measured is not None and not math.isnan(measured)
            and abs(measured - paper) <= rel * abs(paper))


def claim_table(claims: list[Claim], note: str = "") -> str:
    """The claim table that opens a study's tables.md (Markdown, under "## Claims")."""
    esc = [[c.claim, c.paper, c.tcplab, c.verdict, c.why] for c in claims]
    lines = ["## Claims", "",
             "Each verdict is computed from this run's numbers: **holds** = the paper's "
             "number (or inequality) is met within the tolerance the row states; **shape "
             "only** = its direction or ordering is, not its number; **differs** = "
             "neither; **not measured** = this run did not measure it (e.g. `--quick`)."
             + (f" {note}" if note else ""), "",
             "| claim | paper | tcplab | verdict | why |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(v).replace("|", "/").replace("\n", " ") for v in row)
              + " |" for row in esc]
    counts = pd.Series([c.verdict for c in claims]).value_counts()
    lines += ["", "Verdicts: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".",
              "", "## Tables", ""]
    return "\n".join(lines) + "\n"


def n_seeds(n: int, per: str = "point") -> str:
    """"n = 5 seeds per point" (one seed: "n = 1 seed per point")."""
    return f"n = {n} seed{'' if n == 1 else 's'} per {per}."


def one_seed_note(study: str, asked: int) -> str:
    """The line a study without a random component writes instead of a seed count."""
    return (f"One seed: {study} has no random component, so every seed gives the same "
            f"numbers (tests/python/test_studies.py checks that seeds 1 and 2 give "
            f"identical tables)" + (f"; --seeds {asked} was not needed and ran once."
                                    if asked > 1 else "."))


#: The mark of a table cell whose value every seed reproduced exactly.
SAME = "†"


def same_note(seeds: int) -> str:
    """The footnote explaining :data:`SAME`."""
    return (f"{SAME} identical in all {seeds} seeds: the seeds do not change this result "
            "(nothing random affects it), so it has no confidence interval.")


def run_figure(base: Scenario, grid: dict, x: str, series: str, metric: str, *,
               seeds: int, level: float, workers: int | None, out: Path, name: str,
               ylabel: str, xlabel: str, title: str, scale: float = 1.0,
               result: SweepResult | None = None,
               **plot_kw) -> tuple[SweepResult, pd.DataFrame, Path]:
    """Sweeps `grid` (unless `result` is given) and writes `<name>.png` (`plot_kw`: more
    keywords of :func:`tcplab.plot.plot_summary`, e.g. the paper's values); returns the
    result, the summary (with a ``figure`` column) and the figure's path."""
    res = result or sweep(base, grid, seeds=seeds, workers=workers)
    summ = res.summary(metric, level=level, by=[x, series])
    png = out / f"{name}.png"
    plot_summary(summ, x, series, png, ylabel=ylabel, xlabel=xlabel, title=title,
                 scale=scale, **plot_kw)
    return res, summ.assign(figure=name), png


def write_outputs(out: Path, runs: pd.DataFrame, summary: pd.DataFrame, tables: str,
                  figures: list[Path], failures: pd.DataFrame | None = None) -> list[Path]:
    """Writes the files every study writes (see the module docs); returns every file the
    study wrote, figures included."""
    paths = [*figures, out / "runs.parquet", out / "summary.csv", out / "tables.md"]
    runs.to_parquet(paths[-3], index=False)
    summary.to_csv(paths[-2], index=False)
    paths[-1].write_text(tables)
    if failures is not None:
        paths.append(out / "failures.parquet")
        failures.to_parquet(paths[-1], index=False)
    return paths


def pivot_means(summ: pd.DataFrame, x: str, series: str, scale: float = 1.0,
                digits: int = 2) -> pd.DataFrame:
    """A readable table: rows = x values (in sweep order), columns = series, cells = the
    mean as text, marked :data:`SAME` when every seed gave that value."""
    cell = summ.assign(cell=[
        f"{m * scale:.{digits}f}" + (SAME if same else "")
        for m, same in zip(summ["mean"], summ.get("identical", [False] * len(summ)))])
    return cell.pivot(index=x, columns=series, values="cell").reindex(
        index=list(dict.fromkeys(summ[x])), columns=list(dict.fromkeys(summ[series])))


def to_markdown(df: pd.DataFrame, digits: int = 2) -> str:
    """A Markdown table of a DataFrame (index included), without extra dependencies."""
    cols = [str(df.index.name or "")] + [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in df.iterrows():
        cells = [str(idx)] + [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
