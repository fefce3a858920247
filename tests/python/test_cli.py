"""The tcplab command line."""

import subprocess
import sys

from tcplab.cli import main


def test_run_writes_tables_and_plot(example, tmp_path, capsys):
    assert main(["run", str(example), "--seed", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "newreno-lossy" in out and "goodput_Mbps" in out
    files = {p.name for p in tmp_path.iterdir()}
    assert "newreno-lossy-s1-r0-flows.parquet" in files
    assert "newreno-lossy-s1-r0-link_series.parquet" in files
    png = tmp_path / "newreno-lossy-s1-r0-plot.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_scenario_is_a_clear_error_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[link]\nrate = "fast"\n[[flow]]\nbytes = "1MB"\n')
    p = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "run", str(bad)], capture_output=True, text=True
    )
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert "bad.toml: link.rate = \"fast\"" in p.stderr


def test_check_and_bench_argument_errors(example, capsys):
    assert main(["check", str(example)]) == 0
    assert "ok: Scenario('newreno-lossy'" in capsys.readouterr().out
    assert main(["bench", "--only", "B9"]) == 2
