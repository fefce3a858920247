"""Results of one run: Arrow tables with pandas and polars views."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tcplab.columns import with_metadata
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
    """Tables of a run. ``tables`` holds pyarrow tables (each field carries its unit and
    description as metadata, see docs/results.md); properties give pandas views and
    :meth:`to_polars` polars ones.

    Every row carries ``scenario``, ``seed`` and ``replication``; ``scenario`` (the
    attribute) is the :class:`tcplab.Scenario` that was run, when known.

    A result is data: the modules above it draw and export it, so it imports none of
    them — the run figure is :func:`tcplab.plot.plot_run`, a link's realised capacity
    as a Mahimahi trace :func:`tcplab.mahimahi.write_run_trace`.
    """

    def __init__(self, info: dict[str, Any], batches: dict[str, pa.RecordBatch],
                 scenario: Any = None):
        self.info = dict(info)
        self.scenario = scenario
        self.tables: dict[str, pa.Table] = {
            k: with_metadata(k, pa.Table.from_batches([b])) for k, b in batches.items()
        }

    @property
    def flows(self):
        """One row per flow: goodput, completion, retransmissions, RTT statistics."""
        return self.tables["flows"].to_pandas()

    @property
    def links(self):
        """One row per link direction: packets sent, delivered and dropped (by cause)."""
        return self.tables["links"].to_pandas()

    def to_polars(self, table: str = "flows"):
        """A table as a polars DataFrame (needs ``pip install polars``)."""
        import polars as pl

        if table not in self.tables:
            raise KeyError(f"unknown table '{table}' (tables: {', '.join(self.tables)})")
        return pl.from_arrow(self.tables[table])

    def series_table(self, name: str) -> pa.Table:
        """A time series as a pyarrow table (see :meth:`series`)."""
        col = _ALIASES.get(name, name)
        known = []
        for table, keys in (("flow_series", _FLOW_KEYS), ("link_series", _LINK_KEYS)):
            t = self.tables[table]
            if col in t.column_names and col not in keys and col not in _STAMP:
                return t.select([*_STAMP, *keys, col])
            known += [c for c in t.column_names if c not in keys and c not in _STAMP]
        trace = self.tables["cc_trace"]
        keys = pc.cast(trace["key"], pa.string())
        if len(trace) and pc.any(pc.equal(keys, col)).as_py():
            sel = trace.filter(pc.equal(keys, col)).drop_columns(["key"])
            return sel.rename_columns([col if c == "value" else c for c in sel.column_names])
        known += sorted(set(keys.to_pylist()))
        raise KeyError(f"unknown series '{name}' (known: {', '.join(known)})")

    def series(self, name: str, frame: str = "pandas"):
        """A time series as a DataFrame (``t_s``, ``flow`` or ``link``/``direction``, value).

        Any column the endpoints or links published: for TCP flows cwnd, ssthresh, srtt,
        rtt, rto, in_flight, delivered, pacing_rate, state, rtos, fast_retransmits; for
        datagram flows sent and delivered; for links queue (packets), queue_bytes,
        delivered_bytes, dropped_queue, dropped_loss, dropped_down. Controller traces
        (e.g. a Wave ``txtime_s``) by their key. ``frame="polars"`` gives a polars
        DataFrame.
        """
        t = self.series_table(name)
        if frame == "polars":
            import polars as pl

            return pl.from_arrow(t)
        if frame != "pandas":
            raise ValueError(f"frame must be 'pandas' or 'polars', not {frame!r}")
        return t.to_pandas()

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
        if "packets_lost" in f:  # real-network runs cannot see their packets' fate
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

    def _repr_html_(self) -> str:
        i = self.info
        head = (f"<b>{html.escape(str(i['scenario']))}</b> seed {i['seed']}, replication "
                f"{i['replication']}: {i['end_time_s']:.3f} s simulated ({i['end_reason']}), "
                f"{i['events']:,} events, digest <code>{i.get('digest', '')}</code>")
        table = self.summary().to_html(index=False, float_format=lambda x: f"{x:.3f}",
                                       na_rep="—", border=0)
        return f"<div>{head}{table}</div>"
