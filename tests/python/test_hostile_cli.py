"""Hostile and careless input to the CLI and the Python API, round two (issue 31): each
one a clear error naming what is wrong, never a silent reinterpretation."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tcplab
from tcplab import _tcplab
from tcplab.cli import main

SCEN = {"sample": "off", "link": {"rate": "10Mbps", "delay": "1ms"},
        "flow": [{"bytes": "100KB"}]}
SCEN_TOML = ('sample = "off"\n[link]\nrate = "10Mbps"\ndelay = "1ms"\n'
             '[[flow]]\nbytes = "100KB"\n')


def scenario(**over):
    return tcplab.Scenario({**SCEN, **over}, source="hostile.py")


# --- item 8: duplicate seeds are not independent samples ------------------------------

def test_duplicate_seeds_are_refused_by_sweep():
    with pytest.raises(ValueError, match=r"seeds must be distinct: 1 listed more than once"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms"]}, seeds=[1, 1, 1, 2], progress=False)


def test_duplicate_grid_values_are_refused():
    with pytest.raises(ValueError, match=r"grid\['link.delay'\] lists '1ms' more than once"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms", "2ms", "1ms"]}, seeds=2,
                     progress=False)


def test_duplicate_seeds_are_refused_by_a_plan(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(SCEN_TOML)
    (tmp_path / "p.toml").write_text('scenario = "s.toml"\nseeds = [3, 3, 3]\n'
                                     '[grid]\n"link.delay" = ["1ms"]\n')
    assert main(["sweep", str(tmp_path / "p.toml"), "--executor", "serial"]) == 1
    err = capsys.readouterr().err
    assert "p.toml: seeds = [3, 3, 3]" in err and "distinct" in err, err


# --- item 11: check runs run's memory estimate ---------------------------------------

def test_check_refuses_what_run_refuses_for_memory(tmp_path, capsys):
    s = tmp_path / "big.toml"
    s.write_text('memory_limit = "1MB"\n' + SCEN_TOML)
    assert main(["check", str(s)]) == 1
    check = capsys.readouterr().err
    assert main(["run", str(s)]) == 1
    run = capsys.readouterr().err
    assert "memory_limit" in check and "needs about" in check, check
    assert check == run


# --- item 12: report names missing files and entries outside the folder ---------------

def test_report_names_missing_files_and_entries_outside_the_folder(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text(SCEN_TOML)
    d = tmp_path / "out"
    assert main(["run", str(s), "--out", str(d), "--no-plot", "--quiet"]) == 0
    manifest = next(d.glob("tcplab-run-*.json"))
    doc = json.loads(manifest.read_text())
    for name in doc["files"]:
        (d / name).unlink()
    doc["files"] += ["../s.toml", "/etc/passwd"]
    manifest.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["report", str(d)]) == 1
    err = capsys.readouterr().err
    assert "missing from" in err and "s-s1-r0-flows.parquet" in err, err
    assert "outside" in err and "../s.toml" in err and "/etc/passwd" in err, err
    page = (d / "report.html").read_text()
    assert "Missing results" in page and "s-s1-r0-flows.parquet" in page


# --- item 13: one validation of time_limit and memory_limit ---------------------------

@pytest.mark.parametrize("bad", [-1, 0, float("nan"), float("inf"), -0.5])
def test_time_limit_is_validated_alike_everywhere(bad):
    with pytest.raises(ValueError, match="time_limit must be a finite number of seconds > 0"):
        tcplab.simulate(scenario(), time_limit=bad)
    with pytest.raises(ValueError, match="time_limit must be a finite number of seconds > 0"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms"]}, seeds=1, time_limit=bad,
                     progress=False)
    with pytest.raises(ValueError, match="time_limit must be a finite number of seconds > 0"):
        _tcplab.run(scenario()._parsed, 1, time_limit_s=bad)


@pytest.mark.parametrize("bad", [True, "10s"])
def test_time_limit_of_the_wrong_type(bad):
    with pytest.raises(TypeError, match="time_limit must be a number of seconds"):
        tcplab.simulate(scenario(), time_limit=bad)


@pytest.mark.parametrize("bad", [-5, 0])
def test_memory_limit_is_validated(bad):
    with pytest.raises(ValueError, match="memory_limit must be a whole number of bytes > 0"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms"]}, seeds=1, memory_limit=bad,
                     progress=False)
    with pytest.raises(TypeError, match="memory_limit must be a whole number of bytes"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms"]}, seeds=1, memory_limit=1.5e9,
                     progress=False)


# --- item 14 (and 16): strings that are not text, numpy scalars ------------------------

def test_a_lone_surrogate_is_a_scenario_error_naming_the_key():
    with pytest.raises(tcplab.ScenarioError, match=r"hostile.py: flow\[0\].name: .*surrogate"):
        scenario(flow=[{"bytes": "100KB", "name": "a\ud800b"}])
    with pytest.raises(tcplab.ScenarioError, match=r"link: the key .*surrogate"):
        scenario(link={"rate": "10Mbps", "\udcff": 1})


def test_numpy_scalars_are_their_python_values():
    sc = scenario(flow=[{"bytes": np.int64(100_000), "handshake": np.bool_(False),
                         "count": np.int32(2)}])
    assert sc._summary["flows"] == 2
    assert sc.data["flow"][0]["handshake"] == np.bool_(False)
    with pytest.raises(tcplab.ScenarioError, match=r"numpy.ndarray"):
        scenario(flow=[{"bytes": np.array([1, 2])}])


# --- item 15: an empty --out ---------------------------------------------------------

@pytest.mark.parametrize("cmd", [["run", "s.toml"], ["sweep", "p.toml"],
                                 ["reproduce", "wave"], ["compare", "s.toml"],
                                 ["report", ".", "-o"], ["send", "127.0.0.1:9"],
                                 ["tcp-send", "127.0.0.1:9"], ["emulate"]])
def test_an_empty_out_is_refused(cmd, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty --out once wrote into the current directory
    flag = [] if cmd[-1] == "-o" else ["--out"]
    with pytest.raises(SystemExit) as e:
        main([*cmd, *flag, ""])
    assert e.value.code == 2
    assert "an empty path" in capsys.readouterr().err


def test_an_empty_out_is_refused_by_emulate_after_the_scenario(capsys, tmp_path,
                                                               monkeypatch):
    # Options between SCENARIO and `--` are parsed apart (net._split_command).
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(["emulate", "s.toml", "--out", "", "--", "true"])
    assert e.value.code == 2
    assert "an empty path" in capsys.readouterr().err


# --- item 16: the low ones -----------------------------------------------------------

def test_check_on_many_flows_prints_a_short_line(tmp_path, capsys):
    s = tmp_path / "many.toml"
    s.write_text('sample = "off"\ntopology = { kind = "dumbbell" }\n'
                 '[bottleneck]\nrate = "1Gbps"\n[[flow]]\nbytes = "1MB"\ncount = 5000\n')
    assert main(["check", str(s)]) == 0
    out = capsys.readouterr().out
    assert len(out) < 300 and "(10001 links)" in out, out


def test_run_json_keeps_the_thinned_series_note(tmp_path, capsys):
    s = tmp_path / "thin.toml"
    s.write_text('sample = "1ms"\nseries_rows = 1000\nduration = "3s"\n[link]\n'
                 'rate = "10Mbps"\n[[flow]]\nbytes = "unlimited"\n')
    assert main(["run", str(s), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["series_stride"] > 1 and "thinned" in run["note"], run


def test_a_closed_pipe_ends_quietly():
    # `tcplab list keys | head -1`: the reader leaves after one line.
    r = subprocess.run(f"{sys.executable} -m tcplab.cli list keys | head -1", shell=True,
                       capture_output=True, text=True, env={**os.environ})
    assert r.stdout.count("\n") == 1
    assert "BrokenPipeError" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    # Whether `head` leaves before the last write is a race; a reader gone before the
    # first write is not (without the handling this failed every time, `head` 2 in 3).
    p = subprocess.Popen([sys.executable, "-m", "tcplab.cli", "list", "keys"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    assert "BrokenPipeError" not in err and "Traceback" not in err, err


def test_recv_names_a_key_that_is_not_the_receivers(capsys):
    # `tcplab recv --set cc=cubic` complained that `bytes` was required, not about `cc`.
    assert main(["recv", "--listen", "127.0.0.1:0", "--set", "cc=cubic"]) == 1
    err = capsys.readouterr().err
    assert "flow.cc" in err and "not a receiver key" in err, err
    assert "bytes" not in err, err
