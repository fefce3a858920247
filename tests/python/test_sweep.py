"""Sweeps, plans and the statistics behind their confidence intervals."""

import math

import pandas as pd
import pytest
import tcplab
from tcplab.cli import main
from tcplab.plan import load_plan
from tcplab.stats import jain_index, mean_ci, t_ppf
from tcplab.sweeps import expand_grid


def base():
    return tcplab.Scenario({
        "sample": "off",
        "link": {"rate": "20Mbps", "delay": "2ms", "queue": "50pkt", "loss": "1%"},
        "flow": [{"bytes": "500KB"}],
    }, source="sweep-test")


def test_t_quantiles_match_tables():
    # Student-t table values.
    assert t_ppf(0.975, 4) == pytest.approx(2.7764, abs=1e-3)
    assert t_ppf(0.95, 4) == pytest.approx(2.1318, abs=1e-3)
    assert t_ppf(0.975, 30) == pytest.approx(2.0423, abs=1e-3)
    assert t_ppf(0.5, 7) == pytest.approx(0.0, abs=1e-6)


def test_mean_ci_and_jain():
    m, h, n = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0], level=0.95)
    assert (m, n) == (3.0, 5)
    assert h == pytest.approx(2.7764 * math.sqrt(2.5 / 5), rel=1e-3)
    assert math.isnan(mean_ci([1.0])[1])
    assert jain_index([5, 5]) == 1.0
    assert jain_index([1, 0, 0, 0]) == 0.25


def test_grid_expansion_and_errors():
    pts = expand_grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(pts) == 6 and {"a": 2, "b": "z"} in pts
    with pytest.raises(ValueError, match="list of values"):
        expand_grid({"a": "1ms"})


@pytest.mark.parametrize("executor", ["serial", "thread", "process"])
def test_sweep_is_tidy_and_deterministic(executor):
    grid = {"link.delay": ["2ms", "10ms"], "flow.*.recovery": ["reno", "sack"]}
    res = tcplab.sweep(base(), grid, seeds=3, workers=2, executor=executor, progress=False)
    assert len(res.runs) == 2 * 2 * 3
    assert {"link.delay", "flow.*.recovery", "seed", "replication", "goodput_bps"} <= set(
        res.runs.columns)
    assert res.failures.empty
    s = res.summary("goodput_bps", level=0.9)
    assert len(s) == 4 and (s["n"] == 3).all()
    assert (s["ci_low"] <= s["mean"]).all() and (s["mean"] <= s["ci_high"]).all()
    # Longer delay, lower goodput (loss-limited: Mathis ~ 1/RTT).
    short = s[s["link.delay"] == "2ms"]["mean"].mean()
    long = s[s["link.delay"] == "10ms"]["mean"].mean()
    assert long < short
    again = tcplab.sweep(base(), grid, seeds=3, executor="serial", progress=False)
    assert again.runs["goodput_bps"].tolist() == res.runs["goodput_bps"].tolist()


def test_failed_runs_are_reported_and_others_kept():
    res = tcplab.sweep(base(), {"link.rate": ["20Mbps", "0Mbps"]}, seeds=2,
                       executor="thread", progress=False)
    assert len(res.runs) == 2
    assert len(res.failures) == 2
    assert set(res.failures["link.rate"]) == {"0Mbps"}
    assert res.failures["error"].str.contains("link.rate").all()


def test_plan_cli_writes_tables_and_plots(tmp_path, capsys):
    scen = tmp_path / "s.toml"
    scen.write_text('sample = "off"\n[link]\nrate = "20Mbps"\nloss = "1%"\n'
                    '[[flow]]\nbytes = "300KB"\n')
    plan = tmp_path / "p.toml"
    plan.write_text('scenario = "s.toml"\nseeds = 2\nlevel = 0.9\n'
                    '[grid]\n"link.delay" = ["1ms", "5ms"]\n'
                    '[[plot]]\nx = "link.delay"\ny = "goodput_bps"\n')
    out = tmp_path / "out"
    assert main(["sweep", str(plan), "--out", str(out), "--executor", "serial"]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"p-runs.parquet", "p-summary.parquet", "p-failures.parquet"} <= names
    assert any(n.endswith(".png") for n in names)
    assert "90% confidence interval" in capsys.readouterr().out


def test_plan_errors_name_file_key_value(tmp_path):
    plan = tmp_path / "bad.toml"
    plan.write_text('scenario = "s.toml"\nseeds = 0\n[grid]\n"link.delay" = ["1ms"]\n')
    with pytest.raises(tcplab.ScenarioError, match=r"bad.toml: seeds = 0"):
        load_plan(plan)
    plan.write_text('scenario = "s.toml"\n[grid]\n"a" = [1]\n[[plot]]\nx = "b"\ny = "c"\n')
    with pytest.raises(tcplab.ScenarioError, match=r"plot\[0\].x = 'b'"):
        load_plan(plan)
    plan.write_text('scenario = "s.toml"\ncolour = 1\n[grid]\n"a" = [1]\n')
    with pytest.raises(tcplab.ScenarioError, match="colour.*unknown key"):
        load_plan(plan)


def test_reproduce_lists_and_runs_a_study(tmp_path, capsys, monkeypatch):
    assert main(["reproduce", "--list"]) == 0
    assert "inet-vegas-westwood" in capsys.readouterr().out
    assert main(["reproduce", "no-such-study"]) == 2
    from tcplab.reproduce import inet_vegas_westwood as study

    monkeypatch.setattr(study, "DELAYS", ["1ms", "10ms"])
    monkeypatch.setattr(study, "PERS", ["0.5%", "2%"])
    paths = study.run(tmp_path, seeds=2, workers=1, variants=["reno", "newreno", "vegas"])
    names = {p.name for p in paths}
    assert {"fig1-throughput-vs-delay.png", "runs.parquet", "tables.md"} <= names
    # Every file the study wrote is listed, and every listed file exists.
    assert names == {p.name for p in tmp_path.iterdir()}
    text = (tmp_path / "tables.md").read_text()
    assert "Throughput [Mbit/s] vs PER" in text and "| 10ms |" in text
    # Figs. 2-3 add Vegas with INET's fine-timeout timing (from the first transmission),
    # which resends retransmitted segments again: a higher retransmission ratio.
    summary = pd.read_csv(tmp_path / "summary.csv")
    fig3 = summary[summary["figure"] == "fig3-retransmission-ratio-vs-per"]
    ratio = fig3[fig3["link.loss"] == "2%"].set_index("flow.0.cc")["mean"]
    assert set(ratio.index) == {"reno", "newreno", "vegas", "vegas-inet"}
    assert ratio["vegas-inet"] > 1.3 * ratio["vegas"]
    fig1 = summary[summary["figure"] == "fig1-throughput-vs-delay"]
    assert "vegas-inet" not in set(fig1["flow.0.cc"])
    # Retransmission-ratio intervals never leave [0, 1].
    assert (fig3["ci_low"].dropna() >= 0).all() and (fig3["ci_high"].dropna() <= 1).all()


def test_recovery_time_definition():
    import numpy as np
    from tcplab.reproduce.recovery import recovery_time

    t = np.arange(0, 20.01, 0.1)
    # 10 Mbit/s until 5 s, nothing until 7 s, then a ramp reaching full rate at 10 s.
    rate = np.where(t < 5, 10e6, np.where(t < 7, 0, np.clip((t - 7) / 3, 0, 1) * 10e6))
    delivered = np.concatenate([[0], np.cumsum(rate[1:] * 0.1 / 8)])
    rt = recovery_time(t, delivered, reconnect_s=7.0, capacity_bps=10e6, rtt_s=0.05)
    # The 1 s window must average >= 9 Mbit/s: reached shortly after the ramp ends.
    assert 2.9 <= rt <= 3.6
    assert np.isnan(recovery_time(t, np.zeros_like(t), 7.0, 10e6, 0.05))
    # A satellite RTT widens the window to 4 x 0.6 s = 2.4 s, so recovery is later.
    assert recovery_time(t, delivered, 7.0, 10e6, 0.6) > rt
