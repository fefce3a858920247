"""Claim tables in the docs are written from a run (tcplab.reproduce.docs_claims), never
pasted: every claim table sits in a generated block, and `--docs` rewrites exactly it."""

from __future__ import annotations

from pathlib import Path

from tcplab.reproduce import STUDIES
from tcplab.reproduce.docs_claims import HEADER, blocks, loose_tables, replace, update

DOCS = Path(__file__).resolve().parents[2] / "docs"

TABLES = f"""# x

## Claims

Intro.

{HEADER}
|---|---|---|---|---|
| A holds (Fig. 1) | 1 | 2 | holds | because |

Verdicts: holds 1.

## Tables

| a | b |
"""


def test_every_claim_table_in_the_docs_is_generated():
    seen = set()
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text()
        assert not loose_tables(text), (
            f"{path}: a claim table outside '<!-- claims: STUDY -->' (lines "
            f"{loose_tables(text)}): write it with `tcplab reproduce STUDY --docs docs`")
        for study, _, _ in blocks(text):
            assert study in STUDIES, f"{path}: unknown study '{study}'"
            seen.add(study)
    assert "profiles" in seen and "coded" in seen


def test_update_rewrites_only_its_studys_block(tmp_path):
    doc = tmp_path / "d.md"
    stale = ("before\n<!-- claims: profiles -->\n| claim | ... stale +144% |\n"
             "<!-- /claims -->\nbetween\n<!-- claims: coded -->\nkeep\n<!-- /claims -->\n")
    doc.write_text(stale)
    tables = tmp_path / "tables.md"
    tables.write_text(TABLES)
    assert update(tmp_path, "profiles", tables, "n = 5") == [doc]
    new = doc.read_text()
    assert "+144%" not in new and "| A holds (Fig. 1) | 1 | 2 | holds | because |" in new
    assert "Verdicts: holds 1." in new and "`tcplab reproduce profiles --docs`" in new
    assert new.startswith("before\n") and "between\n<!-- claims: coded -->\nkeep\n" in new
    assert "## Tables" not in new
    # Running again with the same table changes nothing but the stamp's date.
    again, n = replace(new, "profiles", "x\n")
    assert n == 1 and "x\n<!-- /claims -->" in again
    assert loose_tables(new) == []
    assert loose_tables(f"{HEADER}\n") == [1]



def test_a_docs_folder_without_the_studys_block_is_refused_before_the_run(tmp_path, capsys):
    from tcplab.cli import main

    (tmp_path / "x.md").write_text("<!-- claims: wave -->\n<!-- /claims -->\n")
    out = tmp_path / "out"
    cases = [(tmp_path / "missing", "not a folder"), (tmp_path, "no '<!-- claims: tack -->'")]
    for docs, why in cases:
        assert main(["reproduce", "tack", "--quick", "--docs", str(docs), "--out",
                     str(out)]) == 2
        assert why in capsys.readouterr().err
        assert not out.exists(), "refused before anything was written"
    assert main(["reproduce", "all", "--docs", str(tmp_path), "--out", str(out)]) == 2
    assert "one study" in capsys.readouterr().err
