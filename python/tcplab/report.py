"""``tcplab report DIR``: one self-contained HTML page from the outputs of ``tcplab run``,
``sweep`` or ``reproduce``.

The page holds everything it shows: figures are embedded as data URIs, tables are HTML,
the scenario (and plan) text, seeds, command lines and tcplab versions come from the
manifests the commands write (``tcplab-*.json``) and from the tables' ``seed`` columns. It
loads nothing from elsewhere, so it can be mailed or archived as one file.
"""

from __future__ import annotations

import base64
import datetime
import html
import json
import re
from pathlib import Path
from typing import Any

from tcplab import _tcplab
from tcplab.manifest import read_manifests

#: Tables shown row by row (others, e.g. time series, are summarised).
ROW_TABLES = ("flows", "links", "runs", "summary", "failures")
MAX_ROWS = 200
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg",
               ".jpeg": "image/jpeg", ".gif": "image/gif"}

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right}th{background:#f3f3f3}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em}
figure{margin:1em 0}img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}.note{color:#666;font-size:.9em}
.wide{overflow-x:auto}
section.lead{margin-bottom:2em}section.lead td{text-align:left}details.raw{margin-top:2em}
"""


def data_uri(path: Path) -> str:
    """An image file as a ``data:`` URI, so the report page needs no other file."""
    mime = IMAGE_TYPES[path.suffix.lower()]
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _toml(data: dict, prefix: str = "") -> str:
    """A scenario dict as TOML text, for reading (tables after plain keys)."""
    lines, tables = [], []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        else:
            lines.append(f"{k} = {json.dumps(v)}")
    for k, v in tables:
        name = f"{prefix}{k}"
        for t in (v if isinstance(v, list) else [v]):
            head = f"[[{name}]]" if isinstance(v, list) else f"[{name}]"
            lines += ["", head, _toml(t, prefix=f"{name}.").strip()]
    return "\n".join(lines).strip() + "\n"


def _frame_html(df, caption: str) -> str:
    shown = df.head(MAX_ROWS)
    more = (f'<p class="note">first {MAX_ROWS} of {len(df)} rows</p>'
            if len(df) > MAX_ROWS else "")
    table = shown.to_html(index=False, escape=True, border=0, na_rep="",
                          float_format=lambda x: f"{x:.6g}")
    return f'<h3>{_esc(caption)}</h3><div class="wide">{table}</div>{more}'


def _inline(escaped: str) -> str:
    """**bold** and `code` of an escaped Markdown line as HTML."""
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)


def _markdown(text: str, base: Path, embedded: set[Path]) -> str:
    """Headings, pipe tables and image references of a Markdown file; the rest as text."""
    out, rows = [], []

    def flush():
        if rows:
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows
                     if not re.fullmatch(r"\|?[\s:|-]+\|?", r.strip())]
            head, body = cells[0], cells[1:]
            out.append("<table><tr>" + "".join(f"<th>{_inline(_esc(c))}</th>" for c in head)
                       + "</tr>" + "".join("<tr>" + "".join(f"<td>{_inline(_esc(c))}</td>"
                                                            for c in r) + "</tr>"
                                           for r in body) + "</table>")
            rows.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            rows.append(line)
            continue
        flush()
        if m := re.match(r"^(#{1,6})\s+(.*)", line):
            level = min(len(m.group(1)) + 2, 6)
            out.append(f"<h{level}>{_esc(m.group(2))}</h{level}>")
            continue
        pieces, last = [], 0
        for m in re.finditer(r"!\[([^\]]*)\]\(([^)\s]+)\)", line):
            pieces.append(_inline(_esc(line[last:m.start()])))
            target = (base / m.group(2)).resolve()
            if target.suffix.lower() in IMAGE_TYPES and target.is_file():
                embedded.add(target)
                pieces.append(f'<img alt="{_esc(m.group(1))}" src="{data_uri(target)}">')
            else:
                pieces.append(f'<span class="note">[missing figure {_esc(m.group(2))}]</span>')
            last = m.end()
        pieces.append(_inline(_esc(line[last:])))
        if line.strip():
            out.append(f"<p>{''.join(pieces)}</p>")
    flush()
    return "\n".join(out)


def _series_summary(path: Path) -> str:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    cols = [meta.schema.column(i).name for i in range(meta.num_columns)]
    return (f"<p><b>{_esc(path.name)}</b>: {meta.num_rows:,} rows; columns "
            f"{_esc(', '.join(cols))}</p>")


def _seeds(paths: list[Path]) -> list[int]:
    import pyarrow.parquet as pq

    seeds: set[int] = set()
    for p in paths:
        if p.suffix == ".parquet" and "seed" in pq.ParquetFile(p).schema_arrow.names:
            seeds.update(pq.read_table(p, columns=["seed"]).column("seed").to_pylist())
    return sorted(s for s in seeds if s is not None)


#: The heading a study's tables.md opens its claim table with, and the one after it.
CLAIMS, AFTER_CLAIMS = "## Claims", "## Tables"


def _claims(tables_md: Path) -> str | None:
    """The claim table at the top of a study's tables.md (None without one)."""
    if not tables_md.is_file():
        return None
    text = tables_md.read_text(encoding="utf-8")
    if CLAIMS not in text:
        return None
    part = text[text.index(CLAIMS) + len(CLAIMS):]
    return part.split(AFTER_CLAIMS)[0] if AFTER_CLAIMS in part else part


def _verdicts(claims: str) -> list[str]:
    """The verdict column (the fourth) of a claim table."""
    rows = [r.strip().strip("|").split("|") for r in claims.splitlines()
            if r.startswith("| ") and not r.startswith("| claim |")]
    return [r[3].strip() for r in rows if len(r) >= 5]


def _overview(directory: Path, manifests: list[dict]) -> list[str]:
    """With several studies: one table of their verdict counts, linking to each."""
    rows = []
    for m in manifests:
        d = m.get("_dir")
        claims = _claims(d / "tables.md") if d is not None else None
        if m.get("skipped"):
            rows.append((m.get("study", "?"), None, m["skipped"]))
        elif claims is not None:
            rows.append((m.get("study") or str(d.relative_to(directory)),
                         _verdicts(claims), ""))
    if len(rows) < 2:
        return []
    kinds = ["holds", "shape only", "differs", "not measured"]
    head = "".join(f"<th>{k}</th>" for k in kinds)
    body = "".join(
        f"<tr><td>{_esc(name)}</td>" + (
            "".join(f"<td>{v.count(k)}</td>" for k in kinds) if v is not None
            else f'<td colspan="{len(kinds)}">not run: {_esc(why)}</td>') + "</tr>"
        for name, v, why in rows)
    return ["<h2>Claims per study</h2>", "<p>How many of each study's claims hold, hold in "
            "shape only or differ (computed by the study; its claim table follows).</p>",
            f"<table><tr><th>study</th>{head}</tr>{body}</table>"]


def _lead(directory: Path, manifests: list[dict], embedded: set[Path]) -> list[str]:
    """The top of the page: per command (manifest), its claim table (studies), its
    figures and, for runs and sweeps, its summary tables — before the raw tables."""
    import pandas as pd

    out = _overview(directory, manifests)
    for m in manifests:
        d = m.get("_dir")
        if d is None or "error" in m:
            continue
        what = m.get("study") or " ".join(m.get("argv", [])[1:3]) or m.get("command", "?")
        rel = d.relative_to(directory) if d != directory else Path(".")
        out.append(f'<section class="lead"><h2>{_esc(what)} <span class="note">'
                   f"({_esc(rel)})</span></h2>")
        if m.get("description"):
            out.append(f"<p>{_esc(m['description'])}</p>")
        if m.get("skipped"):
            out.append(f'<p class="note">Not run here: {_esc(m["skipped"])}</p></section>')
            continue
        if m.get("quick"):
            out.append('<p class="note">--quick: short runs that check the study works; '
                       "not its numbers.</p>")
        claims = _claims(d / "tables.md")
        if claims is not None:
            out.append(f"<h3>Claims</h3>{_markdown(claims, d, embedded)}")
        named = set(m.get("files") or [])
        figs = sorted((p for p in d.iterdir() if p.suffix.lower() in IMAGE_TYPES
                       and p.is_file() and (not named or p.name in named)),
                      key=lambda p: [int(t) if t.isdigit() else t
                                     for t in re.split(r"(\d+)", p.name)])  # fig7 < fig10
        for p in figs:
            embedded.add(p.resolve())
            out.append(f'<figure><img alt="{_esc(p.name)}" src="{data_uri(p)}">'
                       f"<figcaption>{_esc(p.relative_to(directory))}</figcaption></figure>")
        if claims is None:
            for p in sorted(d.iterdir()):
                if p.suffix == ".parquet" and (p.stem.endswith("summary")
                                               or p.stem.endswith("-flows")):
                    out.append(_frame_html(pd.read_parquet(p), f"summary: {p.name}"))
        out.append("</section>")
    return out


def manifest_problems(directory: Path, manifests: list[dict[str, Any]]) -> list[str]:
    """What the manifests list but the folder lacks: files that are missing, and entries
    that point outside the folder (a report reads nothing from elsewhere). One sentence
    per manifest and kind, naming the files."""
    problems = []
    root = directory.resolve()
    for m in manifests:
        missing, outside = [], []
        base = m.get("_dir", directory)
        for name in m.get("files") or []:
            target = (base / str(name)).resolve()
            if target != root and root not in target.parents:
                outside.append(str(name))
            elif not target.is_file():
                missing.append(str(name))
        if missing:
            problems.append(f"{m['_file']} lists {len(missing)} file(s) missing from "
                            f"{directory}: {', '.join(missing)}")
        if outside:
            problems.append(f"{m['_file']} lists {len(outside)} entries outside "
                            f"{directory}, not read: {', '.join(outside)}")
    return problems


def render(directory: Path) -> str:
    """The HTML text of the report on `directory`."""
    return render_checked(directory)[0]


def render_checked(directory: Path) -> tuple[str, list[str]]:
    """The HTML text of the report on `directory`, and the manifest problems it shows
    (see `manifest_problems`)."""
    import pandas as pd

    if not directory.is_dir():
        raise ValueError(f"{directory}: not a directory")
    files = sorted(p for p in directory.rglob("*") if p.is_file()
                   and not any(part.endswith(".parts") for part in p.parts)
                   and p.name != "report.html")
    if not files:
        raise ValueError(f"{directory}: no files to report on")
    manifests = read_manifests(directory)
    embedded: set[Path] = set()
    body = []
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    made_by = sorted({str(m.get("tcplab")) for m in manifests if m.get("tcplab")})
    seeds = sorted(set(_seeds(files)) | {s for m in manifests for s in m.get("seeds") or []})
    body.append(f"<h1>tcplab report: {_esc(directory.resolve().name)}</h1>")
    body.append("<table>"
                f"<tr><th>directory</th><td>{_esc(directory.resolve())}</td></tr>"
                f"<tr><th>results made by tcplab</th><td>{_esc(', '.join(made_by) or '?')}"
                "</td></tr>"
                f"<tr><th>report made by tcplab</th><td>{_esc(_tcplab.__version__)} "
                f"at {_esc(now)}</td></tr>"
                f"<tr><th>seeds</th><td>{_esc(', '.join(map(str, seeds)) or 'none found')}"
                "</td></tr></table>")
    problems = manifest_problems(directory, manifests)
    if problems:
        body.append("<h2>Missing results</h2><ul>"
                    + "".join(f"<li>{_esc(p)}</li>" for p in problems) + "</ul>")
    if any(m.get("interrupted") for m in manifests):
        body.append('<p class="note">Interrupted (Ctrl-C): the tables hold the runs that '
                    "finished before it.</p>")
    if not manifests:
        body.append('<p class="note">No tcplab-*.json manifest here or below (results from '
                    "an older tcplab or another tool): commands and scenario text are "
                    "unknown.</p>")
    body += _lead(directory, manifests, embedded)
    if manifests:
        body.append("<h2>How the results were made</h2>")
    for m in manifests:
        body.append(f"<h3>{_esc(m.get('command', '?'))}: {_esc(m['_file'])}</h3>")
        if "error" in m:
            body.append(f'<p class="note">{_esc(m["error"])}</p>')
            continue
        body.append(f"<p><code>{_esc(' '.join(m.get('argv', [])))}</code> "
                    f"({_esc(m.get('created', ''))})</p>")
        if m.get("description"):
            body.append(f"<p>{_esc(m['description'])}</p>")
        for key, label in (("plan_text", "plan"), ("scenario_text", "scenario")):
            if m.get(key):
                src = m.get(f"{label}_file", "")
                body.append(f"<h3>{label} {_esc(src)}</h3><pre>{_esc(m[key])}</pre>")
        if isinstance(m.get("scenario"), dict):
            body.append(f"<h3>base scenario</h3><pre>{_esc(_toml(m['scenario']))}</pre>")
    body.append('<details class="raw"><summary><h2 style="display:inline">Raw tables</h2>'
                "</summary>")
    for p in files:
        rel = p.relative_to(directory)
        if p.suffix == ".parquet":
            if any(p.stem == t or p.stem.endswith(f"-{t}") for t in ROW_TABLES):
                body.append(_frame_html(pd.read_parquet(p), str(rel)))
            else:
                body.append(_series_summary(p))
        elif p.suffix == ".csv":
            body.append(_frame_html(pd.read_csv(p), str(rel)))
        elif p.suffix == ".md":
            body.append(f"<h3>{_esc(rel)}</h3>"
                        f"{_markdown(p.read_text(encoding='utf-8'), p.parent, embedded)}")
    body.append("</details>")
    figures = [p for p in files if p.suffix.lower() in IMAGE_TYPES
               and p.resolve() not in embedded]
    if figures:
        body.append("<h2>Figures</h2>")
    for p in figures:
        if p.resolve() in embedded:
            continue
        body.append(f'<figure><img alt="{_esc(p.name)}" src="{data_uri(p)}">'
                    f"<figcaption>{_esc(p.relative_to(directory))}</figcaption></figure>")
    body.append("<h2>Files</h2><table><tr><th>file</th><th>bytes</th></tr>"
                + "".join(f"<tr><td>{_esc(p.relative_to(directory))}</td>"
                          f"<td>{p.stat().st_size:,}</td></tr>" for p in files) + "</table>")
    title = f"tcplab report: {directory.resolve().name}"
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_esc(title)}</title><style>{_CSS}</style></head>"
            f"<body>\n{chr(10).join(body)}\n</body></html>\n"), problems


def write_report(directory: Path, output: Path | None = None) -> Path:
    """Writes the report on `directory` (default ``directory/report.html``)."""
    return write_report_checked(directory, output)[0]


def write_report_checked(directory: Path,
                         output: Path | None = None) -> tuple[Path, list[str]]:
    """`write_report`, also returning the manifest problems the page names."""
    out = output or directory / "report.html"
    text, problems = render_checked(directory)
    out.write_text(text, encoding="utf-8")
    return out, problems
