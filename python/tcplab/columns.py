"""The results columns: unit, meaning and valid range of every column of every table.

This is the one reference: :class:`tcplab.Result` stamps it on the Arrow schema (field
metadata ``unit`` and ``description``, kept in Parquet files), summaries use the ranges
to keep confidence intervals valid, and ``docs/results.md`` is generated from it
(``python -m tcplab.columns``; a test checks the file is current).

Every column a Rust component publishes is declared in Rust beside the code that
publishes it (``tcplab_core::ColumnDef``: a transport's summary and samples, a link's,
a queue discipline's or an 802.11 cell's rows, the drivers' labels) and read here through
the binding (``_tcplab.columns()``). Declared here are only the columns Python adds
itself: the run labels it stamps on every row and the sweep's per-run count, and they
may not redefine a Rust column.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from tcplab import _tcplab


class Column(NamedTuple):
    """One column: its unit ("" for labels and counts of things), meaning and valid range."""

    unit: str
    description: str
    low: float = -math.inf
    high: float = math.inf


#: table → column → :class:`Column`, as declared in Rust (in the order a row writes them).
RUST_COLUMNS: dict[str, dict[str, Column]] = {
    table: {name: Column(unit, description, low, high)
            for name, unit, description, low, high in cols}
    for table, cols in _tcplab.columns()}


def _declare(table: str, python: dict[str, Column]) -> dict[str, Column]:
    """`python` (the columns Python adds to `table`), then the Rust-declared columns of
    `table`; a Python entry may not redefine a Rust one."""
    rust = RUST_COLUMNS.get(table, {})
    twice = sorted(set(rust) & set(python))
    if twice:
        raise RuntimeError(f"tcplab.columns: {table} columns {twice} are declared in Rust; "
                           "declare each once")
    return {**python, **rust}


#: The run labels :class:`tcplab.Result` stamps on every row of a simulation's tables
#: (from the run info; the emulator's packet log has none).
_RUN = {
    "scenario": Column("", "scenario name (`name` key or file stem)"),
    "seed": Column("", "master seed of the run", 0),
    "replication": Column("", "replication index under that seed", 0),
}

#: table → column → :class:`Column`.
COLUMNS: dict[str, dict[str, Column]] = {
    table: _declare(table, {} if table == "packets" else _RUN) for table in RUST_COLUMNS}

#: The columns a sweep adds to each flows row.
SWEEP_COLUMNS = {
    "events": Column("", "events the simulator processed in the run", 0),
}
_declare("flows", SWEEP_COLUMNS)


def lookup(name: str, table: str = "flows") -> Column | None:
    """The reference entry of a column (None if the column is not documented)."""
    return COLUMNS.get(table, {}).get(name) or SWEEP_COLUMNS.get(name)


def valid_range(name: str, table: str = "flows") -> tuple[float, float]:
    """The range a column's values (and so their intervals) must lie in."""
    c = lookup(name, table)
    return (c.low, c.high) if c else (-math.inf, math.inf)


#: How to show a unit to a person: (scale, unit shown).
_DISPLAY = {"bit/s": (1e-6, "Mbit/s"), "s": (1.0, "s"), "B": (1e-6, "MB")}


def display(name: str, table: str = "flows") -> tuple[float, str]:
    """Scale and unit for showing a column (goodput in Mbit/s, bytes in MB, ratios in %)."""
    c = lookup(name, table)
    if c is None:
        return 1.0, ""
    if name.endswith("_ratio"):
        return 100.0, "%"
    return _DISPLAY.get(c.unit, (1.0, c.unit))


def with_metadata(name: str, table):
    """Table `name` (a pyarrow.Table) with each documented field's unit and description as
    field metadata (kept when written to Parquet)."""
    import pyarrow as pa

    ref = COLUMNS.get(name, {})
    fields = []
    for f in table.schema:
        c = ref.get(f.name)
        if c is not None:
            f = f.with_metadata({"unit": c.unit, "description": c.description})
        fields.append(f)
    meta = {"tcplab.table": name, "tcplab.reference": "docs/results.md"}
    return table.cast(pa.schema(fields, metadata=meta))


def markdown() -> str:
    """The reference as Markdown (the body of docs/results.md)."""
    out = []
    for table, cols in COLUMNS.items():
        out.append(f"### `{table}`\n\n| column | unit | meaning | valid range |\n|---|---|---|---|")
        for name, c in cols.items():
            rng = "" if (c.low, c.high) == (-math.inf, math.inf) else _range(c)
            out.append(f"| `{name}` | {c.unit} | {c.description} | {rng} |")
        out.append("")
    return "\n".join(out)


def _range(c: Column) -> str:
    hi = "∞" if c.high == math.inf else f"{c.high:g}"
    return f"[{c.low:g}, {hi}{')' if c.high == math.inf else ']'}"


if __name__ == "__main__":  # pragma: no cover
    print(markdown())
