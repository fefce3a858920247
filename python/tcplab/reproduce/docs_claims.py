"""The claim tables in the documentation, written from a study's run, never by hand.

A claim table in ``docs/`` sits between two markers::

    <!-- claims: STUDY -->
    ...generated: the stamp line and the table of the run's tables.md...
    <!-- /claims -->

``tcplab reproduce STUDY --docs DIR`` (or :func:`update`) replaces what lies between them
with the "## Claims" section of the run's ``tables.md`` and a stamp naming the run (date,
seeds, quick or not). Anything written there by hand is overwritten at the next run, and
tests/python/test_docs_claims.py fails on a claim table outside the markers, so a number
in a claim table is always one a run computed (the profiles table in validation.md went
stale when it was pasted by hand: "ns3 +144 %" where a run gives +273 %).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

#: The header row every claim table starts with (common.claim_table).
HEADER = "| claim | paper | tcplab | verdict | why |"
_BLOCK = re.compile(r"(<!-- claims: (?P<study>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /claims -->)",
                    re.S)


def claims_section(tables_md: str) -> str:
    """The claim table and its verdict line from a study's tables.md (between "## Claims"
    and "## Tables"), without the heading."""
    start = tables_md.find("## Claims")
    end = tables_md.find("## Tables", start)
    if start < 0 or end < 0:
        raise ValueError("tables.md has no '## Claims' section")
    lines = tables_md[start:end].splitlines()[1:]
    return "\n".join(lines).strip() + "\n"


def stamp(study: str, note: str) -> str:
    """The line above a generated table: which command wrote it and when."""
    day = datetime.date.today().isoformat()
    return (f"*Written by `tcplab reproduce {study} --docs` on {day} from its run ({note}); "
            "edit the study, not this table.*\n\n")


def replace(doc: str, study: str, section: str) -> tuple[str, int]:
    """`doc` with every block of `study` replaced by `section`; the number replaced."""
    n = 0

    def sub(m: re.Match) -> str:
        nonlocal n
        if m["study"] != study:
            return m[0]
        n += 1
        return m[1] + section + ("" if section.endswith("\n") else "\n") + m[4]

    return _BLOCK.sub(sub, doc), n


def blocks(doc: str) -> list[tuple[str, int, int]]:
    """(study, start, end) of every claims block in `doc`."""
    return [(m["study"], m.start(), m.end()) for m in _BLOCK.finditer(doc)]


def loose_tables(doc: str) -> list[int]:
    """Line numbers (1-based) of claim tables outside any claims block."""
    inside = blocks(doc)
    out = []
    pos = 0
    for i, line in enumerate(doc.splitlines(keepends=True), 1):
        if line.strip() == HEADER and not any(a <= pos < b for _, a, b in inside):
            out.append(i)
        pos += len(line)
    return out


def check_target(docs: Path, study: str) -> str | None:
    """Why `--docs DOCS` cannot take `study`'s claim table, or None: DOCS must be a folder
    with at least one `<!-- claims: STUDY -->` block."""
    if not docs.is_dir():
        return f"--docs {docs}: not a folder"
    if not any(b[0] == study for p in docs.rglob("*.md") for b in blocks(p.read_text())):
        return f"--docs {docs}: no '<!-- claims: {study} -->' block in its Markdown files"
    return None


def update(docs: Path, study: str, tables_md: Path, note: str) -> list[Path]:
    """Writes the claim table of `tables_md` into every block of `study` in the Markdown
    files under `docs`; returns the files changed."""
    section = stamp(study, note) + claims_section(tables_md.read_text())
    changed = []
    for path in sorted(docs.rglob("*.md")):
        text = path.read_text()
        new, n = replace(text, study, section)
        if n and new != text:
            path.write_text(new)
            changed.append(path)
    return changed
