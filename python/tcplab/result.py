"""Results of one run: Arrow tables with pandas views."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

#: Columns of the per-flow time series that :meth:`Result.series` accepts.
FLOW_SERIES = (
    "cwnd",
    "ssthresh",
    "srtt_s",
    "rtt_s",
    "rto_s",
    "in_flight",
    "delivered",
    "pacing_rate_bps",
    "state",
)
#: Columns of the per-link time series.
LINK_SERIES = (
    "queue_pkts",
    "queue_bytes",
    "delivered_bytes",
    "dropped_queue",
    "dropped_loss",
    "dropped_down",
)
_ALIASES = {
    "srtt": "srtt_s",
    "rtt": "rtt_s",
    "rto": "rto_s",
    "pacing_rate": "pacing_rate_bps",
    "queue": "queue_pkts",
}


class Result:
    """Tables of a run. ``tables`` holds pyarrow tables; properties give pandas views.

    Every row carries ``scenario``, ``seed`` and ``replication``.
    """

    def __init__(self, info: dict[str, Any], batches: dict[str, pa.RecordBatch]):
        self.info = dict(info)
        self.tables: dict[str, pa.Table] = {
            k: pa.Table.from_batches([b]) for k, b in batches.items()
        }

    @property
    def flows(self):
        """One row per flow: goodput, completion, retransmissions, RTT statistics."""
        return self.tables["flows"].to_pandas()

    @property
    def links(self):
        """One row per link direction: packets sent, delivered and dropped (by cause)."""
        return self.tables["links"].to_pandas()

    def series(self, name: str):
        """A time series as a DataFrame (``t_s``, ``flow`` or ``link``/``direction``, value).

        Flow series: cwnd, ssthresh, srtt, rto, in_flight, delivered, pacing_rate, state.
        Link series: queue (packets), queue_bytes, delivered_bytes, dropped_queue,
        dropped_loss, dropped_down. Controller traces (e.g. a Wave ``txtime``) by their key.
        """
        col = _ALIASES.get(name, name)
        if col in FLOW_SERIES:
            t = self.tables["flow_series"]
            return t.select(["scenario", "seed", "replication", "t_s", "flow", col]).to_pandas()
        if col in LINK_SERIES:
            t = self.tables["link_series"]
            cols = ["scenario", "seed", "replication", "t_s", "link", "direction", col]
            return t.select(cols).to_pandas()
        trace = self.tables["cc_trace"].to_pandas()
        keys = set(trace["key"].astype(str).unique()) if len(trace) else set()
        if col in keys:
            sel = trace[trace["key"].astype(str) == col]
            return sel.rename(columns={"value": col}).drop(columns=["key"]).reset_index(drop=True)
        known = ", ".join([*FLOW_SERIES, *LINK_SERIES, *sorted(keys)])
        raise KeyError(f"unknown series '{name}' (known: {known})")

    def to_parquet(self, out_dir: str | Path, prefix: str = "") -> list[Path]:
        """Writes every table as ``<prefix><table>.parquet``; returns the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, table in self.tables.items():
            p = out / f"{prefix}{name}.parquet"
            pq.write_table(table, p)
            paths.append(p)
        return paths

    def summary(self):
        """The per-flow table with the columns a person reads first, in friendly units."""
        f = self.flows
        out = f[["flow", "name", "cc", "completed"]].copy()
        out["delivered_MB"] = f["bytes_delivered"] / 1e6
        out["goodput_Mbps"] = f["goodput_bps"] / 1e6
        out["fct_s"] = f["completion_s"] - f["start_s"]
        out["retx_ratio_%"] = f["retransmission_ratio"] * 100
        out["rtos"] = f["rtos"]
        out["fast_retx"] = f["fast_retransmits"]
        out["rtt_min_ms"] = f["rtt_min_s"] * 1e3
        out["rtt_mean_ms"] = f["rtt_mean_s"] * 1e3
        return out

    def __repr__(self) -> str:
        i = self.info
        return (
            f"Result({i['scenario']!r}, seed={i['seed']}, replication={i['replication']}, "
            f"flows={self.tables['flows'].num_rows}, events={i['events']})"
        )
