"""``tcplab reproduce NAME``: published studies re-run on tcplab, with data and figures.

Each study is a module with ``NAME``, ``DESCRIPTION`` and ``run(out, seeds, workers)``
returning the paths it wrote; a study whose ``run`` also takes ``quick`` has a
``--quick`` mode (short runs for tests, not its numbers). A study without a random
component declares ``DETERMINISTIC = True`` and runs one seed (a test checks that two
seeds agree); one that cannot run everywhere has ``ready() -> (ok, why)``. Every study's
``tables.md`` opens with its claim table (:mod:`tcplab.reproduce.common`); ``tcplab
reproduce all`` (:mod:`tcplab.reproduce.runner`) runs them all into one report. The
documents in ``docs/reproductions/`` compare the results with the source's claims.
"""

from __future__ import annotations

import importlib

STUDIES = {
    "inet-vegas-westwood": "tcplab.reproduce.inet_vegas_westwood",
    "handover": "tcplab.reproduce.handover",
    "wave": "tcplab.reproduce.wave",
    "wave-real": "tcplab.reproduce.wave_real",
    "coded": "tcplab.reproduce.coded",
    "tack": "tcplab.reproduce.tack",
    "profiles": "tcplab.reproduce.profiles",
}


def get(name: str):
    """The study module called `name`, or a KeyError listing the known ones."""
    if name not in STUDIES:
        raise KeyError(f"unknown study '{name}' (known: {', '.join(sorted(STUDIES))})")
    return importlib.import_module(STUDIES[name])
