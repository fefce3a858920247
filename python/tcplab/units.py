"""Values with units, parsed by the same Rust code that reads scenario files.

``parse("10MiB")`` → ``Quantity("size", 10485760.0)``; durations are in seconds, rates in
bit/s, sizes in bytes and percentages as fractions. :func:`to_number` gives the value in
the unit a person reads on a plot axis (ms, Mbit/s, MB, %), :func:`sort_key` a key that
orders values of one kind by magnitude ("5ms" before "10ms", "2MiB" before "10MiB").
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tcplab import _tcplab

parse_duration = _tcplab.parse_duration
parse_rate = _tcplab.parse_rate
parse_size = _tcplab.parse_size
parse_probability = _tcplab.parse_probability

#: Display unit and the factor from base units, per kind.
DISPLAY = {
    "number": ("", 1.0),
    "duration": ("ms", 1e3),
    "rate": ("Mbit/s", 1e-6),
    "size": ("MB", 1e-6),
    "probability": ("%", 100.0),
}


class Quantity(NamedTuple):
    """A parsed value: its kind and its value in base units (s, bit/s, bytes, fraction)."""

    kind: str
    value: float


def parse(v: Any) -> Quantity:
    """Parses a number or a unit string; ValueError names the value when nothing fits."""
    if isinstance(v, bool):
        return Quantity("number", float(v))
    if isinstance(v, (int, float)):
        return Quantity("number", float(v))
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a number or a string with a unit")
    kind, value = _tcplab.parse_quantity(v)
    return Quantity(kind, value)


def try_parse(v: Any) -> Quantity | None:
    """:func:`parse`, or None when `v` is not a quantity."""
    try:
        return parse(v)
    except ValueError:
        return None


def to_number(v: Any) -> float | None:
    """The value in display units: durations in ms, rates in Mbit/s, sizes in MB,
    percentages in %, plain numbers as they are; None if `v` is not a quantity."""
    q = try_parse(v)
    return None if q is None else q.value * DISPLAY[q.kind][1]


def common_kind(values) -> str | None:
    """The kind shared by every value, or None if they differ or one is not a quantity."""
    kinds = set()
    for v in values:
        q = try_parse(v)
        if q is None:
            return None
        kinds.add(q.kind)
    return kinds.pop() if len(kinds) == 1 else None


def display_unit(values) -> str:
    """The display unit of values of one kind ("" for plain numbers or mixed kinds)."""
    kind = common_kind(values)
    return DISPLAY[kind][0] if kind else ""


def sort_key(values) -> list[float] | None:
    """Numeric sort keys when all values are quantities of one kind, else None."""
    if common_kind(values) is None:
        return None
    return [parse(v).value for v in values]
