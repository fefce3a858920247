"""The studies' claim tables, paper overlays and one-seed rule, and ``tcplab reproduce all``
with its report (rendered in headless Chromium when it is installed)."""

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from tcplab.cli import main
from tcplab.reproduce import STUDIES, get
from tcplab.reproduce.common import DIFFERS, HOLDS, NOT_RUN, SHAPE

VERDICTS = {HOLDS, SHAPE, DIFFERS, NOT_RUN}


def claim_rows(text: str) -> list[list[str]]:
    """The rows of the claim table that opens a tables.md."""
    assert text.startswith("## Claims"), text[:200]
    table = text.split("## Tables")[0]
    rows = [r.strip().strip("|").split("|") for r in table.splitlines() if r.startswith("| ")]
    return [[c.strip() for c in r] for r in rows[1:]]


# ------------------------------------------------ studies without a random component


def test_wave_path_has_no_random_component():
    """Why the Wave study runs one seed: seeds 1 and 2 give identical rows."""
    from tcplab.reproduce import wave

    one, _ = wave.experiments(1, ["wave", "cubic"], wave.QUICK_TIMING)
    two, _ = wave.experiments(2, ["wave", "cubic"], wave.QUICK_TIMING)
    assert wave.DETERMINISTIC
    pd.testing.assert_frame_equal(one.drop(columns="seed"), two.drop(columns="seed"))


def test_handover_path_has_no_random_component(tmp_path):
    from tcplab.reproduce import handover

    handover.run(tmp_path, quick=True, workers=1, seed_list=[1, 2])
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert handover.DETERMINISTIC
    one, two = (runs[runs.seed == s].drop(columns="seed").reset_index(drop=True)
                for s in (1, 2))
    assert len(one) == 4
    pd.testing.assert_frame_equal(one, two)


def test_only_declared_studies_skip_seeds():
    """Studies with random loss keep their seeds; the default of coded matches its docs."""
    from tcplab.reproduce.runner import seeds_used

    declared = {n for n in STUDIES if getattr(get(n), "DETERMINISTIC", False)}
    assert declared == {"wave", "handover"}
    assert seeds_used(get("wave"), 5) == 1
    assert seeds_used(get("coded"), None) == 10
    docs = Path(__file__).resolve().parents[2] / "docs" / "reproductions" / "coded.md"
    assert "over 10 seeds" in docs.read_text()
    assert seeds_used(get("inet-vegas-westwood"), None) == 5


# ------------------------------------------------ claim tables are computed


def test_wave_claims_are_computed_from_the_numbers(monkeypatch):
    from tcplab.reproduce import wave

    rows, _ = wave.experiments(1, ["wave", "bbr", "cubic"], wave.QUICK_TIMING)
    got = {c.claim: c.verdict for c in wave.claims(rows)}
    assert set(got.values()) <= VERDICTS and NOT_RUN not in got.values()
    single = next(k for k in got if k.startswith("One flow"))
    assert got[single] == HOLDS
    # The same numbers against another paper value: the verdict follows the numbers.
    monkeypatch.setitem(wave.PAPER, "single_Mbps", 3.0)
    assert {c.claim: c.verdict for c in wave.claims(rows)}[single] == DIFFERS


def test_plot_summary_draws_paper_values_hollow_and_categories_unjoined():
    import matplotlib

    matplotlib.use("Agg")
    from tcplab.plot import plot_summary

    s = pd.DataFrame({"phy": ["b", "g", "b", "g"], "t": ["x", "x", "y", "y"],
                      "mean": [1.0, 2.0, 1.5, 2.5], "ci_low": [0.9, 1.9, 1.4, 2.4],
                      "ci_high": [1.1, 2.1, 1.6, 2.6], "n": [3] * 4})
    paper = pd.DataFrame({"phy": ["b", "g"], "t": ["x", "x"], "value": [1.2, 2.2],
                          "source": ["Fig. 9"] * 2})
    fig = plot_summary(s, "phy", "t", paper=paper, ylabel="goodput")
    lines = fig.axes[0].get_lines()
    marked = [ln for ln in lines if ln.get_label() == "paper (Fig. 9): x"]
    assert len(marked) == 1 and marked[0].get_markerfacecolor() == "none"
    assert list(marked[0].get_ydata()) == [1.2, 2.2]
    # Categorical x: no series joined by a line.
    assert all(ln.get_linestyle() in ("None", "none", "") for ln in lines
               if not ln.get_label().startswith("_"))
    matplotlib.pyplot.close(fig)


# ------------------------------------------------ reproduce all --quick and its report


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    """`tcplab reproduce all --quick` with one seed and smaller grids (test time)."""
    from tcplab.reproduce import inet_vegas_westwood as ivw
    from tcplab.reproduce import wave_real

    root = tmp_path_factory.mktemp("all")
    mp = pytest.MonkeyPatch()
    # wave-real runs in real time (minutes even with --quick): skipped, as without root.
    mp.setattr(wave_real, "ready", lambda: (False, "skipped by the test (real time)"))
    mp.setattr(ivw, "DELAYS", ["0ms", "1ms", "30ms"])
    mp.setattr(ivw, "PERS", ["0%", "1%"])
    mp.setattr(ivw, "VARIANTS", ["reno", "vegas", "westwood"])
    assert main(["reproduce", "all", "--quick", "--seeds", "1", "--workers", "2",
                 "--out", str(root), "--quiet"]) == 0
    mp.undo()
    return root


def test_every_study_opens_its_tables_with_claims(everything):
    for name in STUDIES:
        d = everything / name
        if name == "wave-real":
            assert "skipped by the test" in (d / "SKIPPED.md").read_text()
            continue
        rows = claim_rows((d / "tables.md").read_text())
        assert len(rows) >= 3, name
        for r in rows:
            assert len(r) == 5 and r[3] in VERDICTS, (name, r)
            assert "(" in r[4] or "docs/" in r[4], ("the why cites an experiment", r)
        assert any(r[3] != NOT_RUN for r in rows), name
        assert list(d.glob("*.png")), f"{name} draws figures"


def test_report_of_everything_leads_with_claims_and_figures(everything):
    page = (everything / "report.html").read_text()
    pngs = sorted(everything.rglob("*.png"))
    assert len(pngs) >= 20
    first_claims = page.index("<h3>Claims</h3>")
    raw = page.index("Raw tables")
    assert first_claims < raw and "<details" in page[raw - 200:raw]
    for p in pngs:
        at = page.index(f"<figcaption>{p.relative_to(everything)}</figcaption>")
        assert at < raw, f"{p.name} is shown before the raw tables"
    assert page.count("<img ") == len(pngs), "every figure once"
    for name in STUDIES:
        assert f"<h2>{name} " in page
    assert "Not run here: skipped by the test (real time)" in page


def test_report_finds_the_manifest_below_the_folder(tmp_path):
    assert main(["reproduce", "wave", "--quick", "--out", str(tmp_path), "--quiet"]) == 0
    assert not list(tmp_path.glob("tcplab-*.json")), "the manifest is in wave/"
    assert main(["report", str(tmp_path), "--quiet"]) == 0
    page = (tmp_path / "report.html").read_text()
    assert "No tcplab-*.json manifest" not in page
    assert page.index("<h3>Claims</h3>") < page.index("<img ") < page.index("Raw tables")
    assert "<th>seeds</th><td>1</td>" in page


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if path := shutil.which(name):
            return path
    return None


def test_report_of_everything_renders_in_headless_chromium(everything, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    page = (everything / "report.html").read_text()
    # A probe appended for the test only: the title lists every image that did not decode.
    probe = ("<script>window.addEventListener('load', () => { const i = [...document.images];"
             " const bad = i.filter(x => !(x.complete && x.naturalWidth > 0)).map(x => x.alt);"
             " document.title = 'decoded ' + (i.length - bad.length) + '/' + i.length"
             " + ' bad:' + bad.join(','); });</script>")
    html = tmp_path / "probe.html"
    html.write_text(page.replace("</body>", probe + "</body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--virtual-time-budget=10000", "--dump-dom",
                          html.as_uri()], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    n = len(list(everything.rglob("*.png")))
    title = re.search(r"<title>(.*?)</title>", dom.stdout)
    assert title and title.group(1) == f"decoded {n}/{n} bad:", dom.stdout[:300]
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,1600",
                    html.as_uri()], capture_output=True, timeout=180, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
