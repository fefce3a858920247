"""The ``tcplab`` command line."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from tcplab import _tcplab
from tcplab.cli_output import _emit, _note, _records, out_path
from tcplab.scenario import MAX_SEED


class _Usage(Exception):
    """A bad command-line value found after parsing (e.g. an --out that cannot be written)."""


def _out_dir(a: argparse.Namespace) -> Path | None:
    """The --out directory, created and proven writable before anything runs."""
    from tcplab.files import check_out_dir

    if a.out is None:
        return None
    try:
        return check_out_dir(a.out)
    except ValueError as e:
        raise _Usage(f"argument --out: {e}") from None


def _cmd_run(a: argparse.Namespace) -> int:
    from tcplab.files import read_text
    from tcplab.manifest import write_manifest
    from tcplab.scenario import Scenario

    sc = Scenario.from_toml(a.scenario)
    pcap = _pcap_target(a, sc)
    out = _out_dir(a)
    runs: list[dict] = []
    written_all: list[Path] = []

    def manifest(**extra):
        write_manifest(out, "run", f"{sc.name}-s{a.seed}", written_all, argv=a.argv,
                       scenario_file=a.scenario,
                       scenario_text=read_text(a.scenario), seeds=[a.seed],
                       replications=a.replications, **extra)

    try:
        _run_replications(a, sc, pcap, out, runs, written_all)
    except KeyboardInterrupt:
        if out and written_all:  # the replications that finished are kept, and said so
            manifest(interrupted=True)
        raise
    incomplete = sum(1 for r in runs if r["warning"])
    _emit(a, {"runs": runs})
    if out:
        manifest()
    return 1 if (a.strict and incomplete) else 0


def _run_replications(a, sc, pcap, out, runs: list, written_all: list) -> None:
    """Runs, prints and writes each replication as it finishes; nothing is held back."""
    import pandas as pd

    from tcplab.files import inside
    from tcplab.plot import plot_run
    from tcplab.scenario import simulate

    for rep in range(a.replications):
        prefix = f"{sc.name}-s{a.seed}-r{rep}-"
        capture = None
        if pcap:
            link, direction = pcap
            tail = "" if direction == "both" else f"-{direction}"
            capture = {"link": link, "direction": direction, "snaplen": a.snaplen,
                       "path": inside(out, f"{prefix}{link}{tail}.pcapng")}
        res = simulate(sc, seed=a.seed, replication=rep, pcap=capture)
        written: list[Path] = [capture["path"]] if capture else []
        if out:
            written += res.to_parquet(out, prefix=prefix)
            if not a.no_plot:
                written.append(out / f"{prefix}plot.png")
                plot_run(res, written[-1])
            written_all += written
            _note(a, f"wrote {', '.join(map(str, written))}")
        i = res.info
        note = None
        if i.get("series_stride", 1) > 1:
            note = (f"the series were thinned to every {i['series_stride']}th sample to "
                    "stay within series_rows")
            if not (a.json or a.quiet):
                print(f"tcplab run: note: {note}", file=sys.stderr)
        warning = incomplete_warning(res)
        if warning and not a.json:
            print(f"tcplab run: warning: {warning}", file=sys.stderr)
        runs.append({**i, "flows": _records(res.flows), "files": written,
                     "warning": warning, "note": note})
        if not (a.json or a.quiet):
            table = res.summary().assign(replication=rep)
            with pd.option_context("display.width", 160, "display.max_columns", 20):
                print(f"# {i['scenario']} seed={i['seed']} replication={rep}: simulated "
                      f"{i['end_time_s']:.3f} s, {i['events']} events, digest {i['digest']}\n"
                      + table.to_string(index=False, float_format=lambda x: f"{x:.3f}"),
                      flush=True)


def incomplete_warning(res) -> str | None:
    """Says which flows with a byte count did not complete, and why the run ended; None
    when every such flow completed."""
    f = res.flows
    bad = f[f["bytes_target"].notna() & ~f["completed"].astype(bool)]
    if not len(bad):
        return None
    i = res.info
    first = bad.iloc[0]
    return (f"scenario '{i['scenario']}' (seed {i['seed']}, replication {i['replication']}) "
            f"ended by {i['end_reason']} at {i['end_time_s']:.3f} s with {len(bad)} of "
            f"{int(f['bytes_target'].notna().sum())} finite flow(s) incomplete (flow "
            f"'{first['name']}': {int(first['bytes_delivered']):,} of "
            f"{int(first['bytes_target']):,} B delivered)")


def _pcap_target(a: argparse.Namespace, sc) -> tuple[str, str] | None:
    """--pcap LINK[:fwd|rev] as (link, direction), checked before anything runs."""
    if a.pcap is None:
        return None
    link, _, direction = a.pcap.rpartition(":")
    if not link or direction not in ("fwd", "rev", "both"):
        link, direction = a.pcap, "both"
    if not a.out:
        raise _Usage("argument --pcap: needs --out DIR (the capture is written there)")
    links = sc._summary["links"]
    if link not in links:
        raise _Usage(f"argument --pcap: scenario '{sc.name}' has no link named {link!r} "
                     f"(its links: {', '.join(links)})")
    return link, direction


def _cmd_check(a: argparse.Namespace) -> int:
    from tcplab.scenario import Scenario

    sc = Scenario.from_toml(a.scenario)
    sc._parsed.check_memory()  # what `run` checks before it starts
    _emit(a, {"ok": True, "source": sc.source, **sc._summary}, f"ok: {sc!r}")
    return 0


def run_plan(plan, out: Path | None, workers: int | None, executor: str, *,
             plan_file: str = "plan", argv: list[str] | None = None,
             progress: bool | None = None, **limits):
    """Checks a sweep plan, runs it, writes tables and plots under `out` (finished runs go
    to ``<name>-runs.parts/`` as they complete until the table is written); returns
    (result, summaries, the files written). `limits`: time_limit, memory_limit, client
    (see `sweep`)."""
    import shutil

    import pandas as pd

    from tcplab.files import inside, read_text
    from tcplab.manifest import write_manifest
    from tcplab.plan import check_plan
    from tcplab.plot import plot_summary
    from tcplab.sweeps import SweepInterrupted, sweep

    sc = check_plan(plan, plan_file)
    parts = inside(out, f"{plan.name}-runs.parts") if out else None

    def manifest(files, res, **extra):
        write_manifest(out, "sweep", plan.name, files, argv=argv, plan_file=plan_file,
                       plan_text=read_text(plan_file) if Path(plan_file).is_file() else None,
                       scenario_file=str(plan.scenario),
                       scenario_text=read_text(plan.scenario), seeds=plan.seeds,
                       replications=plan.replications, executor=executor,
                       runs=len(res.runs), failures=len(res.failures), **extra)

    try:
        res = sweep(sc, plan.grid, seeds=plan.seeds, replications=plan.replications,
                    workers=workers, executor=executor, stream_to=parts, progress=progress,
                    **limits)
    except SweepInterrupted as e:
        # What finished is kept as the runs table (`tcplab report` reads it), not only
        # as the parts folder.
        if out:
            files = e.partial.to_parquet(out, prefix=f"{plan.name}-")
            shutil.rmtree(parts, ignore_errors=True)
            manifest(files, e.partial, interrupted=True)
            print(f"tcplab sweep: interrupted: wrote the {len(e.partial.runs)} row(s) of "
                  f"the runs that finished to {files[0]}", file=sys.stderr)
        raise
    files: list[Path] = []
    summaries = {}
    for m in plan.metrics:
        if len(res.runs):
            summaries[m] = res.summary(m, level=plan.level)
    if out:
        files += res.to_parquet(out, prefix=f"{plan.name}-")
        shutil.rmtree(parts, ignore_errors=True)
        if summaries:
            files.append(inside(out, f"{plan.name}-summary.parquet"))
            pd.concat(summaries.values(), ignore_index=True).to_parquet(files[-1], index=False)
        for i, p in enumerate(plan.plots):
            if len(res.runs) == 0:
                break
            by = [p.x] + ([p.series] if p.series else [])
            s = res.summary(p.y, level=plan.level, by=by)
            name = f"{plan.name}-{i}-{p.y}-vs-{p.x}".replace("*", "all").replace(".", "_")
            files.append(inside(out, f"{name}.png"))
            plot_summary(s, p.x, p.series, files[-1], ylabel=p.ylabel, xlabel=p.xlabel,
                         title=p.title, scale=p.scale)
        manifest(files, res)
    return res, summaries, files


def readable_summary(s):
    """A summary table in display units (goodput in Mbit/s, ratios in %), with the unit in
    the column names and deterministic points shown without an interval."""
    from tcplab.columns import display

    metric = str(s["metric"].iloc[0])
    scale, unit = display(metric)
    t = s.drop(columns=["metric", "level", "half_width", "identical"], errors="ignore").copy()
    suffix = f" [{unit}]" if unit else ""
    for c in ("mean", "ci_low", "ci_high"):
        t[c] = t[c] * scale
    same = s["identical"].to_numpy(dtype=bool) if "identical" in s else None
    if same is not None:
        t.loc[same, ["ci_low", "ci_high"]] = float("nan")
    return t.rename(columns={c: f"{c}{suffix}" for c in ("mean", "ci_low", "ci_high")})


def _cmd_sweep(a: argparse.Namespace) -> int:
    import pandas as pd

    from tcplab.plan import load_plan

    plan = load_plan(a.plan)
    out = _out_dir(a)
    limits = {"time_limit": a.time_limit, "memory_limit": a.memory_limit}
    executor = a.executor
    if a.dask:
        executor, limits["client"] = "dask", a.dask
    res, summaries, files = run_plan(plan, out, a.workers, executor, plan_file=a.plan,
                                     argv=a.argv,
                                     progress=False if (a.quiet or a.json) else None,
                                     **limits)
    parts = []
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        for m, s in summaries.items():
            parts.append(f"# {m} (mean, {plan.level:.0%} confidence interval; an empty "
                         "interval: every run gave the same value)")
            parts.append(readable_summary(s).to_string(
                index=False, na_rep="", float_format=lambda x: f"{x:.4g}"))
    doc = {"plan": plan.name, "runs": len(res.runs), "failures": _records(res.failures),
           "summaries": {m: _records(s) for m, s in summaries.items()},
           "files": [str(p) for p in files]}
    _emit(a, doc, "\n".join(parts))
    if len(res.failures) and not a.json:
        print(f"# {len(res.failures)} failed run(s):", file=sys.stderr)
        print(res.failures.to_string(index=False), file=sys.stderr)
    if out:
        _note(a, f"wrote {len(files)} files to {out}")
    return 0 if len(res.runs) else 1


def _cmd_reproduce(a: argparse.Namespace) -> int:
    from tcplab import reproduce
    from tcplab.reproduce.runner import has_quick, run_all, run_study

    if a.list or not a.study:
        studies = {name: reproduce.get(name).DESCRIPTION for name in reproduce.STUDIES}
        _emit(a, {"studies": studies},
              "\n".join(f"{n:24} {d}" for n, d in studies.items()))
        return 0
    if a.docs and a.study == "all":
        print("tcplab reproduce: --docs takes one study's claim table at a time",
              file=sys.stderr)
        return 2
    if a.study == "all":
        out = _out_dir(a)
        outcomes, report = run_all(out, seeds=a.seeds, workers=a.workers, quick=a.quick,
                                   argv=a.argv, progress=lambda m: _note(a, m))
        lines = [f"{o.name:22} " + (f"skipped: {o.skipped}" if o.skipped else
                                    f"{o.seconds:6.1f} s, {o.seeds} seed(s), "
                                    f"{len(o.paths)} files in {o.out}") for o in outcomes]
        _emit(a, {"studies": [{"study": o.name, "out": str(o.out), "seconds": o.seconds,
                               "seeds": o.seeds, "skipped": o.skipped,
                               "files": [str(p) for p in o.paths]} for o in outcomes],
                  "report": str(report)},
              "\n".join([*lines, f"wrote {report}"]))
        return 0
    try:
        study = reproduce.get(a.study)
    except KeyError as e:
        print(f"tcplab reproduce: {e.args[0]}", file=sys.stderr)
        return 2
    # Refused before anything is written (no empty output folder left behind).
    if a.quick and not has_quick(study):
        print(f"tcplab reproduce: study '{a.study}' has no --quick mode", file=sys.stderr)
        return 2
    if a.docs:
        from tcplab.reproduce.docs_claims import check_target

        why = check_target(Path(a.docs), a.study)
        if why:
            print(f"tcplab reproduce: {why}", file=sys.stderr)
            return 2
    a.out = str(Path(a.out) / a.study)
    out = _out_dir(a)
    o = run_study(a.study, out, seeds=a.seeds, workers=a.workers, quick=a.quick,
                  argv=a.argv)
    if o.skipped:
        print(f"tcplab reproduce: {a.study}: {o.skipped}", file=sys.stderr)
        return 1
    tables = out / "tables.md"
    if a.docs and tables.exists():
        from tcplab.reproduce.docs_claims import update

        note = f"n = {o.seeds} seed(s) per point" + (", --quick" if a.quick else "")
        for p in update(Path(a.docs), a.study, tables, note):
            _note(a, f"claim table written into {p}")
    text = "\n".join([f"{a.study}: done in {o.seconds:.1f} s; wrote:",
                      *(f"  {p}" for p in o.paths),
                      tables.read_text() if tables.exists() else ""])
    _emit(a, {"study": a.study, "seeds": o.seeds, "seconds": o.seconds,
              "files": [str(p) for p in o.paths]}, text)
    return 0


def _cmd_list(a: argparse.Namespace) -> int:
    from tcplab.catalog import describe, listing

    _emit(a, listing(a.what), describe(a.what))
    return 0


def _cmd_report(a: argparse.Namespace) -> int:
    from tcplab.report import write_report_checked

    path, problems = write_report_checked(Path(a.dir), Path(a.output) if a.output else None)
    for p in problems:
        print(f"tcplab report: warning: {p}", file=sys.stderr)
    _emit(a, {"report": str(path), "problems": problems}, f"wrote {path}")
    # A page that silently lacks what the manifests promise is not a success.
    return 1 if problems else 0


def _cmd_bench(a: argparse.Namespace) -> int:
    from tcplab.bench import main as bench_main

    return bench_main(a)


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, without the usage block argparse prints first."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _whole(lo: int, hi: int | None = None):
    """An argparse type: a whole number in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            v = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            span = f"from {lo} to {hi}" if hi is not None else f">= {lo}"
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {text}")
        return v
    return parse


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return v


def _size(text: str) -> int:
    try:
        v = _tcplab.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if v < 1 << 20:
        raise argparse.ArgumentTypeError(f"must be at least 1MiB, got {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    p = _Parser(
        prog="tcplab", description="Simulate and compare TCP-style transport protocols."
    )
    p.add_argument("--version", action="version", version=f"tcplab {_tcplab.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run a scenario file, print per-flow results, write tables")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--seed", type=_whole(0, MAX_SEED), default=1,
                   help="master seed (default 1)")
    r.add_argument("--replications", type=_whole(1), default=1, help="runs with this seed")
    r.add_argument("--out", type=out_path,
                   help="directory for Parquet tables and the PNG figure")
    r.add_argument("--no-plot", action="store_true", help="skip the figure")
    r.add_argument("--pcap", metavar="LINK[:fwd|rev]",
                   help="write the packets LINK carries (both directions unless one is "
                        "named) to DIR/NAME-sSEED-rREP-LINK.pcapng for Wireshark; needs --out")
    r.add_argument("--snaplen", type=_whole(1, 262144), default=80, metavar="BYTES",
                   help="bytes kept of each captured packet (default 80: all headers)")
    r.add_argument("--strict", action="store_true",
                   help="exit with status 1 when a flow with a byte count did not complete")
    r.set_defaults(fn=_cmd_run)

    c = sub.add_parser("check", help="validate a scenario file")
    c.add_argument("scenario")
    c.set_defaults(fn=_cmd_check)

    w = sub.add_parser("sweep", help="run a sweep plan (grid x seeds), write tables and plots")
    w.add_argument("plan", help="sweep plan TOML file")
    w.add_argument("--out", type=out_path, help="directory for Parquet tables and PNG plots")
    w.add_argument("--workers", type=_whole(1), help="parallel runs (default: CPU count)")
    w.add_argument("--executor", choices=["process", "thread", "serial", "dask"],
                   default="process")
    w.add_argument("--dask", metavar="ADDRESS",
                   help="run on the Dask scheduler at ADDRESS (pip install 'tcplab[dask]')")
    w.add_argument("--time-limit", type=_seconds, default=3600.0, metavar="S",
                   help="wall-clock seconds one run may take (default 3600)")
    w.add_argument("--memory-limit", type=_size, metavar="SIZE",
                   help="memory one run may allocate, e.g. 4GiB (default: an equal share "
                        "of the machine's memory per worker)")
    w.set_defaults(fn=_cmd_sweep)

    rp = sub.add_parser("reproduce", help="re-run a published study (data, figures, tables)")
    rp.add_argument("study", nargs="?",
                    help="study name (see --list), or 'all': every study and one report")
    rp.add_argument("--list", action="store_true", help="list the studies")
    rp.add_argument("--out", type=out_path, default="results",
                    help="output directory (default results/)")
    rp.add_argument("--seeds", type=_whole(1),
                    help="runs per point (default: the study's own, 5 or 10; a study "
                    "without a random component runs one)")
    rp.add_argument("--workers", type=_whole(1), help="parallel runs (default: CPU count)")
    rp.add_argument("--quick", action="store_true",
                    help="short runs to check the study works (not its numbers)")
    rp.add_argument("--docs", metavar="DIR",
                    help="also write the run's claim table into the '<!-- claims: STUDY "
                    "-->' blocks of the Markdown files under DIR (e.g. docs)")
    rp.set_defaults(fn=_cmd_reproduce)

    ls = sub.add_parser("list", help="controllers, transports, studies and scenario keys")
    ls.add_argument("what", nargs="?", default="all",
                    choices=["all", "controllers", "transports", "studies", "keys"])
    ls.set_defaults(fn=_cmd_list)

    rr = sub.add_parser("report", help="one self-contained HTML page from an output directory")
    rr.add_argument("dir", help="output directory of tcplab run, sweep or reproduce")
    rr.add_argument("-o", "--output", type=out_path,
                    help="HTML file to write (default DIR/report.html)")
    rr.set_defaults(fn=_cmd_report)

    b = sub.add_parser("bench", help="time the reference benchmarks B1 and B2")
    b.add_argument("--only", help="comma-separated subset, e.g. B1")
    b.add_argument("--repeat", type=_whole(1), default=3,
                   help="runs per benchmark (default 3)")
    b.add_argument("--flows", metavar="N[,N...]",
                   help="the dumbbell family instead: B2 with N flows (e.g. 10,100,1000)")
    b.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="print the results as JSON (or write them to FILE)")
    b.add_argument("--quiet", action="store_true", help="print nothing but errors")
    b.set_defaults(fn=_cmd_bench)
    for sp in (r, c, w, rp, ls, rr):
        sp.add_argument("--json", action="store_true",
                        help="print a machine-readable JSON summary instead of text")
        sp.add_argument("--quiet", action="store_true", help="print nothing but errors")

    from tcplab import compare, net
    net.add_commands(sub)
    compare.add_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit status (errors are messages, not tracebacks)."""
    from tcplab import _startup

    try:
        _startup.release()  # from here on Ctrl-C is a KeyboardInterrupt caught below
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        print(_startup.interrupted_line(argv), file=sys.stderr)
        return _interrupted(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the manifests
    try:
        code = args.fn(args)
        sys.stdout.flush()  # a closed pipe is found here, not at exit
        if code == 130:  # the command caught Ctrl-C itself and wrote what it had
            return _interrupted(argv)
        if argv is None:
            # Done and written: a Ctrl-C from here on would only cut Python's exit short
            # (which restores SIGINT's default action, so the process would end by the
            # signal, with no word); the command's status stands instead.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return code
    except BrokenPipeError:
        # `tcplab list keys | head`: the reader left; nothing more to say, and Python
        # must not complain when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except _Usage as e:
        print(f"tcplab {args.cmd}: error: {e}", file=sys.stderr)
        return 2
    except (_tcplab.ScenarioError, _tcplab.InvariantError, _tcplab.SimulationPanic,
            _tcplab.NetworkError) as e:
        kind = type(e).__name__
        print(f"tcplab: {kind}: {e}", file=sys.stderr)
        if getattr(args, "json", None) is True:
            print(json.dumps({"error": kind, "message": str(e)}))
        return 1
    except (ValueError, OSError, ImportError) as e:  # one line, not a traceback
        print(f"tcplab {args.cmd}: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"tcplab {args.cmd}: interrupted", file=sys.stderr)
        return _interrupted(argv)


def _interrupted(argv: list[str] | None) -> int:
    """Status 130 after Ctrl-C. As the program (not called with `argv`), exit right away:
    what the command writes is written and its workers are stopped, and tearing down
    pandas, pyarrow and the rest takes most of a second on a busy machine."""
    if argv is None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130)
    return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
