"""Running studies from the command line: one (``tcplab reproduce NAME``) or every one
(``tcplab reproduce all``), each into its own folder with its manifest; ``all`` also writes
one HTML report on them all (``report.html``)."""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from pathlib import Path

from tcplab.reproduce import STUDIES, get


@dataclass
class Outcome:
    """What one study did: the files it wrote, how long it took, how many seeds it used,
    or why it was skipped."""

    name: str
    out: Path
    paths: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    seeds: int = 0
    skipped: str | None = None


def has_quick(study) -> bool:
    """Whether the study's ``run`` takes ``quick``."""
    return "quick" in inspect.signature(study.run).parameters


def seeds_used(study, asked: int | None) -> int:
    """The seeds a study runs: one for a study without a random component
    (``DETERMINISTIC``), else `asked`, else its own default."""
    if getattr(study, "DETERMINISTIC", False):
        return 1
    if asked is not None:
        return asked
    return int(inspect.signature(study.run).parameters["seeds"].default)


def run_study(name: str, out: Path, *, seeds: int | None, workers: int | None,
              quick: bool, argv: list[str] | None) -> Outcome:
    """Runs study `name` into `out` (created) and writes its manifest."""
    from tcplab.manifest import write_manifest

    study = get(name)
    ready = getattr(study, "ready", None)
    if ready is not None:
        ok, why = ready()
        if not ok:
            return Outcome(name, out, skipped=why)
    kw = {"quick": True} if quick and has_quick(study) else {}
    asked = seeds if seeds is not None else seeds_used(study, None)
    t0 = time.perf_counter()
    paths = study.run(out, seeds=asked, workers=workers, **kw)
    secs = time.perf_counter() - t0
    used = seeds_used(study, seeds)
    write_manifest(out, "reproduce", name, paths, argv=argv, study=name,
                   description=study.DESCRIPTION, seeds=list(range(1, used + 1)),
                   quick=bool(kw), scenario=getattr(study, "BASE", None))
    return Outcome(name, out, paths, secs, used)


def run_all(out: Path, *, seeds: int | None, workers: int | None, quick: bool,
            argv: list[str] | None, names: list[str] | None = None,
            progress=None) -> tuple[list[Outcome], Path]:
    """Runs every study (or `names`) into ``out/<name>`` and writes ``out/report.html``
    on them all; a study that cannot run here (e.g. wave-real without root) is skipped
    and the report says why. Returns the outcomes and the report's path."""
    from tcplab.report import write_report

    outcomes = []
    for name in names or list(STUDIES):
        if progress:
            progress(f"reproduce all: {name} ...")
        d = out / name
        o = run_study(name, d, seeds=seeds, workers=workers, quick=quick, argv=argv)
        if o.skipped:
            from tcplab.manifest import write_manifest

            d.mkdir(parents=True, exist_ok=True)
            note = d / "SKIPPED.md"
            note.write_text(f"# {name}: not run\n\n{o.skipped}\n")
            write_manifest(d, "reproduce", name, [note], argv=argv, study=name,
                           description=get(name).DESCRIPTION, skipped=o.skipped)
        outcomes.append(o)
    return outcomes, write_report(out)
