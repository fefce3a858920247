"""One flow three ways: simulated, the Linux kernel's TCP through the emulator, and
tcplab's own endpoints over UDP through the same emulator (``tcplab compare``).

The emulated runs use the scenario's point-to-point ``[link]`` on real packets
(``tcplab.net``); all three report the simulator's flow tables, so one table and one
figure put them side by side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tcplab import _tcplab
from tcplab.result import Result

#: tcplab controller -> Linux TCP_CONGESTION name (the kernel's reno is NewReno with SACK).
KERNEL_CC = {"cubic": "cubic", "bbr": "bbr", "reno": "reno", "newreno": "reno"}
MODES = ("sim", "kernel", "udp")


class CompareResult:
    """``results[mode]`` holds each run's :class:`tcplab.Result`; ``table`` the summary."""

    def __init__(self, results: dict[str, Result], labels: dict[str, str]):
        self.results = results
        self.labels = labels
        self.table = summary_table(results, labels)

    def plot(self, path: str | Path) -> Path:
        """The comparison figure (see :func:`plot_compare`) written to `path`."""
        return plot_compare(self.results, self.labels, path)


class CompareInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`compare`: ``partial`` (a :class:`CompareResult`) holds the
    modes that finished and the emulated run that was cut short, as far as it got."""

    def __init__(self, partial: CompareResult):
        super().__init__("interrupted")
        self.partial = partial


def _quantile(series, q: float):
    s = series.dropna()
    return float(s.quantile(q)) if len(s) else float("nan")


def summary_table(results: dict[str, Result], labels: dict[str, str]):
    """One row per mode: goodput, completion, retransmissions, RTT percentiles.

    RTT percentiles are of the smoothed RTT sampled every interval (the kernel exposes
    only its smoothed RTT, so all three use that). ``emu_late_max_ms`` is how far behind
    the link model's schedule the emulator's worst departure was, ``emu_late_mean_ms``
    and ``emu_late_p99_ms`` the mean and 99th percentile over all departures (NaN when
    simulated)."""
    import pandas as pd

    rows = []
    for mode, res in results.items():
        if res.flows.empty:  # cut short by Ctrl-C before it started
            continue
        f = res.flows.iloc[0]
        fs = res.series("srtt")
        late = late_mean = late_p99 = float("nan")
        if "packets" in res.tables:
            p = res.tables["packets"].to_pandas()
            dep = p[p["event"] == "depart"]["late_ns"]
            if len(dep):
                late = float(dep.max()) / 1e6
                late_mean = float(dep.mean()) / 1e6
                late_p99 = float(dep.quantile(0.99)) / 1e6
        rows.append({
            "mode": mode,
            "implementation": labels[mode],
            "goodput_Mbps": f["goodput_bps"] / 1e6,
            "completion_s": f["completion_s"],
            "retx_segments": int(f["retransmitted_segments"]),
            "retx_%": f["retransmission_ratio"] * 100,
            "rtos": int(f["rtos"]),
            "rtt_min_ms": f["rtt_min_s"] * 1e3,
            "srtt_p50_ms": _quantile(fs["srtt_s"], 0.5) * 1e3,
            "srtt_p95_ms": _quantile(fs["srtt_s"], 0.95) * 1e3,
            "srtt_p99_ms": _quantile(fs["srtt_s"], 0.99) * 1e3,
            # The emulator's worst departure against its schedule: a run on a stalled
            # machine shows here (tens of ms and more), not only in odd results.
            "emu_late_max_ms": late,
            "emu_late_mean_ms": late_mean,
            "emu_late_p99_ms": late_p99,
        })
    return pd.DataFrame(rows)


def compare(scenario, *, flow: int = 0, seed: int = 1, kernel_cc: str | None = None,
            modes=MODES, tcp_ecn: int | None = None,
            pcap: str | Path | None = None) -> CompareResult:
    """Runs flow `flow` of `scenario` in each of `modes` ("sim", "kernel", "udp").

    `tcp_ecn` sets ``net.ipv4.tcp_ecn`` in the emulator's namespace (1: the kernel's TCP
    asks for ECN, so a discipline with ``ecn = true`` marks its packets). `pcap`, a
    directory, gets one pcapng capture per mode, ``pcap_path(pcap, mode)``: every packet
    as it leaves the link (the simulated link's forward and reverse directions, the
    emulator's departures with their ECN bits). Ctrl-C raises
    :class:`CompareInterrupted` with what was done."""
    from tcplab.scenario import Scenario

    sc = scenario if isinstance(scenario, Scenario) else Scenario.from_toml(scenario)
    data = sc.data
    flows = data.get("flow", [])
    if not 0 <= flow < len(flows):
        raise _tcplab.ScenarioError(f"{sc.source}: no [[flow]] number {flow}")
    one = dict(flows[flow])
    one.pop("start", None)
    data["flow"] = [one]
    if data.get("sample") in (None, "ack", "off"):
        data["sample"] = "10ms"
    single = Scenario(data, source=sc.source)
    cc = one.get("cc", "newreno")
    kcc = kernel_cc or KERNEL_CC.get(cc)
    results: dict[str, Result] = {}
    labels: dict[str, str] = {}
    if pcap is not None:
        Path(pcap).mkdir(parents=True, exist_ok=True)
    try:
        _run_modes(single, modes, seed, cc, kcc, tcp_ecn, pcap, results, labels)
    except KeyboardInterrupt:
        raise CompareInterrupted(CompareResult(results, labels)) from None
    return CompareResult(results, labels)


def pcap_path(directory: str | Path, mode: str) -> Path:
    """Where :func:`compare` writes `mode`'s capture in `directory`."""
    return Path(directory) / f"{mode}.pcapng"


def _run_modes(single, modes, seed: int, cc: str, kcc: str | None, tcp_ecn: int | None,
               pcap: str | Path | None, results: dict[str, Result],
               labels: dict[str, str]) -> None:
    """Fills `results` and `labels` mode by mode; an emulated run cut short by Ctrl-C is
    kept as far as it got, then KeyboardInterrupt."""
    from tcplab.net import _scenario_args
    from tcplab.scenario import simulate

    def capture(mode: str) -> str | None:
        return None if pcap is None else str(pcap_path(pcap, mode))

    for mode in modes:
        info: dict = {}
        if mode == "sim":
            # A point-to-point scenario's one link is named "link".
            sim_pcap = None if pcap is None else {"link": "link", "path": capture(mode)}
            results[mode] = simulate(single, seed=seed, pcap=sim_pcap)
            labels[mode] = f"tcplab {cc} (simulated)"
        elif mode == "kernel":
            if kcc is None:
                raise _tcplab.ScenarioError(
                    f"{single.source}: no Linux counterpart of cc = {cc!r}; pass kernel_cc")
            info, tables = _tcplab.emulate_flow(mode="kernel", kernel_cc=kcc, seed=seed, flow=0,
                                                tcp_ecn=tcp_ecn, pcap=capture(mode),
                                                **_scenario_args(single))
            results[mode] = Result(info, tables)
            ecn = " with ECN" if tcp_ecn == 1 else ""
            labels[mode] = f"Linux {kcc}{ecn} (emulated link)"
        elif mode == "udp":
            info, tables = _tcplab.emulate_flow(mode="udp", seed=seed, flow=0,
                                                pcap=capture(mode), **_scenario_args(single))
            results[mode] = Result(info, tables)
            labels[mode] = f"tcplab {cc} over UDP (emulated link)"
        else:
            raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
        if info.get("interrupted"):
            raise KeyboardInterrupt


def plot_compare(results: dict[str, Result], labels: dict[str, str], path) -> Path:
    """cwnd, delivered bytes and smoothed RTT over time, one line per mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for mode, res in results.items():
        cw = res.series("cwnd")
        ax[0].plot(cw["t_s"], cw["cwnd"] / 1e3, lw=0.9, label=labels[mode])
        d = res.series("delivered")
        ax[1].plot(d["t_s"], d["delivered"] / 1e6, lw=0.9)
        r = res.series("srtt")
        ax[2].plot(r["t_s"], r["srtt_s"] * 1e3, lw=0.9)
    ax[0].set_ylabel("cwnd [kB]")
    ax[1].set_ylabel("delivered [MB]")
    ax[2].set_ylabel("smoothed RTT [ms]")
    ax[2].set_xlabel("time since the flow started [s]")
    ax[0].legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _cmd_compare(a: argparse.Namespace) -> int:
    import pandas as pd

    from tcplab.net import available

    modes = tuple(a.only.split(",")) if a.only else MODES
    if a.pcap and not a.out:
        print("tcplab compare: argument --pcap: needs --out DIR (the captures are written "
              "there)", file=sys.stderr)
        return 2
    if any(m != "sim" for m in modes):
        ok, why = available()
        if not ok:
            print(f"tcplab compare: {why}", file=sys.stderr)
            return 1
    from tcplab.cli_output import _emit, _note, _records

    try:
        res = compare(a.scenario, flow=a.flow, seed=a.seed, kernel_cc=a.kernel_cc,
                      modes=modes, tcp_ecn=a.tcp_ecn,
                      pcap=Path(a.out) / f"{Path(a.scenario).stem}-pcap" if a.pcap else None)
    except CompareInterrupted as e:
        # What was measured until Ctrl-C: the table and the tables (no figure: it takes
        # seconds to draw, and the user asked to stop), then the one line.
        if a.out:
            files = _write_tables(a, e.partial)
            _note(a, f"wrote {', '.join(str(p) for p in files)} (interrupted: the runs "
                  "up to Ctrl-C)")
        print("tcplab compare: interrupted", file=sys.stderr)
        return 130
    with pd.option_context("display.width", 180, "display.max_columns", 20):
        text = res.table.to_string(index=False, float_format=lambda x: f"{x:.3f}")
    written = []
    if a.out:
        written = _write_tables(a, res)
        written.append(res.plot(Path(a.out) / f"{Path(a.scenario).stem}-compare.png"))
        _note(a, f"wrote {', '.join(str(p) for p in written)}")
    _emit(a, {"table": _records(res.table), "files": [str(p) for p in written]}, text)
    return 0


def _write_tables(a: argparse.Namespace, res: CompareResult) -> list[Path]:
    """--out: the summary as CSV and each mode's tables as Parquet."""
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(a.scenario).stem
    written = [out / f"{stem}-compare.csv"]
    res.table.to_csv(written[0], index=False)
    for mode, r in res.results.items():
        written += r.to_parquet(out, prefix=f"{stem}-{mode}-")
    return written


def add_commands(sub) -> None:
    """Registers ``tcplab compare`` on the CLI's subparsers."""
    c = sub.add_parser(
        "compare",
        help="one flow simulated, on Linux TCP and on tcplab-over-UDP through the emulator",
        description="Runs one [[flow]] of a point-to-point scenario three ways and prints "
        "one table (goodput, retransmissions, RTT percentiles); --out adds the figure. "
        "The emulated runs need root.",
    )
    c.add_argument("scenario", help="point-to-point scenario TOML file")
    c.add_argument("--flow", type=int, default=0, help="which [[flow]] (default 0)")
    c.add_argument("--seed", type=int, default=1, help="seed (simulation and link streams)")
    c.add_argument("--kernel-cc", help="Linux congestion control (default: the flow's cc)")
    c.add_argument("--only", help="comma-separated subset of sim,kernel,udp")
    c.add_argument("--tcp-ecn", type=int, choices=[0, 1, 2],
                   help="net.ipv4.tcp_ecn in the emulator's namespace (1: the kernel's TCP "
                   "asks for ECN)")
    from tcplab.cli_output import out_path

    c.add_argument("--out", type=out_path,
                   help="directory for the table, the figure and the Parquet tables")
    c.add_argument("--pcap", action="store_true",
                   help="also write each mode's packets as they leave the link to "
                   "OUT/STEM-pcap/MODE.pcapng (sim, kernel, udp) for Wireshark, ECN bits "
                   "included; needs --out")
    c.set_defaults(fn=_cmd_compare)
    from tcplab.net import _json_quiet

    _json_quiet(c)
