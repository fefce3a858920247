"""The Python API: scenarios, simulation, tables, errors."""

import pyarrow as pa
import pytest
import tcplab


def small(**over):
    base = {
        "name": "small",
        "sample": "10ms",
        "link": {"rate": "20Mbps", "delay": "2ms", "queue": "50pkt", "loss": "1%"},
        "flow": [{"cc": "newreno", "bytes": "1MiB"}],
    }
    sc = tcplab.Scenario(base, source="small.py")
    return sc.with_values(**over) if over else sc


def test_example_runs_and_delivers_everything(example):
    sc = tcplab.Scenario.from_toml(example)
    res = tcplab.simulate(sc, seed=1)
    f = res.flows
    assert len(f) == 1
    assert bool(f.loc[0, "completed"])
    assert f.loc[0, "bytes_delivered"] == 10 * 1024 * 1024
    assert 0 < f.loc[0, "goodput_bps"] <= 100e6
    assert f.loc[0, "retransmitted_segments"] > 0, "0.5 % loss causes retransmissions"


def test_rows_carry_scenario_seed_replication():
    res = tcplab.simulate(small(), seed=7, replication=2)
    for name, table in res.tables.items():
        assert isinstance(table, pa.Table)
        cols = table.column_names
        assert cols[:3] == ["scenario", "seed", "replication"], name
        if table.num_rows:
            assert set(table.column("seed").to_pylist()) == {7}
            assert set(table.column("replication").to_pylist()) == {2}
            assert set(map(str, table.column("scenario").to_pylist())) == {"small"}


def test_series_views():
    res = tcplab.simulate(small(), seed=1)
    cw = res.series("cwnd")
    assert list(cw.columns)[-3:] == ["t_s", "flow", "cwnd"]
    assert (cw["t_s"].diff().dropna() >= 0).all()
    q = res.series("queue")
    assert {"link", "direction", "queue_pkts"} <= set(q.columns)
    assert res.series("srtt")["srtt_s"].dropna().min() >= 0.004  # 2 x 2 ms propagation
    with pytest.raises(KeyError, match="unknown series"):
        res.series("nope")


def test_determinism_and_seeds():
    a = tcplab.simulate(small(), seed=3)
    b = tcplab.simulate(small(), seed=3)
    c = tcplab.simulate(small(), seed=4)
    assert a.info["digest"] == b.info["digest"]
    assert a.tables["flow_series"].equals(b.tables["flow_series"])
    assert a.info["digest"] != c.info["digest"]


def test_with_values_and_wildcards():
    sc = small(**{"link.delay": "10ms", "flow.*.cc": "reno"})
    assert sc.data["link"]["delay"] == "10ms"
    res = tcplab.simulate(sc, seed=1)
    assert res.flows.loc[0, "rtt_min_s"] >= 0.020
    with pytest.raises(tcplab.ScenarioError, match="flow.5"):
        small(**{"flow.5.cc": "reno"})


def test_errors_name_source_key_value_reason(tmp_path):
    with pytest.raises(tcplab.ScenarioError) as e:
        small(**{"link.rate": "0Mbps"})
    msg = str(e.value)
    assert "small.py" in msg and "link.rate" in msg and "0Mbps" in msg and "> 0" in msg
    bad = tmp_path / "bad.toml"
    bad.write_text('[link]\nrate = "10Mbps"\n[[flow]]\nbytes = "1MB"\nmss = 9999\n')
    with pytest.raises(tcplab.ScenarioError, match=r"bad.toml: flow\[0\].mss = 9999"):
        tcplab.Scenario.from_toml(bad)
    with pytest.raises(tcplab.ScenarioError, match="cannot read"):
        tcplab.Scenario.from_toml(tmp_path / "missing.toml")
    with pytest.raises(tcplab.ScenarioError, match="unsupported value"):
        tcplab.Scenario({"link": {"rate": object()}}, source="obj")
    assert issubclass(tcplab.ScenarioError, ValueError)


def test_rust_panic_becomes_python_exception():
    with pytest.raises(tcplab.SimulationPanic, match="deliberate panic"):
        tcplab._tcplab._panic_for_test()
    assert issubclass(tcplab.SimulationPanic, Exception)


def test_parquet_roundtrip(tmp_path):
    import pyarrow.parquet as pq

    res = tcplab.simulate(small(), seed=1)
    paths = res.to_parquet(tmp_path, prefix="x-")
    names = sorted(p.name for p in paths)
    assert "x-flows.parquet" in names and "x-flow_series.parquet" in names
    back = pq.read_table(tmp_path / "x-flows.parquet")
    assert back.column("bytes_delivered").to_pylist() == res.tables["flows"].column(
        "bytes_delivered"
    ).to_pylist()


def test_rack_counters_reach_the_flows_table():
    sc = small(**{"flow.0.recovery": "sack", "flow.0.loss_detection": "rack",
                  "link.loss": "3%"})
    f = tcplab.simulate(sc, seed=2).flows
    assert {"tlp_probes", "rack_lost"} <= set(f.columns)
    assert f.loc[0, "rack_lost"] > 0, "3 % loss: RACK marks segments lost"
    # RFC 6675 detection (tcplab's own defaults; the default linux profile has RACK).
    plain = tcplab.simulate(small(**{"link.loss": "3%", "flow.0.stack": "tcplab"}),
                            seed=2).flows
    assert plain.loc[0, "rack_lost"] == 0 and plain.loc[0, "tlp_probes"] == 0
