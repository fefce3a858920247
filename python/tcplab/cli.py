"""The ``tcplab`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tcplab import _tcplab


def _records(df) -> list[dict]:
    """A DataFrame as JSON-ready records (NaN → null, categories → strings)."""
    return json.loads(df.to_json(orient="records"))


def _emit(a: argparse.Namespace, doc: dict, text: str | None = None) -> None:
    """Prints `doc` as JSON (--json), else `text` unless --quiet."""
    if a.json:
        print(json.dumps(doc, indent=2, default=str))
    elif text is not None and not a.quiet:
        print(text)


def _note(a: argparse.Namespace, msg: str) -> None:
    """An informational line on stderr (silenced by --quiet and --json)."""
    if not (a.quiet or a.json):
        print(msg, file=sys.stderr)


def _cmd_run(a: argparse.Namespace) -> int:
    import pandas as pd

    from tcplab.plot import plot_run
    from tcplab.scenario import Scenario, simulate

    sc = Scenario.from_toml(a.scenario)
    out = Path(a.out) if a.out else None
    rows, runs, lines = [], [], []
    for rep in range(a.replications):
        res = simulate(sc, seed=a.seed, replication=rep)
        rows.append(res.summary().assign(replication=rep))
        written = []
        if out:
            prefix = f"{sc.name}-s{a.seed}-r{rep}-"
            written = [str(p) for p in res.to_parquet(out, prefix=prefix)]
            if not a.no_plot:
                path = out / f"{prefix}plot.png"
                plot_run(res, path)
                written.append(str(path))
            _note(a, f"wrote {', '.join(written)}")
        i = res.info
        runs.append({**i, "flows": _records(res.flows), "files": written})
        lines.append(
            f"# {i['scenario']} seed={i['seed']} replication={rep}: simulated "
            f"{i['end_time_s']:.3f} s, {i['events']} events, digest {i['digest']}"
        )
    table = pd.concat(rows, ignore_index=True)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        lines.append(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    _emit(a, {"runs": runs}, "\n".join(lines))
    return 0


def _cmd_check(a: argparse.Namespace) -> int:
    from tcplab.scenario import Scenario

    sc = Scenario.from_toml(a.scenario)
    _emit(a, {"ok": True, "source": sc.source, **sc._summary}, f"ok: {sc!r}")
    return 0


def run_plan(plan, out: Path | None, workers: int | None, executor: str,
             progress: bool | None = None):
    """Runs a sweep plan; writes tables and plots under `out`; returns (result, summaries,
    the files written)."""
    import pandas as pd

    from tcplab.plot import plot_summary
    from tcplab.scenario import Scenario
    from tcplab.sweeps import sweep

    sc = Scenario.from_toml(plan.scenario)
    res = sweep(sc, plan.grid, seeds=plan.seeds, replications=plan.replications,
                workers=workers, executor=executor, progress=progress)
    files: list[Path] = []
    summaries = {}
    for m in plan.metrics:
        if len(res.runs):
            summaries[m] = res.summary(m, level=plan.level)
    if out:
        files += res.to_parquet(out, prefix=f"{plan.name}-")
        if summaries:
            files.append(out / f"{plan.name}-summary.parquet")
            pd.concat(summaries.values(), ignore_index=True).to_parquet(files[-1], index=False)
        for i, p in enumerate(plan.plots):
            if len(res.runs) == 0:
                break
            by = [p.x] + ([p.series] if p.series else [])
            s = res.summary(p.y, level=plan.level, by=by)
            name = f"{plan.name}-{i}-{p.y}-vs-{p.x}".replace("*", "all").replace(".", "_")
            files.append(out / f"{name}.png")
            plot_summary(s, p.x, p.series, files[-1], ylabel=p.ylabel,
                         xlabel=p.xlabel, title=p.title, scale=p.scale)
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
    out = Path(a.out) if a.out else None
    res, summaries, files = run_plan(plan, out, a.workers, a.executor,
                                     progress=False if (a.quiet or a.json) else None)
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
    import time

    from tcplab import reproduce

    if a.list or not a.study:
        studies = {name: reproduce.get(name).DESCRIPTION for name in reproduce.STUDIES}
        _emit(a, {"studies": studies},
              "\n".join(f"{n:24} {d}" for n, d in studies.items()))
        return 0
    try:
        study = reproduce.get(a.study)
    except KeyError as e:
        print(f"tcplab reproduce: {e.args[0]}", file=sys.stderr)
        return 2
    if a.seeds < 1:
        print("tcplab reproduce: --seeds must be >= 1", file=sys.stderr)
        return 2
    out = Path(a.out) / a.study
    t0 = time.perf_counter()
    paths = study.run(out, seeds=a.seeds, workers=a.workers)
    secs = time.perf_counter() - t0
    tables = out / "tables.md"
    text = "\n".join([f"{a.study}: done in {secs:.1f} s; wrote:", *(f"  {p}" for p in paths),
                      tables.read_text() if tables.exists() else ""])
    _emit(a, {"study": a.study, "seeds": a.seeds, "seconds": secs,
              "files": [str(p) for p in paths]}, text)
    return 0


def _cmd_bench(a: argparse.Namespace) -> int:
    from tcplab.bench import main as bench_main

    return bench_main(a)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    p = argparse.ArgumentParser(
        prog="tcplab", description="Simulate and compare TCP-style transport protocols."
    )
    p.add_argument("--version", action="version", version=f"tcplab {_tcplab.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run a scenario file, print per-flow results, write tables")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    r.add_argument("--replications", type=int, default=1, help="runs with this seed")
    r.add_argument("--out", help="directory for Parquet tables and the PNG figure")
    r.add_argument("--no-plot", action="store_true", help="skip the figure")
    r.set_defaults(fn=_cmd_run)

    c = sub.add_parser("check", help="validate a scenario file")
    c.add_argument("scenario")
    c.set_defaults(fn=_cmd_check)

    w = sub.add_parser("sweep", help="run a sweep plan (grid x seeds), write tables and plots")
    w.add_argument("plan", help="sweep plan TOML file")
    w.add_argument("--out", help="directory for Parquet tables and PNG plots")
    w.add_argument("--workers", type=int, help="parallel runs (default: CPU count)")
    w.add_argument("--executor", choices=["process", "thread", "serial"], default="process")
    w.set_defaults(fn=_cmd_sweep)

    rp = sub.add_parser("reproduce", help="re-run a published study (data, figures, tables)")
    rp.add_argument("study", nargs="?", help="study name (see --list)")
    rp.add_argument("--list", action="store_true", help="list the studies")
    rp.add_argument("--out", default="results", help="output directory (default results/)")
    rp.add_argument("--seeds", type=int, default=5, help="runs per point (default 5)")
    rp.add_argument("--workers", type=int, help="parallel runs (default: CPU count)")
    rp.set_defaults(fn=_cmd_reproduce)

    b = sub.add_parser("bench", help="time the reference benchmarks B1 and B2")
    b.add_argument("--only", help="comma-separated subset, e.g. B1")
    b.add_argument("--repeat", type=int, default=3, help="runs per benchmark (default 3)")
    b.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="print the results as JSON (or write them to FILE)")
    b.add_argument("--quiet", action="store_true", help="print nothing but errors")
    b.set_defaults(fn=_cmd_bench)
    for sp in (r, c, w, rp):
        sp.add_argument("--json", action="store_true",
                        help="print a machine-readable JSON summary instead of text")
        sp.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit status (errors are messages, not tracebacks)."""
    args = build_parser().parse_args(argv)
    if getattr(args, "replications", 1) < 1:
        print("tcplab: error: --replications must be >= 1", file=sys.stderr)
        return 2
    try:
        return args.fn(args)
    except (_tcplab.ScenarioError, _tcplab.InvariantError, _tcplab.SimulationPanic) as e:
        kind = type(e).__name__
        print(f"tcplab: {kind}: {e}", file=sys.stderr)
        if getattr(args, "json", None) is True:
            print(json.dumps({"error": kind, "message": str(e)}))
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
