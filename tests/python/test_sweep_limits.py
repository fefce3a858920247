"""Sweeps that survive their worst point (defect 10): limits, crashes, streaming, plans."""

import ctypes
import json
import time

import pandas as pd
import pytest
import tcplab
from tcplab import sweeps
from tcplab.cli import main
from tcplab.pool import run_supervised

BASE = {"link": {"rate": "10Mbps", "delay": "1ms"}, "flow": [{"bytes": "1MB"}]}


def base(**over):
    return tcplab.Scenario({**BASE, **over}, source="limits.py")


def test_a_point_that_exhausts_memory_is_a_failure_not_the_end_of_the_sweep():
    # sample = "1ns" on a 1 MB flow asks for about 4.7 GB of samples: once this ended the
    # sweep with BrokenProcessPool and no results at all. (The series budget now bounds
    # it; lifting the budget and the run's own memory check recreates the runaway.)
    res = tcplab.sweep(base(series_rows=1 << 32, memory_limit="10000GB"),
                       {"sample": ["10ms", "1ns", "20ms"]}, seeds=1, workers=2,
                       memory_limit=256 << 20, progress=False)
    assert sorted(res.runs["sample"]) == ["10ms", "20ms"]
    assert list(res.failures["sample"]) == ["1ns"]
    err = res.failures["error"][0]
    assert "WorkerDied" in err and "memory" in err, err


def test_a_run_over_its_time_limit_is_stopped_and_reported():
    # A 200 GB transfer (160,000 simulated seconds) takes far longer than the 0.5 s limit;
    # the small one finishes.
    res = tcplab.sweep(base(sample="off", max_time="1000000s"),
                       {"flow.0.bytes": ["100KB", "200GB"]}, seeds=1,
                       workers=2, time_limit=0.5, progress=False)
    assert list(res.runs["flow.0.bytes"]) == ["100KB"]
    assert list(res.failures["flow.0.bytes"]) == ["200GB"]
    assert res.failures["error"][0].startswith("TimeoutError: scenario 'limits' (seed 1, "
                                               "replication 0) exceeded its time limit of 0.5 s")
    for ex in ["serial", "thread"]:  # the limit is the simulator's own, on every executor
        r = tcplab.sweep(base(sample="off", max_time="1000000s"), {"flow.0.bytes": ["200GB"]},
                         seeds=1,
                         executor=ex, time_limit=0.2, progress=False)
        assert r.failures["error"].str.startswith("TimeoutError").all()


def test_simulate_time_limit():
    with pytest.raises(TimeoutError, match="time limit of 0.2 s"):
        tcplab.simulate(base(sample="off", max_time="1000000s")
                        .with_values(**{"flow.0.bytes": "200GB"}),
                        time_limit=0.2)


def test_supervised_pool_survives_crashes_and_hangs():
    # A worker that segfaults or hangs outside the simulator is replaced; the rest go on.
    t0 = time.monotonic()
    outs = {o.index: o for o in run_supervised(ctypes.string_at, [b"ok", 0, b"fine"],
                                               workers=2)}
    assert outs[0].value == b"ok" and outs[2].value == b"fine"
    assert "SIGSEGV" in outs[1].error
    outs = {o.index: o for o in run_supervised(time.sleep, [0.01, 60, 0.02], workers=2,
                                               time_limit=0.3, grace=0.2)}
    assert outs[0].error is None and outs[2].error is None
    assert outs[1].error.startswith("TimeoutError") and "stopped" in outs[1].error
    assert time.monotonic() - t0 < 30


def test_finished_runs_are_written_as_they_complete(tmp_path, monkeypatch):
    stream = tmp_path / "parts"
    seen = []
    real = sweeps._one

    def spy(job):
        seen.append(sorted(p.name for p in stream.glob("*")))
        return real(job)

    monkeypatch.setattr(sweeps, "_one", spy)
    grid = {"link.delay": ["1ms", "2ms", "bad"]}
    res = tcplab.sweep(base(sample="off"), grid, seeds=1, executor="serial",
                       stream_to=stream, progress=False)
    # The invalid point is known before any run; each run's file exists before the next.
    assert seen == [["failures.jsonl"], ["failures.jsonl", "run-000000.parquet"]]
    fails = [json.loads(x) for x in (stream / "failures.jsonl").read_text().splitlines()]
    assert fails[0]["link.delay"] == "bad" and "link.delay" in fails[0]["error"]
    parts = pd.concat([pd.read_parquet(p) for p in sorted(stream.glob("run-*.parquet"))])
    assert parts["goodput_bps"].tolist() == res.runs["goodput_bps"].tolist()


def test_process_sweep_streams_too(tmp_path):
    res = tcplab.sweep(base(sample="off"), {"link.delay": ["1ms", "2ms"]}, seeds=2,
                       workers=2, stream_to=tmp_path, progress=False)
    assert len(list(tmp_path.glob("run-*.parquet"))) == 4 == len(res.runs)


def _plan(tmp_path, extra=""):
    (tmp_path / "s.toml").write_text('sample = "off"\nmax_time = "1000000s"\n[link]\n'
                                     'rate = "20Mbps"\n[[flow]]\nbytes = "100KB"\n')
    p = tmp_path / "p.toml"
    p.write_text('scenario = "s.toml"\nseeds = 2\n' + extra)
    return p


@pytest.mark.parametrize("extra, needle", [
    ('metrics = ["goodput"]\n[grid]\n"link.delay" = ["1ms"]\n',
     "metrics = 'goodput': not a numeric column of the flows table"),
    ('[grid]\n"link.delay" = ["1ms"]\n[[plot]]\nx = "link.delay"\ny = "goodput"\n',
     "plot[0].y = 'goodput': not a numeric column"),
    ('[grid]\n"link.delay" = ["1ms"]\n[[plot]]\nx = "link.delay"\ny = "goodput_bps"\n'
     'scale = "big"\n', "plot[0].scale = 'big': must be a number"),
    ('[grid]\n"link.delay" = ["1ms"]\n[[plot]]\nx = "link.delay"\ny = "goodput_bps"\n'
     'title = 3\n', "plot[0].title = 3: must be a string"),
    ('[grid]\n"link.delay" = ["1ms", "fast"]\n',
     'grid."link.delay" = \'fast\': '),
    ('[grid]\n"link.dealy" = ["1ms"]\n', "link.dealy"),
    ('name = "../x"\n[grid]\n"link.delay" = ["1ms"]\n', "name = '../x'"),
])
def test_plans_are_checked_before_the_first_run(tmp_path, monkeypatch, capsys, extra, needle):
    def no_run(*a, **k):
        raise AssertionError("a run started before the plan was checked")

    monkeypatch.setattr(sweeps, "_one", no_run)
    assert main(["sweep", str(_plan(tmp_path, extra)), "--executor", "serial"]) == 1
    err = capsys.readouterr().err
    assert needle in err, err


def test_plan_cli_limits_and_stream(tmp_path, capsys):
    plan = _plan(tmp_path, '[grid]\n"flow.0.bytes" = ["100KB", "400GB"]\n')
    out = tmp_path / "out"
    assert main(["sweep", str(plan), "--out", str(out), "--time-limit", "0.5",
                 "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert "2 failed run(s)" in err and "400GB" in err and "TimeoutError" in err
    runs = pd.read_parquet(out / "p-runs.parquet")
    assert set(runs["flow.0.bytes"]) == {"100KB"}
    fails = pd.read_parquet(out / "p-failures.parquet")
    assert set(fails["flow.0.bytes"]) == {"400GB"}
    assert not (out / "p-runs.parts").exists(), "parts are removed once the table is written"
