"""Runs that end before their flows finish say so (defect 6): a warning on the CLI, a
nonzero exit with --strict, and the reason in the run info."""

import subprocess
import sys

import tcplab

TRUNCATED = ('name = "cut"\nduration = "0.5s"\n[link]\nrate = "10Mbps"\ndelay = "5ms"\n'
             '[[flow]]\nbytes = "100MB"\n')


def cli(*args):
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_a_truncated_run_warns_and_fails_under_strict(tmp_path):
    s = tmp_path / "cut.toml"
    s.write_text(TRUNCATED)
    p = cli("run", s, "--no-plot")
    assert p.returncode == 0
    warn = [ln for ln in p.stderr.splitlines() if "warning" in ln]
    assert len(warn) == 1, p.stderr
    assert "ended by duration at 0.500 s" in warn[0] and "1 of 1 finite flow" in warn[0]
    assert "of 100,000,000 B delivered" in warn[0]
    assert cli("run", s, "--no-plot", "--strict").returncode == 1
    assert '"warning": "scenario' in cli("run", s, "--json").stdout


def test_a_complete_run_is_quiet_and_passes_strict(tmp_path):
    s = tmp_path / "ok.toml"
    s.write_text(TRUNCATED.replace("100MB", "100KB"))
    p = cli("run", s, "--no-plot", "--strict")
    assert p.returncode == 0 and "warning" not in p.stderr


def test_the_run_info_names_the_end_reason():
    res = tcplab.simulate(tcplab.Scenario({"duration": "0.5s",
                                           "link": {"rate": "10Mbps", "delay": "5ms"},
                                           "flow": [{"bytes": "100MB"}]}))
    assert res.info["end_reason"] == "duration"
    assert not res.flows["completed"][0]
    assert res.flows["bytes_written"][0] > res.flows["bytes_delivered"][0]
