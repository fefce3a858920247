"""The ``tcplab`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tcplab import _tcplab


def _cmd_run(a: argparse.Namespace) -> int:
    import pandas as pd

    from tcplab.plot import plot_run
    from tcplab.scenario import Scenario, simulate

    sc = Scenario.from_toml(a.scenario)
    out = Path(a.out) if a.out else None
    rows = []
    for rep in range(a.replications):
        res = simulate(sc, seed=a.seed, replication=rep)
        rows.append(res.summary().assign(replication=rep))
        if out:
            prefix = f"{sc.name}-s{a.seed}-r{rep}-"
            paths = res.to_parquet(out, prefix=prefix)
            written = [str(p) for p in paths]
            if not a.no_plot:
                written.append(str(plot_run(res, out / f"{prefix}plot.png")))
            print(f"wrote {', '.join(written)}", file=sys.stderr)
        i = res.info
        print(
            f"# {i['scenario']} seed={i['seed']} replication={rep}: simulated "
            f"{i['end_time_s']:.3f} s, {i['events']} events, digest {i['digest']}"
        )
    table = pd.concat(rows, ignore_index=True)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0


def _cmd_check(a: argparse.Namespace) -> int:
    from tcplab.scenario import Scenario

    sc = Scenario.from_toml(a.scenario)
    print(f"ok: {sc!r}")
    return 0


def run_plan(plan, out: Path | None, workers: int | None, executor: str):
    """Runs a sweep plan; writes tables and plots under `out`; returns (result, summaries)."""
    import pandas as pd

    from tcplab.plot import plot_summary
    from tcplab.scenario import Scenario
    from tcplab.sweeps import sweep

    sc = Scenario.from_toml(plan.scenario)
    res = sweep(sc, plan.grid, seeds=plan.seeds, replications=plan.replications,
                workers=workers, executor=executor)
    summaries = {}
    for m in plan.metrics:
        if len(res.runs):
            summaries[m] = res.summary(m, level=plan.level)
    if out:
        res.to_parquet(out, prefix=f"{plan.name}-")
        if summaries:
            pd.concat(summaries.values(), ignore_index=True).to_parquet(
                out / f"{plan.name}-summary.parquet", index=False)
        for i, p in enumerate(plan.plots):
            if len(res.runs) == 0:
                break
            by = [p.x] + ([p.series] if p.series else [])
            s = res.summary(p.y, level=plan.level, by=by)
            name = f"{plan.name}-{i}-{p.y}-vs-{p.x}".replace("*", "all").replace(".", "_")
            plot_summary(s, p.x, p.series, out / f"{name}.png", ylabel=p.ylabel,
                         xlabel=p.xlabel, title=p.title, scale=p.scale)
    return res, summaries


def _cmd_sweep(a: argparse.Namespace) -> int:
    import pandas as pd

    from tcplab.plan import load_plan

    plan = load_plan(a.plan)
    out = Path(a.out) if a.out else None
    res, summaries = run_plan(plan, out, a.workers, a.executor)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        for m, s in summaries.items():
            print(f"# {m} (mean, {plan.level:.0%} confidence interval)")
            print(s.drop(columns=["metric", "level"]).to_string(index=False))
    if len(res.failures):
        print(f"# {len(res.failures)} failed run(s):", file=sys.stderr)
        print(res.failures.to_string(index=False), file=sys.stderr)
    if out:
        print(f"wrote tables and plots to {out}", file=sys.stderr)
    return 0 if len(res.runs) else 1


def _cmd_reproduce(a: argparse.Namespace) -> int:
    import time

    from tcplab import reproduce

    if a.list or not a.study:
        for name in reproduce.STUDIES:
            print(f"{name:24} {reproduce.get(name).DESCRIPTION}")
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
    print(f"{a.study}: done in {time.perf_counter() - t0:.1f} s; wrote:")
    for p in paths:
        print(f"  {p}")
    tables = out / "tables.md"
    if tables.exists():
        print(tables.read_text())
    return 0


def _cmd_bench(a: argparse.Namespace) -> int:
    from tcplab.bench import main as bench_main

    return bench_main(a)


def build_parser() -> argparse.ArgumentParser:
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
    b.add_argument("--json", help="also write the results as JSON to this file")
    b.set_defaults(fn=_cmd_bench)

    from tcplab import compare, net
    net.add_commands(sub)
    compare.add_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "replications", 1) < 1:
        print("tcplab: error: --replications must be >= 1", file=sys.stderr)
        return 2
    try:
        return args.fn(args)
    except (_tcplab.ScenarioError, _tcplab.InvariantError, _tcplab.SimulationPanic,
            _tcplab.NetworkError) as e:
        kind = type(e).__name__
        print(f"tcplab: {kind}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
