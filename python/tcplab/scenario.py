"""Scenarios: load from TOML, build or modify as dicts, validate in Rust, simulate."""

from __future__ import annotations

import copy
import html
import math
import numbers
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.files import read_text
from tcplab.result import Result

#: Links a Scenario's repr names before it only counts the rest.
REPR_LINKS = 8


class Scenario:
    """A simulation scenario: a TOML document (as a dict) plus where it came from.

    Every change is validated by the Rust core, which reports the file, key, value and
    reason of any problem as :class:`tcplab.ScenarioError`.
    """

    def __init__(self, data: dict[str, Any], source: str = "<dict>", *,
                 _parsed: Any = None):
        # Parsed and validated once, in Rust; runs, figures and traces reuse the result.
        # Parsing first also refuses cycles and deep nesting deepcopy would recurse into.
        if _parsed is None:
            _parsed, _ = _tcplab.parse_scenario(source, dict=data)
        self._parsed = _parsed
        self._summary = _parsed.summary()
        self._data = copy.deepcopy(data)
        #: Where the scenario came from (a file path or a label), named in error messages.
        self.source = source

    def __getstate__(self) -> dict[str, Any]:
        # The parsed form lives in Rust; a copy in another process parses the dict again.
        return {"data": self._data, "source": self.source}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["data"], state["source"])

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Reads a scenario file."""
        return cls.from_toml_str(read_text(path), source=str(path))

    @classmethod
    def from_toml_str(cls, text: str, source: str = "<string>") -> Scenario:
        """Parses scenario TOML text; syntax errors name `source`."""
        text = text.removeprefix("\ufeff")  # a byte order mark
        parsed, data = _tcplab.parse_scenario(source, text=text)
        return cls(data, source=source, _parsed=parsed)

    @property
    def name(self) -> str:
        """The scenario's name (its `name` key, or the file stem)."""
        return self._summary["name"]

    @property
    def links(self) -> list[dict[str, Any]]:
        """Each link's parameters and scheduled changes, as the simulator resolved them
        (rates in bit/s, delays in s; see ``tcplab._tcplab.link_timeline``)."""
        return _tcplab.link_timeline(self._parsed)

    @property
    def data(self) -> dict[str, Any]:
        """A copy of the scenario as a dict."""
        return copy.deepcopy(self._data)

    def with_values(self, **dotted: Any) -> Scenario:
        """Returns a copy with values set by dotted path.

        ``sc.with_values(**{"link.delay": "5ms", "flow.0.cc": "reno"})``; a number in the
        path indexes a list (``flow.0`` is the first ``[[flow]]``; ``flow.*`` sets every one).
        """
        data = copy.deepcopy(self._data)
        for path, value in dotted.items():
            _set_path(data, path.split("."), value, path)
        return Scenario(data, source=self.source)

    def __repr__(self) -> str:
        s = self._summary
        links = s["links"]
        if len(links) > REPR_LINKS:  # a 100,000-flow dumbbell printed a 3.7 MB line
            shown = ", ".join(map(repr, links[:REPR_LINKS]))
            return (f"Scenario({s['name']!r}, flows={s['flows']}, links=[{shown}, ...] "
                    f"({len(links)} links))")
        return f"Scenario({s['name']!r}, flows={s['flows']}, links={links})"

    def _repr_html_(self) -> str:
        s = self._summary
        esc = html.escape
        dur = f", duration {s['duration_s']:g} s" if s.get("duration_s") else ""
        rows = []
        for ln in self.links:
            f = ln["fwd"]
            rate = (f"{f['rate_bps'] / 1e6:g} Mbit/s" if f["rate_bps"] is not None
                    else f"trace (mean {f['trace_mean_rate_bps'] / 1e6:.3g} Mbit/s)")
            rows.append(f"<tr><td>link</td><td>{esc(ln['name'])}</td><td>{rate}, "
                        f"{f['delay_s'] * 1e3:g} ms, {ln['duplex']} duplex, "
                        f"{len(ln['changes'])} scheduled change(s)</td></tr>")
        for i, fl in enumerate(self._data.get("flow", [])):
            what = fl.get("transport", "tcp")
            if what == "tcp":
                what = f"tcp/{fl.get('cc', 'newreno')}"
            detail = ", ".join(f"{k} = {v}" for k, v in fl.items()
                               if k not in ("name", "cc", "transport"))
            rows.append(f"<tr><td>flow</td><td>{esc(str(fl.get('name', f'flow{i}')))}</td>"
                        f"<td>{esc(what)}: {esc(detail)}</td></tr>")
        return (f"<div><b>{esc(s['name'])}</b> ({esc(self.source)}{dur})"
                f"<table>{''.join(rows)}</table></div>")


def _set_path(node: Any, parts: list[str], value: Any, full: str) -> None:
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        if head == "*":
            if not rest:
                raise _tcplab.ScenarioError(f"{full}: '*' must be followed by a key")
            for item in node:
                _set_path(item, rest, value, full)
            return
        try:
            if not (head.isascii() and head.isdigit()):  # no "-1", "+0", " 0"
                raise ValueError(head)
            i = int(head)
            target = node[i]
        except (ValueError, IndexError):
            raise _tcplab.ScenarioError(
                f"{full}: '{head}' is not an index of a list of {len(node)}"
            ) from None
        if not rest:
            node[i] = value
        else:
            _set_path(target, rest, value, full)
        return
    if not isinstance(node, dict):
        raise _tcplab.ScenarioError(f"{full}: cannot set a key inside a {type(node).__name__}")
    if not rest:
        node[head] = value
        return
    if head not in node:
        node[head] = {}
    _set_path(node[head], rest, value, full)


#: Seeds are unsigned 64-bit, replications unsigned 32-bit (as in the Rust core).
MAX_SEED, MAX_REPLICATION = 2**64 - 1, 2**32 - 1


def check_whole(value: Any, what: str, top: int) -> int:
    """`value` as an int in [0, top]: TypeError for other types, ValueError out of range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be a whole number from 0 to {top}, "
                        f"not {type(value).__name__} {value!r}")
    if not 0 <= value <= top:
        raise ValueError(f"{what} must be a whole number from 0 to {top}, got {value}")
    return value


def check_time_limit(value: Any) -> float | None:
    """`time_limit` of `simulate` and `sweep`: None (no limit) or a finite number of
    seconds > 0; TypeError or ValueError otherwise (-1, nan and inf are not limits)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"time_limit must be a number of seconds (or None), "
                        f"not {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"time_limit must be a finite number of seconds > 0 (or None), "
                         f"not {value!r}")
    return float(value)


def check_memory_limit(value: Any) -> int | None:
    """`memory_limit` of `sweep`: None (the default share) or a whole number of bytes > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"memory_limit must be a whole number of bytes (or None), "
                        f"not {type(value).__name__} {value!r}")
    if value <= 0:
        raise ValueError(f"memory_limit must be a whole number of bytes > 0 (or None), "
                         f"not {value!r}")
    return int(value)


#: Keys of ``simulate(..., pcap={...})`` and their defaults (None: required).
PCAP_KEYS = {"link": None, "path": None, "direction": "both", "snaplen": 80}


def _pcap_args(pcap: dict[str, Any] | None) -> dict[str, Any]:
    """``simulate``'s `pcap` dict as keyword arguments of ``_tcplab.run``."""
    if pcap is None:
        return {}
    if not isinstance(pcap, dict):
        raise TypeError(f"pcap must be a dict like {{'link': 'bottleneck', 'path': "
                        f"'run.pcapng'}}, not {type(pcap).__name__}")
    unknown = sorted(set(pcap) - set(PCAP_KEYS))
    if unknown:
        raise ValueError(f"pcap: unknown key(s) {', '.join(map(repr, unknown))} "
                         f"(known: {', '.join(PCAP_KEYS)})")
    args = {**PCAP_KEYS, **pcap}
    for key in ("link", "path"):
        if args[key] is None:
            raise ValueError(f"pcap: {key!r} is required")
    if not isinstance(args["link"], str):
        raise TypeError(f"pcap: 'link' must be a link name, not {args['link']!r}")
    if not isinstance(args["path"], (str, Path)):
        raise TypeError(f"pcap: 'path' must be a file path, not {args['path']!r}")
    check_whole(args["snaplen"], "pcap: 'snaplen'", 2**32 - 1)
    return {"pcap_link": args["link"], "pcap_path": str(args["path"]),
            "pcap_direction": args["direction"], "pcap_snaplen": args["snaplen"]}


def simulate(scenario: Scenario | str | Path, seed: int = 1, replication: int = 0,
             time_limit: float | None = None, pcap: dict[str, Any] | None = None) -> Result:
    """Runs a scenario (a :class:`Scenario` or a path to a TOML file) with a seed.

    The same scenario, seed and replication always give identical results. With
    `time_limit` (seconds of wall-clock time) a run that takes longer stops with
    ``TimeoutError``. With ``pcap={"link": NAME, "path": FILE}`` (optionally
    ``"direction": "fwd" | "rev" | "both"`` and ``"snaplen": bytes``, default 80) the
    packets that link carries are written to FILE as pcapng for Wireshark; see
    docs/results.md. ``Result.info["pcap"]`` then counts them per direction.
    """
    check_whole(seed, "seed", MAX_SEED)
    check_whole(replication, "replication", MAX_REPLICATION)
    time_limit = check_time_limit(time_limit)
    capture = _pcap_args(pcap)
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_toml(scenario)
    info, tables = _tcplab.run(scenario._parsed, seed, replication, time_limit_s=time_limit,
                               **capture)
    return Result(info, tables, scenario=scenario)
