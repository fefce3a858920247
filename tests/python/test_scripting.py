"""The scripting surface: units, the column reference, polars, notebooks, types, CLI."""

import ast
import importlib
import inspect
import json
import math
import pkgutil
from pathlib import Path

import pandas as pd
import pytest
import tcplab
import tcplab.mahimahi
from tcplab import _tcplab, columns, units
from tcplab.cli import build_parser, main
from tcplab.stats import format_interval, interval

ROOT = Path(__file__).resolve().parents[2]
DATAGRAM = {"link": {"rate": "10Mbps", "delay": "5ms"},
            "flow": [{"transport": "datagram", "rate": "1Mbps", "bytes": "50KB"},
                     {"bytes": "100KB", "name": "bulk"}]}


# ---- one unit parser (Rust)

def test_units_come_from_the_rust_parser():
    assert units.parse("10MiB") == ("size", 10 * 1024 * 1024)
    assert units.parse("0.5%") == ("probability", 0.005)
    assert units.parse("1.5ms") == ("duration", pytest.approx(0.0015))
    assert units.parse("100Mbps") == ("rate", 1e8)
    assert units.parse(7) == ("number", 7.0)
    assert units.to_number("10MiB") == pytest.approx(10.485760)  # MB on an axis
    assert units.to_number("2 min") == 120_000.0                  # ms
    assert units.to_number("fast") is None
    with pytest.raises(ValueError, match="'3 parsecs'|\"3 parsecs\""):
        units.parse("3 parsecs")
    with pytest.raises(ValueError, match="probability"):
        units.parse_probability("150%")
    # Sizes sort by value, not as strings; mixed kinds are not ordered by magnitude.
    assert units.sort_key(["10MiB", "1MiB", "2MiB"]) == [10485760, 1048576, 2097152]
    assert units.sort_key(["10MiB", "5ms"]) is None


def test_sweep_orders_sizes_by_value():
    sc = tcplab.Scenario({"sample": "off", "link": {"rate": "50Mbps"},
                          "flow": [{"bytes": "1MB"}]})
    res = tcplab.sweep(sc, {"flow.0.bytes": ["2MiB", "10KiB", "1MiB"]}, seeds=1,
                       executor="serial")
    assert list(res.runs["flow.0.bytes"]) == ["10KiB", "1MiB", "2MiB"]


# ---- the column reference

WLAN_QDISC = {"duration": "0.5s", "sample": "50ms",
              "node": [{"name": "ap"}, {"name": "sta"}, {"name": "wan"}],
              "link": [{"between": ["wan", "ap"], "rate": "20Mbps", "delay": "5ms",
                        "discipline": "fq_codel"}],
              "wlan": [{"name": "cell", "standard": "802.11n", "ap": "ap",
                        "stations": ["sta"]}],
              "flow": [{"from": "wan", "to": "sta", "transport": "tack", "cc": "bbr",
                        "bytes": "unlimited"},
                       {"from": "sta", "to": "wan", "transport": "stopwait",
                        "bytes": "20KB", "params": {"timeout_ms": 50}}]}


def test_every_published_column_is_documented_with_metadata(tmp_path):
    results = [tcplab.simulate(ROOT / "examples" / "newreno-lossy.toml"),
               tcplab.simulate(ROOT / "examples" / "handover-wave.toml"),
               tcplab.simulate(tcplab.Scenario(DATAGRAM)),
               tcplab.simulate(ROOT / "examples" / "tandem-tcp-nc.toml"),
               tcplab.simulate(ROOT / "examples" / "tandem-tcp-forward.toml"),
               tcplab.simulate(ROOT / "examples" / "pie-bufferbloat.toml"),
               tcplab.simulate(tcplab.Scenario(WLAN_QDISC))]
    for res in results:
        for name, table in res.tables.items():
            for f in table.schema:
                # Declared once: in Rust beside the code that publishes it, or here for
                # the run labels Python stamps on every row, never both.
                rust, python = f.name in columns.RUST_COLUMNS[name], f.name in columns._RUN
                assert rust != python, f"{name}.{f.name}: declared {'twice' if rust else 'nowhere'}"
                assert f.metadata[b"description"], f"{name}.{f.name}"
    f = results[0].tables["flows"].schema.field("goodput_bps")
    assert f.metadata[b"unit"] == b"bit/s"
    links = results[-1].tables["links"].schema
    assert links.field("sojourn_p99_ms").metadata[b"unit"] == b"ms"
    assert links.field("ampdu_mean").metadata[b"unit"] == b"frames"
    # The metadata survives Parquet.
    import pyarrow.parquet as pq

    paths = results[0].to_parquet(tmp_path)
    back = pq.read_schema([p for p in paths if p.name == "flows.parquet"][0])
    assert back.field("rtt_min_s").metadata[b"unit"] == b"s"


def test_the_columns_rust_declares_are_read_from_rust_and_not_declared_again():
    rust = dict(_tcplab.columns())
    assert list(rust) == ["flows", "links", "flow_series", "link_series", "cc_trace",
                          "packets"]
    names = [c[0] for c in rust["flows"]]
    # FlowOutcome's columns first, in row order; every transport's after.
    assert names[:3] == ["flow", "name", "transport"] and "goodput_bps" in names
    assert {"recovery", "retransmission_ratio", "rtos", "rtt_max_s", "acks_sent",
            "blocked_hist", "owd_p99_s", "decode_busy_s", "stopwait_resent"} <= set(names)
    assert {"sojourn_p99_ms", "dropped_aqm", "airtime_share"} <= {c[0] for c in rust["links"]}
    for table, cols in rust.items():
        for name, unit, description, low, high in cols:
            assert description, name
            assert columns.COLUMNS[table][name] == columns.Column(unit, description, low, high)
    # Python declares only what it adds itself.
    for table, cols in columns.COLUMNS.items():
        assert set(cols) - set(columns.RUST_COLUMNS[table]) <= set(columns._RUN), table
    assert columns.valid_range("retransmission_ratio") == (0.0, 1.0)
    assert columns.valid_range("pie_drop_prob", "link_series") == (0.0, 1.0)
    for table, name in [("flows", "goodput_bps"), ("links", "dropped_queue"),
                        ("flow_series", "cwnd")]:
        with pytest.raises(RuntimeError, match=rf"\['{name}'\] are declared in Rust"):
            columns._declare(table, {name: columns.Column("", "again")})


def test_results_doc_is_generated_from_the_reference():
    doc = (ROOT / "docs" / "results.md").read_text()
    assert columns.markdown() in doc, "regenerate docs/results.md (python -m tcplab.columns)"


def test_intervals_stay_in_the_valid_range():
    lo, hi = columns.valid_range("retransmission_ratio")
    assert (lo, hi) == (0.0, 1.0)
    # Mostly zeros: Student-t would go below 0; the bootstrap interval does not.
    xs = [0.0, 0.0, 0.0, 0.0, 0.02]
    iv = interval(xs, 0.95, (lo, hi))
    assert iv.method == "bootstrap" and iv.low >= 0 and iv.high <= 0.02
    t = interval(xs, 0.95)
    assert t.method == "t" and t.low < 0
    same = interval([0.3] * 5, 0.95, (lo, hi))
    assert same.method == "identical" and format_interval(same) == "0.30"
    assert "±" in format_interval(interval([1.0, 2.0, 3.0]))
    assert math.isnan(interval([1.0]).low)


# ---- pandas, polars, notebooks

def test_polars_views():
    pl = pytest.importorskip("polars")
    res = tcplab.simulate(ROOT / "examples" / "newreno-lossy.toml")
    df = res.to_polars("flows")
    assert isinstance(df, pl.DataFrame) and df["goodput_bps"][0] == res.flows["goodput_bps"][0]
    s = res.series("cwnd", frame="polars")
    assert s.columns[-1] == "cwnd" and len(s) == len(res.series("cwnd"))
    with pytest.raises(KeyError, match="unknown series"):
        res.series("txtime_s")
    sw = tcplab.sweep(res.scenario, {"link.delay": ["1ms"]}, seeds=1, executor="serial")
    assert isinstance(sw.to_polars(), pl.DataFrame)


def test_html_reprs_for_jupyter():
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "handover-wave.toml")
    h = sc._repr_html_()
    assert "handover-wave" in h and "10 Mbit/s" in h and "2 scheduled change" in h
    res = tcplab.simulate(sc)
    h = res._repr_html_()
    assert "<table" in h and "goodput_Mbps" in h and res.info["digest"] in h
    assert res.scenario is sc


def test_datagram_flows_summarise():
    s = tcplab.simulate(tcplab.Scenario(DATAGRAM)).summary()
    assert list(s["transport"]) == ["datagram", "tcp"]
    # A datagram source has no congestion controller: its cc is missing, not invented.
    assert s["cc"].isna().tolist() == [True, False] and s["cc"][1] == "newreno"
    assert s["owd_p50_ms"].notna().tolist() == [True, False]


# ---- Mahimahi traces of realised capacity

def test_written_trace_replays_the_link(tmp_path):
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "handover-wave.toml")
    res = tcplab.simulate(sc)
    path = tcplab.mahimahi.write_run_trace(res, "link", tmp_path / "link.mahi")
    ms = [int(x) for x in path.read_text().split()]
    assert ms[-1] == 120_000
    # 10 Mbit/s: one 1500 B opportunity per 1.2 ms, none during the 60-62 s outage.
    assert sum(1 for m in ms if 60_000 < m <= 62_000) == 0
    assert sum(1 for m in ms if 10_000 < m <= 20_000) == pytest.approx(8333, abs=2)
    # Replayed as a trace-driven link, the same opportunities carry a flow.
    rep = tcplab.Scenario({"duration": "30s", "link": {"trace": str(path), "delay": "20ms"},
                           "flow": [{"bytes": "unlimited"}]}, source=str(tmp_path / "r.toml"))
    g = tcplab.simulate(rep).flows["goodput_bps"][0]
    assert 0.85 * 10e6 * 1460 / 1500 < g <= 10e6 * 1460 / 1500
    with pytest.raises(tcplab.ScenarioError, match="no link named 'nope'"):
        tcplab.mahimahi.write_run_trace(res, "nope", tmp_path / "x.mahi")
    with pytest.raises(tcplab.ScenarioError, match="direction 'up'"):
        tcplab.mahimahi.write_run_trace(res, "link", tmp_path / "x.mahi", direction="up")


# ---- types and docs

def _stub():
    return ast.parse((ROOT / "python" / "tcplab" / "_tcplab.pyi").read_text())


def test_stub_matches_the_extension():
    tree = _stub()
    stubbed = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stubbed[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            stubbed[node.target.id] = node
    public = {n for n in dir(_tcplab) if not n.startswith("__") or n == "__version__"}
    assert set(stubbed) == public
    for name, node in stubbed.items():
        obj = getattr(_tcplab, name)
        if isinstance(node, ast.FunctionDef):
            params = [a.arg for a in node.args.args]
            assert params == list(inspect.signature(obj).parameters), name
        if isinstance(node, ast.ClassDef) and not issubclass(obj, Exception):
            members = {b.name for b in node.body if isinstance(b, ast.FunctionDef)}
            members |= {b.target.id for b in node.body if isinstance(b, ast.AnnAssign)}
            runtime = {m for m in vars(obj) if not m.startswith("_")}
            assert members - {"__new__"} == runtime, name
    assert (ROOT / "python" / "tcplab" / "py.typed").exists()


def test_every_public_name_has_a_docstring():
    missing = []
    for mod in pkgutil.walk_packages(tcplab.__path__, "tcplab."):
        if mod.name.endswith("_tcplab"):
            continue
        m = importlib.import_module(mod.name)
        if not m.__doc__:
            missing.append(mod.name)
        for name, obj in vars(m).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != m.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                if not obj.__doc__:
                    missing.append(f"{mod.name}.{name}")
                for mname, meth in vars(obj).items() if inspect.isclass(obj) else []:
                    if not mname.startswith("_") and inspect.isfunction(meth) and not meth.__doc__:
                        missing.append(f"{mod.name}.{name}.{mname}")
    assert not missing, missing


# ---- command line

def test_every_subcommand_takes_json_and_quiet():
    sub = next(a for a in build_parser()._actions if a.dest == "cmd")
    for name, p in sub.choices.items():
        opts = {o for a in p._actions for o in a.option_strings}
        assert {"--json", "--quiet"} <= opts, name


def test_json_and_quiet_output(capsys, tmp_path):
    ex = str(ROOT / "examples" / "newreno-lossy.toml")
    assert main(["run", ex, "--json", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0]
    assert run["flows"][0]["completed"] is True and run["digest"]
    assert any(f.endswith("plot.png") for f in run["files"])
    assert main(["run", ex, "--quiet"]) == 0
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == ""
    assert main(["check", ex, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "newreno-lossy"
    assert main(["reproduce", "--list", "--json"]) == 0
    assert "wave" in json.loads(capsys.readouterr().out)["studies"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[link]\nrate = "fast"\n[[flow]]\nbytes = "1MB"\n')
    assert main(["check", str(bad), "--json"]) == 1
    err = json.loads(capsys.readouterr().out)
    assert err["error"] == "ScenarioError" and "link.rate" in err["message"]


def test_sweep_prints_display_units(tmp_path, capsys):
    scen = tmp_path / "s.toml"
    scen.write_text('sample = "off"\n[link]\nrate = "20Mbps"\n[[flow]]\nbytes = "300KB"\n')
    plan = tmp_path / "p.toml"
    plan.write_text('scenario = "s.toml"\nseeds = 2\nmetrics = ["goodput_bps"]\n'
                    '[grid]\n"link.delay" = ["1ms", "5ms"]\n')
    assert main(["sweep", str(plan), "--executor", "serial"]) == 0
    out = capsys.readouterr().out
    assert "mean [Mbit/s]" in out and "e+0" not in out
    # No loss: both seeds give the same goodput, shown without an interval.
    assert main(["sweep", str(plan), "--executor", "serial", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc["summaries"]["goodput_bps"]
    assert all(r["identical"] and r["interval"] == "identical" for r in rows)
    assert pd.DataFrame(rows)["mean"].between(1e6, 20e6).all()


# ---- one parse path

def test_a_scenario_is_parsed_once(monkeypatch, tmp_path):
    from tcplab import _tcplab
    from tcplab import scenario as scenario_mod

    calls = []
    real = _tcplab.parse_scenario

    def spy(*a, **k):
        calls.append(a[0])
        return real(*a, **k)

    monkeypatch.setattr(scenario_mod._tcplab, "parse_scenario", spy)
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "handover-wave.toml")
    assert len(calls) == 1  # the text, by the simulator's own TOML parser
    res = tcplab.simulate(sc)
    assert sc.links
    tcplab.mahimahi.write_run_trace(res, "link", tmp_path / "t.mahi")
    assert len(calls) == 1  # running, drawing links and writing traces reuse it
    sc.with_values(**{"link.delay": "5ms"})
    assert len(calls) == 2  # a changed scenario is parsed (and validated) again


def test_scenarios_survive_pickling():
    import pickle

    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "newreno-lossy.toml")
    back = pickle.loads(pickle.dumps(sc))
    assert back.data == sc.data and back.source == sc.source
    assert tcplab.simulate(back).info["digest"] == tcplab.simulate(sc).info["digest"]
