"""`tcplab report DIR`: one self-contained HTML page that embeds every figure it shows."""

import base64
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import tcplab
from tcplab.cli import main
from tcplab.report import render

SCEN = ('name = "rep"\nsample = "50ms"\n[link]\nrate = "20Mbps"\ndelay = "2ms"\nloss = "1%"\n'
        '[[flow]]\nbytes = "300KB"\n')


def references(page: str) -> list[str]:
    return re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', page)


def assert_self_contained(page: str, directory: Path) -> None:
    refs = references(page)
    assert refs, "the page shows figures"
    assert all(r.startswith("data:") for r in refs), [r[:60] for r in refs
                                                     if not r.startswith("data:")]
    assert "url(" not in page and "@import" not in page
    for png in directory.rglob("*.png"):
        assert base64.b64encode(png.read_bytes()).decode() in page, f"{png.name} not embedded"
    assert f"report made by tcplab</th><td>{tcplab.__version__}" in page


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A run, a sweep and a (small) reproduction, each written by the CLI."""
    root = tmp_path_factory.mktemp("outputs")
    (root / "s.toml").write_text(SCEN)
    assert main(["run", str(root / "s.toml"), "--seed", "7", "--replications", "2",
                 "--out", str(root / "run")]) == 0
    (root / "p.toml").write_text('scenario = "s.toml"\nseeds = [3, 4]\n'
                                 '[grid]\n"link.delay" = ["1ms", "5ms"]\n'
                                 '[[plot]]\nx = "link.delay"\ny = "goodput_bps"\n')
    assert main(["sweep", str(root / "p.toml"), "--out", str(root / "sweep"),
                 "--executor", "serial"]) == 0
    from tcplab.reproduce import inet_vegas_westwood as study

    mp = pytest.MonkeyPatch()
    mp.setattr(study, "DELAYS", ["1ms", "10ms"])
    mp.setattr(study, "PERS", ["1%"])
    mp.setattr(study, "VARIANTS", ["reno", "vegas"])
    assert main(["reproduce", "inet-vegas-westwood", "--seeds", "2", "--workers", "1",
                 "--out", str(root / "repro")]) == 0
    mp.undo()
    return root


def test_run_report(outputs, capsys):
    d = outputs / "run"
    capsys.readouterr()
    assert main(["report", str(d)]) == 0
    assert "report.html" in capsys.readouterr().out
    page = (d / "report.html").read_text()
    assert_self_contained(page, d)
    assert len(list(d.glob("*.png"))) == 2
    assert 'bytes = &quot;300KB&quot;' in page, "the scenario text"
    assert "<th>seeds</th><td>7</td>" in page
    assert "rep-s7-r1-flows.parquet" in page and "goodput_bps" in page
    assert "tcplab run" in page and "--replications 2" in page


def test_sweep_report(outputs, tmp_path):
    d = outputs / "sweep"
    out = tmp_path / "sweep.html"
    assert main(["report", str(d), "-o", str(out)]) == 0
    page = out.read_text()
    assert_self_contained(page, d)
    assert "<th>seeds</th><td>3, 4</td>" in page
    assert "plan " in page and "[grid]" in page, "the plan text"
    assert "p-summary.parquet" in page and "p-runs.parquet" in page


def test_reproduction_report(outputs):
    d = outputs / "repro" / "inet-vegas-westwood"
    page = render(d)
    assert_self_contained(page, d)
    assert len(list(d.glob("*.png"))) >= 3
    assert "Throughput [Mbit/s] vs PER" in page, "tables.md rendered"
    assert "base scenario" in page and "[link]" in page
    assert "<th>seeds</th><td>1, 2</td>" in page


def test_markdown_figure_references_are_embedded(tmp_path):
    png = Path(__file__).resolve().parents[2] / "docs"
    figs = sorted(png.rglob("*.png"))[:1]
    if not figs:
        pytest.skip("no PNG in docs/ to reference")
    (tmp_path / "sub").mkdir()
    shutil.copy(figs[0], tmp_path / "sub" / "fig.png")
    (tmp_path / "notes.md").write_text("# Notes\n\nSee ![the figure](sub/fig.png) and "
                                       "![gone](missing.png).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    page = render(tmp_path)
    assert page.count(base64.b64encode((tmp_path / "sub" / "fig.png").read_bytes()).decode()) == 1
    assert "missing figure missing.png" in page
    assert "<th>a</th>" in page and "<td>2</td>" in page
    assert "No tcplab-*.json manifest" in page


def test_report_errors(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 1
    assert "not a directory" in capsys.readouterr().err
    assert main(["report", str(tmp_path)]) == 1
    assert "no files" in capsys.readouterr().err


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if path := shutil.which(name):
            return path
    return None


def test_report_renders_in_headless_chromium(outputs, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    d = outputs / "sweep"
    page = render(d)
    # A probe appended for the test only: the title reports how many images decoded.
    probe = ("<script>window.addEventListener('load', () => { const i = [...document.images];"
             " document.title = 'decoded ' + i.filter(x => x.complete && x.naturalWidth > 0)"
             ".length + '/' + i.length; });</script>")
    html = tmp_path / "probe.html"
    html.write_text(page.replace("</body>", probe + "</body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--virtual-time-budget=5000", "--dump-dom",
                          html.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    n = page.count("<img ")
    assert f"<title>decoded {n}/{n}</title>" in dom.stdout, dom.stdout[:300]
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,1600",
                    html.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
