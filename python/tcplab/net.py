"""tcplab on real networks.

- ``emulate(scenario, command)``: runs a command in its own network namespace whose
  traffic crosses the scenario's ``[link]`` on the wall clock (forward = namespace ->
  host); returns the link tables of a simulation plus a per-packet log. Needs root (or
  CAP_NET_ADMIN) and /dev/net/tun.
- ``send(to, flow)`` / ``recv(listen)``: tcplab's own sans-IO TCP endpoints (any
  ``[[flow]]``: cc, recovery, bytes...) over UDP; the sender returns the simulator's flow
  tables.
- ``tcp_send(to, cc)`` / ``tcp_recv(listen)``: the kernel's TCP (cubic, bbr, reno) with
  ``TCP_INFO`` sampled into the same tables.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.catalog import TRANSPORTS
from tcplab.cli_output import out_path
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


class EmulationInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`emulate`: the command's process group was sent SIGINT (and
    killed if still there 300 ms later), and ``result`` holds the link's tables up to
    then."""

    def __init__(self, result: EmulationResult):
        super().__init__("interrupted")
        self.result = result


def emulate(scenario, command: list[str], *, seed: int = 1, timeout: float | None = None,
            realtime: bool = True, packet_log: bool = True,
            tcp_ecn: int | None = None, pcap: str | os.PathLike | None = None
            ) -> EmulationResult:
    """Runs `command` through the scenario's point-to-point link; returns its tables.

    `scenario` is a path, a :class:`tcplab.Scenario` or a dict; ``[[flow]]`` tables are
    optional (the command is the traffic). Loss and jitter draw from the same named
    streams as a simulation with `seed`. `timeout` (seconds) stops the command.
    `tcp_ecn` sets ``net.ipv4.tcp_ecn`` inside the namespace (1: the kernel's TCP asks
    for ECN). `pcap` writes each packet as it leaves the link (its first 80 bytes: the
    headers, CE marks included) to a pcapng file. The command sees ``TCPLAB_EMU_HOST``
    (the host through the link) and ``TCPLAB_EMU_ADDR`` (its own address). Ctrl-C stops
    the command within a second and raises :class:`EmulationInterrupted` with the tables so far.
    """
    if isinstance(command, str):
        raise TypeError("command must be a list of arguments, e.g. ['iperf3', '-c', host]")
    if seed < 0:
        raise ValueError("seed must be >= 0")
    info, tables, code = _tcplab.emulate(argv=list(command), seed=seed, timeout_s=timeout,
                                         realtime=realtime, packet_log=packet_log,
                                         tcp_ecn=tcp_ecn,
                                         pcap=None if pcap is None else os.fspath(pcap),
                                         **_scenario_args(scenario))
    res = EmulationResult(info, tables, code)
    if info.get("interrupted"):
        raise EmulationInterrupted(res)
    return res


class TransferInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`send` after the receiver answered: the receiver was told
    (a CLOSE marked interrupted), and ``result`` holds the tables up to then."""

    def __init__(self, result: TransferResult):
        super().__init__("interrupted")
        self.result = result


class TransferResult(Result):
    """Tables of one real transfer (``flows``, ``flow_series``, ``cc_trace``), as a
    simulation of the same flow would have them."""

    def __repr__(self) -> str:
        f = self.tables["flows"].to_pylist()[0]
        what = f.get("cc") or f.get("transport", "?")
        return (f"TransferResult({what!r}, {f['bytes_delivered']} bytes, "
                f"{f['goodput_bps'] / 1e6:.2f} Mbit/s)")


def send(to: str, flow: dict[str, Any] | None = None, *, sample: str | None = "10ms",
         connect_timeout: float = 5.0, realtime: bool = False,
         source: str = "<send>", key: str | os.PathLike | None = None) -> TransferResult:
    """Sends one flow with tcplab's endpoints over UDP to a :func:`recv` at `to`
    ("HOST:PORT"). `flow` holds ``[[flow]]`` keys (cc, bytes, recovery, stop, cc_params,
    ...; ``stop`` ends an unlimited flow), of any built-in transport (``transport`` =
    "tcp", "tack", "tcp-nc", "tcp-forward", "datagram", "stopwait"): the receiver builds
    its end from the same table, sent in the handshake. Raises NetworkError if the transfer fails or
    the receiver delivered other bytes than were sent.

    `key`: a file holding a pre-shared key (16 bytes or more); every datagram then
    carries a MAC and the receiver must hold the same key (docs/real-network.md).
    Ctrl-C stops within a second: the receiver is told, and :class:`TransferInterrupted`
    (a KeyboardInterrupt) carries the tables measured until then."""
    flow = dict(flow or {})
    flow.setdefault("bytes", "10MB")
    info, tables = _tcplab.udp_send(to, flow, source=source, sample=sample,
                                    connect_timeout_s=connect_timeout, realtime=realtime,
                                    key=None if key is None else os.fspath(key))
    res = TransferResult(info, tables)
    if info.get("interrupted"):
        raise TransferInterrupted(res)
    return res


def recv(listen: str = "0.0.0.0:5201", flow: dict[str, Any] | None = None, *,
         timeout: float | None = None, realtime: bool = False,
         key: str | os.PathLike | None = None) -> dict[str, Any]:
    """Receives one transfer from :func:`send`, of whatever transport the sender's
    handshake names (it carries the flow table the sink is built from); for TCP, `flow`
    may set receiver keys (ack, ack_every, ack_delay, sack). Returns a summary
    (transport, bytes, goodput, input counters, refused HELLOs and released claims).

    HELLOs it cannot serve are refused and counted, and a claim followed by no data
    within 3 s is released, so it keeps waiting for the real sender. `key`: a file
    holding the pre-shared key the sender uses; without one, anyone who reaches the port
    can start a transfer (docs/real-network.md). Ctrl-C stops it at once."""
    return _tcplab.udp_recv(listen, flow, listen_timeout_s=timeout, realtime=realtime,
                            key=None if key is None else os.fspath(key))


def tcp_send(to: str, cc: str = "cubic", *, bytes: str | None = None,
             time: str | None = None, sample: str | None = "10ms",
             name: str = "kernel") -> TransferResult:
    """Kernel TCP bulk transfer with ``TCP_CONGESTION = cc`` to a :func:`tcp_recv`."""
    if bytes is None and time is None:
        bytes = "10MB"
    info, tables = _tcplab.tcp_send(to, cc, bytes=bytes, duration=time, sample=sample,
                                    name=name)
    return TransferResult(info, tables)


def tcp_recv(listen: str = "0.0.0.0:5201", *, timeout: float = 60.0) -> dict[str, Any]:
    """Receives one :func:`tcp_send` transfer, checking every byte."""
    return _tcplab.tcp_recv(listen, timeout_s=timeout)


def _flow_from_args(a: argparse.Namespace) -> dict[str, Any]:
    """A [[flow]] dict: the scenario's flow N (if given), then --cc/--bytes/--time/--set."""
    flow: dict[str, Any] = {}
    if a.scenario:
        from tcplab.scenario import Scenario

        flows = Scenario.from_toml(a.scenario).data.get("flow", [])
        if not 0 <= a.flow < len(flows):
            raise _tcplab.ScenarioError(f"{a.scenario}: no [[flow]] number {a.flow}")
        flow = dict(flows[a.flow])
        flow.pop("start", None)
    if a.transport:
        flow["transport"] = a.transport
    if a.cc:
        flow["cc"] = a.cc
    if a.bytes:
        flow["bytes"] = a.bytes
    if a.time:
        flow["bytes"] = "unlimited"
        flow["stop"] = a.time
    for kv in a.set or []:
        key, sep, value = kv.partition("=")
        if not sep:
            raise _tcplab.ScenarioError(f"--set {kv!r}: expected KEY=VALUE")
        node = flow
        *parents, leaf = key.split(".")
        for k in parents:
            node = node.setdefault(k, {})
        node[leaf] = _literal(value)
    flow.setdefault("bytes", "10MB")
    return flow


def _literal(v: str):
    """'true' -> True, '3' -> 3, '0.5' -> 0.5, anything else stays a string (units)."""
    if v in ("true", "false"):
        return v == "true"
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def _print_flows(a: argparse.Namespace, res: Result, prefix: str, head: dict) -> None:
    """The flows table as text (or, with --json, `head` plus the flows as records);
    --out also writes the Parquet tables and the figure."""
    import pandas as pd

    from tcplab.cli_output import _emit, _note, _records

    with pd.option_context("display.width", 160, "display.max_columns", 20):
        text = res.summary().to_string(index=False, float_format=lambda x: f"{x:.3f}")
    files = []
    if a.out:
        from tcplab.plot import plot_run

        files = res.to_parquet(a.out, prefix=prefix)
        png = Path(a.out) / f"{prefix}plot.png"
        plot_run(res, png)
        files.append(png)
    _emit(a, {**head, "flows": _records(res.flows), "files": [str(p) for p in files]}, text)
    if files:
        _note(a, f"wrote {', '.join(str(p) for p in files)}")


def _cmd_send(a: argparse.Namespace) -> int:
    try:
        res = send(a.to, _flow_from_args(a), sample=a.sample, realtime=a.realtime,
                   source=a.scenario or "<send>", key=a.key)
    except TransferInterrupted as e:
        # What was measured until Ctrl-C: the tables only (a figure takes seconds to
        # draw, and the user asked to stop), then the one line.
        if a.out:
            from tcplab.cli_output import _note

            files = e.result.to_parquet(a.out, prefix="send-")
            _note(a, f"wrote {', '.join(str(p) for p in files)} (interrupted: the "
                  "transfer up to Ctrl-C)")
        print("tcplab send: interrupted", file=sys.stderr)
        return 130
    _report_send(a, res)
    return 0


def _report_send(a: argparse.Namespace, res: TransferResult) -> None:
    from tcplab.cli_output import _note

    i = res.info
    inp = i["input"]
    _note(a, f"# tcplab send -> {a.to}: {i['transport']}, {i['datagrams_sent']} datagrams "
          f"(payload {i['mss']}), "
          f"{i['wall_s']:.2f} s; input accepted {inp['accepted']}, rejected "
          f"{sum(inp.values()) - inp['accepted']}")
    head = {k: i[k] for k in ("datagrams_sent", "mss", "wall_s", "input", "interrupted")}
    _print_flows(a, res, "send-", head)


def _cmd_recv(a: argparse.Namespace) -> int:
    flow = {}
    for kv in a.set or []:
        key, _, value = kv.partition("=")
        flow[key] = _literal(value)
    from tcplab.cli_output import _emit, _note

    _note(a, f"# tcplab recv: listening on {a.listen}")
    r = recv(a.listen, flow or None, timeout=a.timeout, realtime=a.realtime, key=a.key)
    rejected = {k: v for k, v in r["input"].items() if v and k != "accepted"}
    if r["sender_interrupted"]:
        _note(a, "# the sender was interrupted: its transfer ended early")
    if r["released_claims"]:
        _note(a, f"# {r['released_claims']} claim(s) released: a HELLO with no data after it")
    if r["last_refusal"]:
        _note(a, f"# last refused HELLO: {r['last_refusal']}")
    _emit(a, r, f"received {r['bytes_delivered']} bytes ({r['transport']}) from {r['peer']} in "
          f"{r['duration_s']:.3f} s: {r['goodput_bps'] / 1e6:.2f} Mbit/s; "
          f"{r['segments_received']} segments "
          f"({r['duplicate_segments']} duplicate, {r['out_of_order_segments']} out of order), "
          f"{r['acks_sent']} ACKs"
          + (f", {r['ce_received']} CE-marked" if r.get("ce_received") else "")
          + f"; rejected datagrams: {rejected or 'none'}")
    return 0


def _cmd_tcp_send(a: argparse.Namespace) -> int:
    res = tcp_send(a.to, a.cc, bytes=a.bytes, time=a.time, sample=a.sample)
    _print_flows(a, res, f"tcp-{a.cc}-", {"cc": a.cc})
    return 0


def _cmd_tcp_recv(a: argparse.Namespace) -> int:
    from tcplab.cli_output import _emit, _note

    _note(a, f"# tcplab tcp-recv: listening on {a.listen}")
    r = tcp_recv(a.listen, timeout=a.timeout)
    _emit(a, r, f"received {r['bytes']} bytes from {r['peer']} ({r['status']}) in "
          f"{r['duration_s']:.3f} s, {r['acks_sent']} segments sent back")
    return 0 if r["status"] == "ok" else 1


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
    from tcplab.cli_output import _emit, _note, _records

    host = _start_host_command(a.host)
    try:
        res = emulate(a.scenario, command, seed=a.seed, timeout=a.timeout,
                      realtime=not a.no_realtime, packet_log=not a.no_packet_log,
                      tcp_ecn=a.tcp_ecn, pcap=a.pcap)
    except KeyboardInterrupt as e:
        _finish_host_command(host, at_once=True)
        if a.out and isinstance(e, EmulationInterrupted):
            i = e.result.info
            paths = e.result.to_parquet(Path(a.out),
                                        prefix=f"{i['scenario']}-emu-s{i['seed']}-")
            _note(a, f"wrote {', '.join(str(p) for p in paths)} (interrupted: the link up "
                  "to Ctrl-C)")
        print("tcplab emulate: interrupted", file=sys.stderr)
        return 130
    host_exit = _finish_host_command(host)

    i = res.info
    _note(a, f"# {i['scenario']} seed={i['seed']}: emulated {i['end_time_s']:.3f} s on "
          f"{i['ns_addr']} (namespace) <-> {i['host_addr']} (host), command exit "
          f"{res.exit_code}; departures late by p50 {i['late_p50_s'] * 1e6:.0f} us, "
          f"p99 {i['late_p99_s'] * 1e6:.0f} us (realtime={i['realtime']})")
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        _note(a, res.summary().to_string(index=False))
    paths = []
    if a.out:
        out = Path(a.out)
        prefix = f"{i['scenario']}-emu-s{i['seed']}-"
        paths = res.to_parquet(out, prefix=prefix)
        _note(a, f"wrote {', '.join(str(p) for p in paths)}")
    if host is not None:
        _note(a, f"host command exit {host_exit}")
    _emit(a, {"exit_code": res.exit_code, "info": i, "links": _records(res.links),
              "files": [str(p) for p in paths], "host_exit_code": host_exit})
    return res.exit_code or (host_exit or 0)


def _start_host_command(cmd: str | None):
    """`--host CMD`: a shell command on the host side (e.g. the receiver the emulated
    command talks to), started before the emulator and given 10 s to finish after it."""
    if not cmd:
        return None
    import subprocess

    return subprocess.Popen(cmd, shell=True)


def _finish_host_command(proc, at_once: bool = False) -> int | None:
    """Waits up to 10 s for the host command (with `at_once`, after Ctrl-C: 0.2 s after
    SIGTERM), then kills it."""
    if proc is None:
        return None
    import subprocess

    if at_once:
        proc.terminate()
    try:
        return proc.wait(timeout=0.2 if at_once else 10)
    except subprocess.TimeoutExpired:
        if at_once:
            proc.kill()
        else:
            proc.terminate()
        return proc.wait()


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


    s = sub.add_parser("send", help="send one flow with tcplab's endpoints over UDP",
                       description="The iperf-like sender: tcplab's sans-IO endpoints (TCP "
                       "with any cc, recovery, ...; TACK, TCP/NC, TCP-Forward, datagrams, "
                       "stop-and-wait) over UDP to a `tcplab recv`.")
    s.add_argument("to", help="receiver HOST:PORT")
    # Every built-in transport: the driver refuses one without messages, naming it.
    s.add_argument("--transport", choices=list(TRANSPORTS),
                   help="the flow's transport (default: the flow's, else tcp); the "
                   "receiver needs no flag: it builds its end from the sender's handshake")
    s.add_argument("--cc", help="congestion control (default: the flow's, else newreno)")
    s.add_argument("--bytes", help='bytes to send, e.g. "100MB" (default 10MB)')
    s.add_argument("--time", help='send for this long instead, e.g. "10s"')
    s.add_argument("--scenario", help="take the [[flow]] settings from this scenario file")
    s.add_argument("--flow", type=int, default=0, help="which [[flow]] of --scenario")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="any [[flow]] key, e.g. --set recovery=sack --set cc_params.beta=0.7")
    s.add_argument("--sample", default="10ms", help="time-series interval (default 10ms)")
    s.add_argument("--out", type=out_path,
                   help="directory for the Parquet tables and the figure")
    s.add_argument("--realtime", action="store_true",
                   help="run the event loop at SCHED_FIFO priority (precise timers)")
    s.add_argument("--key", metavar="FILE",
                   help="pre-shared key file (16+ bytes): authenticate every datagram; the "
                   "receiver needs the same --key")
    s.set_defaults(fn=_cmd_send)

    r = sub.add_parser("recv", help="receive one `tcplab send` transfer over UDP")
    r.add_argument("--listen", default="0.0.0.0:5201", help="HOST:PORT (default 0.0.0.0:5201)")
    r.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="receiver [[flow]] keys: ack, ack_every, ack_delay, sack")
    r.add_argument("--timeout", type=float, help="give up if no sender comes within S seconds")
    r.add_argument("--realtime", action="store_true", help="SCHED_FIFO event loop")
    r.add_argument("--key", metavar="FILE",
                   help="pre-shared key file: read only datagrams authenticated with it "
                   "(without one, anyone reaching the port can start a transfer)")
    r.set_defaults(fn=_cmd_recv)

    ts = sub.add_parser("tcp-send", help="kernel TCP bulk sender (TCP_CONGESTION, TCP_INFO)")
    ts.add_argument("to", help="receiver HOST:PORT (a `tcplab tcp-recv`)")
    ts.add_argument("--cc", default="cubic", help="kernel congestion control (cubic, bbr, reno)")
    ts.add_argument("--bytes", help='bytes to send (default 10MB)')
    ts.add_argument("--time", help='send for this long instead, e.g. "10s"')
    ts.add_argument("--sample", default="10ms", help="TCP_INFO sampling interval")
    ts.add_argument("--out", type=out_path,
                   help="directory for the Parquet tables and the figure")
    ts.set_defaults(fn=_cmd_tcp_send)

    tr = sub.add_parser("tcp-recv", help="kernel TCP receiver for one `tcplab tcp-send`")
    tr.add_argument("--listen", default="0.0.0.0:5201", help="HOST:PORT (default 0.0.0.0:5201)")
    tr.add_argument("--timeout", type=float, default=60.0, help="seconds to wait (default 60)")
    tr.set_defaults(fn=_cmd_tcp_recv)

    for sp in (s, r, ts, tr):
        _json_quiet(sp)


def _json_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print a machine-readable JSON summary instead of text")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def _emulate_options(e: argparse.ArgumentParser) -> None:
    e.add_argument("--seed", type=int, default=1, help="seed of the loss/jitter streams")
    e.add_argument("--out", type=out_path,
                   help="directory for the Parquet tables (links, series, packets)")
    e.add_argument("--timeout", type=float, help="stop the command after this many seconds")
    e.add_argument("--no-realtime", action="store_true",
                   help="do not ask for SCHED_FIFO priority for the packet loop")
    e.add_argument("--no-packet-log", action="store_true", help="skip the per-packet log")
    e.add_argument("--pcap", metavar="FILE",
                   help="write each packet as it leaves the link to FILE (pcapng, first 80 "
                   "bytes: the headers, ECN field included)")
    e.add_argument("--tcp-ecn", type=int, choices=[0, 1, 2],
                   help="net.ipv4.tcp_ecn inside the namespace (1: the kernel's TCP asks "
                   "for ECN; default: the kernel's, 2, accept only)")
    e.add_argument("--host", metavar="CMD",
                   help="a shell command to run on the host side meanwhile (e.g. the "
                   "receiver: 'tcplab recv --listen 0.0.0.0:5201'); waited for 10 s after")
    _json_quiet(e)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(os.EX_USAGE)
