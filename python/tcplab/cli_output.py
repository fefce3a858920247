"""What every command shares for its output: JSON or text on stdout, notes on stderr,
and the check of an output path. Below `cli.py` and the command modules that use it."""

from __future__ import annotations

import argparse
import json
import sys


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


def out_path(text: str) -> str:
    """An argparse type for --out and other output paths: not empty (an empty --out once
    wrote nothing, silently)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give a directory, e.g. --out results")
    return text
