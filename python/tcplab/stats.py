"""Small statistics helpers: Student-t and bootstrap confidence intervals that respect a
metric's valid range, and Jain's fairness index.

Implemented here (regularised incomplete beta by continued fraction, then bisection) so
tcplab needs no SciPy for a 90 % or 95 % interval over five runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else 1.0 + aa / tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else 1.0 + aa / tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t distribution."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t >= 0 else tail


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t distribution (bisection on the CDF)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if df <= 0:
        raise ValueError("degrees of freedom must be > 0")
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def mean_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, int]:
    """Mean and half-width of its two-sided Student-t confidence interval, and n.

    With one value the half-width is NaN (no spread to estimate).
    """
    if not 0.0 < level < 1.0:
        raise ValueError("confidence level must be in (0, 1)")
    xs = [float(v) for v in values if v == v]  # drop NaN
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(xs) / n
    if n == 1:
        return mean, math.nan, 1
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    half = t_ppf(0.5 + level / 2.0, n - 1) * math.sqrt(var / n)
    return mean, half, n


def jain_index(xs: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 for equal shares, 1/n for one taker."""
    xs = [float(x) for x in xs]
    if not xs:
        raise ValueError("no values")
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if sq > 0 else 1.0


def bootstrap_ci(values: Sequence[float], level: float = 0.95, resamples: int = 10_000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean. Its ends are means of resamples, so they
    lie within the observed values and hence within any range the values respect. The
    resampling uses a fixed seed: the same values give the same interval."""
    import numpy as np

    xs = np.asarray([float(v) for v in values if v == v], dtype=float)
    if len(xs) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = xs[rng.integers(0, len(xs), size=(resamples, len(xs)))].mean(axis=1)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [a, 1.0 - a])
    return float(lo), float(hi)


class Interval(NamedTuple):
    """A mean and its confidence interval; `method` says how it was computed."""

    mean: float
    low: float
    high: float
    n: int
    #: "t" (Student-t), "bootstrap" (the t interval left the valid range), "identical"
    #: (every value the same: no spread), "single" (one value) or "none" (no values).
    method: str


def interval(values: Sequence[float], level: float = 0.95,
             bounds: tuple[float, float] = (-math.inf, math.inf)) -> Interval:
    """Mean and a confidence interval that stays inside `bounds` (a metric's valid range).

    The Student-t interval is used when it lies inside the range; otherwise (e.g. a
    retransmission ratio near zero) the percentile bootstrap, whose ends are means of
    resamples and so stay inside it. Identical values get a zero-width interval marked
    "identical": the seeds did not change the result.
    """
    xs = [float(v) for v in values if v == v]
    n = len(xs)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0, "none")
    mean, half, _ = mean_ci(xs, level)
    if n == 1:
        return Interval(mean, math.nan, math.nan, 1, "single")
    if max(xs) == min(xs):
        return Interval(mean, mean, mean, n, "identical")
    lo, hi = mean - half, mean + half
    if lo >= bounds[0] and hi <= bounds[1]:
        return Interval(mean, lo, hi, n, "t")
    lo, hi = bootstrap_ci(xs, level)
    return Interval(mean, lo, hi, n, "bootstrap")


def format_interval(iv: Interval, scale: float = 1.0, digits: int = 2) -> str:
    """"m ± h" for a symmetric interval, "m [lo, hi]" for a bootstrap one, "m" alone when
    the values were identical or single, "—" without values."""
    if iv.n == 0:
        return "—"
    m = f"{iv.mean * scale:.{digits}f}"
    if iv.method in ("identical", "single"):
        return m
    if iv.method == "bootstrap":
        return f"{m} [{iv.low * scale:.{digits}f}, {iv.high * scale:.{digits}f}]"
    return f"{m} ± {(iv.high - iv.mean) * scale:.{digits}f}"
