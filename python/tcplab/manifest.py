"""What a command wrote, and from what: ``tcplab-<command>-<name>.json`` beside its outputs.

A manifest records the tcplab version, the command line, the seeds, the scenario (and plan)
text and the files written, so ``tcplab report DIR`` can say how the results were made.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.files import inside

PATTERN = "tcplab-*.json"


def write_manifest(out: Path, command: str, name: str, files: list[Path],
                   argv: list[str] | None = None, **fields: Any) -> Path:
    """Writes the manifest of one command run into `out`; returns its path. `argv` is the
    command line after ``tcplab`` (default: this process's)."""
    path = inside(out, f"tcplab-{command}-{name}.json")
    doc = {
        "tcplab": _tcplab.__version__,
        "command": command,
        "argv": ["tcplab", *(sys.argv[1:] if argv is None else argv)],
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **fields,
        "files": sorted({Path(f).name for f in files}),
    }
    path.write_text(json.dumps(doc, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def read_manifests(directory: Path) -> list[dict[str, Any]]:
    """Every manifest in `directory` and the folders below it (e.g. ``tcplab reproduce
    wave --out X`` writes X/wave/; unreadable ones are skipped, with a note). Each gets
    ``_file`` (its path relative to `directory`) and ``_dir`` (the folder it is in)."""
    out = []
    for p in sorted(directory.rglob(PATTERN), key=lambda q: (len(q.parts), str(q))):
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            doc = {"command": "?", "error": f"{p.name}: unreadable manifest ({e})"}
        doc["_file"] = str(p.relative_to(directory))
        doc["_dir"] = p.parent
        out.append(doc)
    return out
