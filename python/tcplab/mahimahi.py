"""Delivery opportunities of a link, and Mahimahi traces of them.

A link's realised capacity — its rate or delivery trace, scheduled changes and outages —
replayed as opportunities of 1500 bytes (``tcplab_link::realised_opportunities``)::

    tcplab.mahimahi.write_trace(sc, "link", "link.mahi", until_s=120)
    tcplab.mahimahi.write_run_trace(res, "link", "link.mahi")   # over the run's length

The file is Mahimahi's format (one millisecond timestamp per line), so ``mm-link`` or a
scenario's ``trace`` key can replay it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tcplab import _tcplab
from tcplab.result import Result
from tcplab.scenario import Scenario

#: Bytes one opportunity carries.
OPPORTUNITY_BYTES = 1500


def _until(scenario: Scenario, until_s: float | None) -> float:
    if until_s is None:
        until_s = scenario._summary.get("duration_s")
    if until_s is None:
        raise ValueError(f"{scenario.source}: the scenario has no duration: give until_s")
    return float(until_s)


def opportunities(scenario: Scenario, link: str, direction: str = "fwd",
                  until_s: float | None = None) -> np.ndarray:
    """Times (s) of the opportunities link `link` offers in ``[0, until_s)``."""
    ns = _tcplab.link_opportunities(scenario._parsed, link, direction,
                                    _until(scenario, until_s))
    return np.asarray(ns, dtype=np.float64) / 1e9


def capacity_bps(scenario: Scenario, link: str, edges, direction: str = "fwd") -> np.ndarray:
    """The link direction's capacity in bit/s in each bin between consecutive `edges` (s):
    opportunities in the bin × 1500 B × 8 / bin width."""
    edges = np.asarray(edges, dtype=np.float64)
    t = opportunities(scenario, link, direction, until_s=float(edges[-1]))
    counts, _ = np.histogram(t, bins=edges)
    return counts * OPPORTUNITY_BYTES * 8.0 / np.diff(edges)


def write_trace(scenario: Scenario, link: str, path: str | Path, direction: str = "fwd",
                until_s: float | None = None) -> Path:
    """Writes the opportunities of ``[0, until_s)`` (default: the scenario's duration) as a
    Mahimahi trace; the last line is `until_s` so the trace repeats with that period."""
    text = _tcplab.mahimahi_trace(scenario._parsed, link, direction, _until(scenario, until_s))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def write_run_trace(res: Result, link: str, path: str | Path, direction: str = "fwd") -> Path:
    """Writes the delivery opportunities link `link` offered during run `res` (from 0 to
    the run's end) as a Mahimahi trace (see :func:`write_trace`)."""
    if res.scenario is None:
        raise ValueError("this result does not know its scenario; use "
                         "tcplab.mahimahi.write_trace(scenario, ...)")
    return write_trace(res.scenario, link, path, direction=direction,
                       until_s=res.info["end_time_s"])
