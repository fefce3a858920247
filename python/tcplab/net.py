"""tcplab on real networks: the TUN link emulator (and the real-network tools).

``tcplab.net.emulate(scenario, ["iperf3", "-c", "$TCPLAB_EMU_HOST"])`` runs a command in
its own network namespace whose traffic crosses the scenario's ``[link]`` on the wall
clock, and returns the link tables of a simulation plus a per-packet log. The forward
direction of the link is namespace -> host. Needs root (or CAP_NET_ADMIN) and
/dev/net/tun.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.result import Result

NetworkError = _tcplab.NetworkError


def available() -> tuple[bool, str | None]:
    """(True, None) when the emulator can run here, else (False, the reason)."""
    return _tcplab.emulator_available()


class EmulationResult(Result):
    """Tables of one emulation: ``links``, ``link_series`` (as in a simulation) and the
    per-packet log ``packets`` (t_s, direction, event, bytes, delay_ns, late_ns)."""

    def __init__(self, info: dict[str, Any], batches, exit_code: int):
        super().__init__(info, batches)
        self.exit_code = exit_code

    @property
    def packets(self):
        """One row per packet event: arrive, depart, drop_queue, drop_loss, drop_down."""
        return self.tables["packets"].to_pandas()

    def summary(self):
        """The links table in friendly units, one row per direction."""
        lk = self.links
        out = lk[["link", "direction", "offered_pkts", "delivered_pkts"]].copy()
        out["delivered_MB"] = lk["sent_bytes"] / 1e6
        for c in ("dropped_queue", "dropped_loss", "dropped_down", "max_queue_pkts"):
            out[c] = lk[c]
        return out

    def __repr__(self) -> str:
        i = self.info
        return (f"EmulationResult({i['scenario']!r}, seed={i['seed']}, "
                f"exit_code={self.exit_code}, {i['end_time_s']:.2f} s)")


def _scenario_args(scenario) -> dict[str, Any]:
    from tcplab.scenario import Scenario

    if isinstance(scenario, Scenario):
        return {"source": scenario.source, "dict": scenario.data}
    if isinstance(scenario, dict):
        return {"source": "<dict>", "dict": scenario}
    path = str(scenario)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise _tcplab.ScenarioError(f"{path}: cannot read the file: {e}") from None
    return {"source": path, "text": text}


def emulate(scenario, command: list[str], *, seed: int = 1, timeout: float | None = None,
            realtime: bool = True, packet_log: bool = True) -> EmulationResult:
    """Runs `command` through the scenario's point-to-point link; returns its tables.

    `scenario` is a path, a :class:`tcplab.Scenario` or a dict; ``[[flow]]`` tables are
    optional (the command is the traffic). Loss and jitter draw from the same named
    streams as a simulation with `seed`. `timeout` (seconds) stops the command.
    The command sees ``TCPLAB_EMU_HOST`` (the host through the link) and
    ``TCPLAB_EMU_ADDR`` (its own address).
    """
    if isinstance(command, str):
        raise TypeError("command must be a list of arguments, e.g. ['iperf3', '-c', host]")
    if seed < 0:
        raise ValueError("seed must be >= 0")
    info, tables, code = _tcplab.emulate(argv=list(command), seed=seed, timeout_s=timeout,
                                         realtime=realtime, packet_log=packet_log,
                                         **_scenario_args(scenario))
    return EmulationResult(info, tables, code)


def _split_command(a: argparse.Namespace) -> list[str]:
    """Options may follow SCENARIO up to the ``--``: argparse's REMAINDER hands them over
    with the command, so they are parsed here (the same options, once more)."""
    rest = list(a.command)
    if "--" in rest:
        i = rest.index("--")
        opts, rest = rest[:i], rest[i + 1:]
        if opts:
            p = argparse.ArgumentParser(prog="tcplab emulate SCENARIO")
            _emulate_options(p)
            p.parse_args(opts, namespace=a)
    return rest


def _cmd_emulate(a: argparse.Namespace) -> int:
    import pandas as pd

    command = _split_command(a)
    if not command:
        print("tcplab emulate: give a command after --, e.g. "
              "tcplab emulate link.toml -- sh -c 'iperf3 -c $TCPLAB_EMU_HOST'", file=sys.stderr)
        return 2
    ok, why = available()
    if not ok:
        print(f"tcplab emulate: {why}", file=sys.stderr)
        return 1
    res = emulate(a.scenario, command, seed=a.seed, timeout=a.timeout,
                  realtime=not a.no_realtime, packet_log=not a.no_packet_log)
    i = res.info
    print(f"# {i['scenario']} seed={i['seed']}: emulated {i['end_time_s']:.3f} s on "
          f"{i['ns_addr']} (namespace) <-> {i['host_addr']} (host), command exit "
          f"{res.exit_code}; departures late by p50 {i['late_p50_s'] * 1e6:.0f} us, "
          f"p99 {i['late_p99_s'] * 1e6:.0f} us (realtime={i['realtime']})", file=sys.stderr)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(res.summary().to_string(index=False), file=sys.stderr)
    if a.out:
        out = Path(a.out)
        prefix = f"{i['scenario']}-emu-s{i['seed']}-"
        paths = res.to_parquet(out, prefix=prefix)
        print(f"wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return res.exit_code


def add_commands(sub) -> None:
    """Registers the real-network subcommands on the CLI's subparsers."""
    e = sub.add_parser(
        "emulate",
        help="run a command through the scenario's link on real packets (needs root)",
        description="Runs COMMAND in a network namespace whose traffic crosses the "
        "scenario's [link] (forward = namespace -> host). The command reaches the host at "
        "$TCPLAB_EMU_HOST.",
    )
    e.add_argument("scenario", help="scenario TOML file (its [link]; [[flow]] optional)")
    e.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    _emulate_options(e)
    e.set_defaults(fn=_cmd_emulate)


def _emulate_options(e: argparse.ArgumentParser) -> None:
    e.add_argument("--seed", type=int, default=1, help="seed of the loss/jitter streams")
    e.add_argument("--out", help="directory for the Parquet tables (links, series, packets)")
    e.add_argument("--timeout", type=float, help="stop the command after this many seconds")
    e.add_argument("--no-realtime", action="store_true",
                   help="do not ask for SCHED_FIFO priority for the packet loop")
    e.add_argument("--no-packet-log", action="store_true", help="skip the per-packet log")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(os.EX_USAGE)
