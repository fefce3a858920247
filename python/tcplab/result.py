"""Results of one run: Arrow tables with pandas views."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tcplab.files import inside

#: Columns that identify a row rather than measure something.
_STAMP = ("scenario", "seed", "replication")
_FLOW_KEYS = ("t_s", "flow")
_LINK_KEYS = ("t_s", "link", "direction")
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

        Any column the endpoints or links published: for TCP flows cwnd, ssthresh, srtt,
        rtt, rto, in_flight, delivered, pacing_rate, state, rtos, fast_retransmits; for
        datagram flows sent and delivered; for links queue (packets), queue_bytes,
        delivered_bytes, dropped_queue, dropped_loss, dropped_down. Controller traces
        (e.g. a Wave ``txtime``) by their key.
        """
        col = _ALIASES.get(name, name)
        for table, keys in (("flow_series", _FLOW_KEYS), ("link_series", _LINK_KEYS)):
            t = self.tables[table]
            if col in t.column_names and col not in keys and col not in _STAMP:
                return t.select([*_STAMP, *keys, col]).to_pandas()
        trace = self.tables["cc_trace"].to_pandas()
        keys = set(trace["key"].astype(str).unique()) if len(trace) else set()
        if col in keys:
            sel = trace[trace["key"].astype(str) == col]
            return sel.rename(columns={"value": col}).drop(columns=["key"]).reset_index(drop=True)
        known = [
            c
            for table, ks in (("flow_series", _FLOW_KEYS), ("link_series", _LINK_KEYS))
            for c in self.tables[table].column_names
            if c not in ks and c not in _STAMP
        ]
        raise KeyError(f"unknown series '{name}' (known: {', '.join([*known, *sorted(keys)])})")

    def to_parquet(self, out_dir: str | Path, prefix: str = "") -> list[Path]:
        """Writes every table as ``<prefix><table>.parquet``; returns the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, table in self.tables.items():
            p = inside(out, f"{prefix}{name}.parquet")
            pq.write_table(table, p)
            paths.append(p)
        return paths

    def summary(self):
        """The per-flow table with the columns a person reads first, in friendly units."""
        f = self.flows
        cols = [c for c in ("flow", "name", "transport", "cc", "completed") if c in f]
        out = f[cols].copy()
        out["delivered_MB"] = f["bytes_delivered"] / 1e6
        out["goodput_Mbps"] = f["goodput_bps"] / 1e6
        out["fct_s"] = f["completion_s"] - f["start_s"]
        out["lost_pkts"] = f["packets_lost"]
        # Transport-specific columns, where some flow has them.
        for col, name, scale in (
            ("retransmission_ratio", "retx_ratio_%", 100),
            ("rtos", "rtos", 1),
            ("fast_retransmits", "fast_retx", 1),
            ("rtt_min_s", "rtt_min_ms", 1e3),
            ("rtt_mean_s", "rtt_mean_ms", 1e3),
            ("owd_p50_s", "owd_p50_ms", 1e3),
            ("owd_p99_s", "owd_p99_ms", 1e3),
        ):
            if col in f:
                out[name] = f[col] * scale
        return out

    def __repr__(self) -> str:
        i = self.info
        return (
            f"Result({i['scenario']!r}, seed={i['seed']}, replication={i['replication']}, "
            f"flows={self.tables['flows'].num_rows}, events={i['events']})"
        )
