"""Numeric values of unit strings, for plot axes and sorting ("5ms" → 5.0, "0.5%" → 0.5)."""

from __future__ import annotations

import re

_NUM = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*([A-Za-zµ/%]*)\s*$")
_TIME_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "h": 3.6e6}
_RATE_MBPS = {"bps": 1e-6, "kbps": 1e-3, "mbps": 1.0, "gbps": 1e3}


def to_number(v) -> float | None:
    """Durations in ms, rates in Mbit/s, percentages in %, plain numbers as they are."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if not isinstance(v, str):
        return None
    m = _NUM.match(v)
    if not m:
        return None
    x, unit = float(m.group(1)), m.group(2)
    if unit == "" or unit == "%":
        return x
    if unit in _TIME_MS:
        return x * _TIME_MS[unit]
    if unit.lower() in _RATE_MBPS:
        return x * _RATE_MBPS[unit.lower()]
    return None
