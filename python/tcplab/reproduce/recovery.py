"""Recovery time after a disruption, defined precisely so tables can be compared.

A flow has *recovered* at the first time t ≥ t_r + W at which its goodput over the window
(t − W, t] reaches `fraction` (default 90 %) of the new link's goodput capacity, where t_r
is the reconnection time and W = max(min_window, k · RTT_new) (default 1 s and 4 RTTs).
Recovery time = t − t_r. The window makes "sustained" precise: one lucky burst does not
count, and it scales with the path so a satellite RTT is not judged on a millisecond.
"""

from __future__ import annotations

import math

import numpy as np


def recovery_time(t_s, delivered_bytes, reconnect_s: float, capacity_bps: float,
                  rtt_s: float, fraction: float = 0.9, min_window_s: float = 1.0,
                  rtts: float = 4.0) -> float:
    """Seconds from reconnection until recovered (see module docs); NaN if never."""
    t = np.asarray(t_s, dtype=float)
    d = np.asarray(delivered_bytes, dtype=float)
    if len(t) < 2:
        return math.nan
    w = max(min_window_s, rtts * rtt_s)
    target = fraction * capacity_bps
    # Delivered bytes at t - W by linear interpolation on the sampled series.
    start = np.interp(t - w, t, d, left=d[0])
    rate = (d - start) * 8.0 / w
    ok = (t >= reconnect_s + w) & (rate >= target)
    idx = np.flatnonzero(ok)
    return float(t[idx[0]] - reconnect_s) if len(idx) else math.nan
