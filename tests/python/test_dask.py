"""Sweeps on Dask: the same runs table as the local executors, failures kept (issue 10).

Needs ``dask.distributed`` (the ``tcplab[dask]`` extra; scripts/test.sh installs it).
"""

import pandas as pd
import pytest
import tcplab
from tcplab.cli import main

distributed = pytest.importorskip("distributed", reason="pip install 'tcplab[dask]'")

GRID = {"link.delay": ["2ms", "10ms"], "flow.*.recovery": ["reno", "sack"]}


def base():
    return tcplab.Scenario({
        "sample": "off",
        # The 300GB point must outlast the 0.5 s time limit: 10 simulated hours.
        "max_time": "36000s",
        "link": {"rate": "20Mbps", "delay": "2ms", "queue": "50pkt", "loss": "1%"},
        "flow": [{"bytes": "300KB"}],
    }, source="dask-test")


def digest(df: pd.DataFrame) -> int:
    """A hash of a whole table: values, column names and order."""
    return int(pd.util.hash_pandas_object(df, index=False).sum()) ^ hash(tuple(df.columns))


@pytest.fixture(scope="module")
def local_runs():
    return tcplab.sweep(base(), GRID, seeds=2, workers=2, progress=False).runs


@pytest.fixture(scope="module")
def cluster():
    """A real cluster: one worker process on this machine, reached by its address."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as c:
        yield c


def test_in_process_client_gives_the_local_table(local_runs):
    with distributed.Client(processes=False, dashboard_address=None) as client:
        res = tcplab.sweep(base(), GRID, seeds=2, executor="dask", client=client,
                           progress=False)
        assert client.status == "running", "a client we were given stays open"
    pd.testing.assert_frame_equal(res.runs, local_runs)
    assert digest(res.runs) == digest(local_runs)
    assert res.failures.empty


def test_scheduler_address_and_failed_runs_kept(cluster, local_runs):
    grid = {**GRID, "flow.0.bytes": ["300KB", "300GB"]}
    res = tcplab.sweep(base(), grid, seeds=2, executor="dask",
                       client=cluster.scheduler_address, time_limit=0.5, progress=False)
    assert digest(res.runs) == digest(
        local_runs.assign(**{"flow.0.bytes": "300KB"})[res.runs.columns])
    assert len(res.failures) == 8
    assert set(res.failures["flow.0.bytes"]) == {"300GB"}
    assert res.failures["error"].str.startswith("TimeoutError").all()


def test_cli_dask_address(cluster, tmp_path, capsys):
    (tmp_path / "s.toml").write_text('sample = "off"\n[link]\nrate = "20Mbps"\nloss = "1%"\n'
                                     '[[flow]]\nbytes = "200KB"\n')
    plan = tmp_path / "p.toml"
    plan.write_text('scenario = "s.toml"\nseeds = 2\n[grid]\n"link.delay" = ["1ms", "5ms"]\n')
    out_d, out_l = tmp_path / "dask", tmp_path / "local"
    assert main(["sweep", str(plan), "--out", str(out_d), "--dask",
                 cluster.scheduler_address]) == 0
    assert main(["sweep", str(plan), "--out", str(out_l), "--workers", "2"]) == 0
    d, loc = (pd.read_parquet(o / "p-runs.parquet") for o in (out_d, out_l))
    assert len(d) == 4 and digest(d) == digest(loc)
    capsys.readouterr()


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    from tcplab import dask_executor

    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT_S", 1.0)
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        tcplab.sweep(base(), GRID, seeds=1, executor="dask", client="tcp://127.0.0.1:9",
                     progress=False)
