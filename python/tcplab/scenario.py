"""Scenarios: load from TOML, build or modify as dicts, validate in Rust, simulate."""

from __future__ import annotations

import copy
import html
import sys
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.result import Result

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class Scenario:
    """A simulation scenario: a TOML document (as a dict) plus where it came from.

    Every change is validated by the Rust core, which reports the file, key, value and
    reason of any problem as :class:`tcplab.ScenarioError`.
    """

    def __init__(self, data: dict[str, Any], source: str = "<dict>"):
        self._data = copy.deepcopy(data)
        #: Where the scenario came from (a file path or a label), named in error messages.
        self.source = source
        self._summary = _tcplab.check_scenario(source, dict=self._data)

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Reads a scenario file."""
        path = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise _tcplab.ScenarioError(f"{path}: cannot read the file: {e}") from None
        return cls.from_toml_str(text, source=path)

    @classmethod
    def from_toml_str(cls, text: str, source: str = "<string>") -> Scenario:
        """Parses scenario TOML text; syntax errors name `source`."""
        _tcplab.check_scenario(source, text=text)  # precise errors, including syntax
        return cls(tomllib.loads(text), source=source)

    @property
    def name(self) -> str:
        """The scenario's name (its `name` key, or the file stem)."""
        return self._summary["name"]

    @property
    def links(self) -> list[dict[str, Any]]:
        """Each link's parameters and scheduled changes, as the simulator resolved them
        (rates in bit/s, delays in s; see ``tcplab._tcplab.link_timeline``)."""
        return _tcplab.link_timeline(self.source, dict=self._data)

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
        return f"Scenario({s['name']!r}, flows={s['flows']}, links={s['links']})"

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


def simulate(scenario: Scenario | str | Path, seed: int = 1, replication: int = 0) -> Result:
    """Runs a scenario (a :class:`Scenario` or a path to a TOML file) with a seed.

    The same scenario, seed and replication always give identical results.
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_toml(scenario)
    if seed < 0 or replication < 0:
        raise ValueError("seed and replication must be >= 0")
    info, tables = _tcplab.run(scenario.source, seed, replication, dict=scenario._data)
    return Result(info, tables, scenario=scenario)
