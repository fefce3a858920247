"""``tcplab bench`` runs the reference benchmarks, B1-SACK included."""

import json
from importlib import resources

import tcplab
from tcplab.bench import BENCHES, main


class _Args:
    def __init__(self, only, path):
        self.only, self.repeat, self.json = only, 1, str(path)


def test_b1_sack_is_b1_with_sack_recovery(tmp_path):
    data = resources.files("tcplab") / "data"
    b1 = tcplab.Scenario.from_toml(str(data / BENCHES["B1"]))
    sack = tcplab.Scenario.from_toml(str(data / BENCHES["B1-SACK"]))
    assert b1.with_values(**{"flow.0.recovery": "sack", "name": "B1-SACK"}).data == sack.data
    out = tmp_path / "bench.json"
    assert main(_Args("b1-sack", out)) == 0
    (row,) = json.loads(out.read_text())
    assert row["bench"] == "B1-SACK" and row["events"] > 10_000 and row["wall_s_min"] > 0


def test_coded_benches_run_and_payload_mode_simulates_the_same_events(tmp_path):
    data = resources.files("tcplab") / "data"
    for name in ("NC", "FWD"):
        plain = tcplab.Scenario.from_toml(str(data / BENCHES[name]))
        pay = tcplab.Scenario.from_toml(str(data / BENCHES[f"{name}-PAY"]))
        assert plain.with_values(**{"flow.0.coding.payload": True,
                                    "name": f"{name}-PAY"}).data == pay.data
    out = tmp_path / "bench.json"
    assert main(_Args("nc,nc-pay,fwd,fwd-pay", out)) == 0
    rows = {r["bench"]: r for r in json.loads(out.read_text())}
    for name in ("NC", "FWD"):
        assert rows[name]["events"] > 10_000
        assert rows[name]["events"] == rows[f"{name}-PAY"]["events"], name


def test_flows_runs_the_dumbbell_family(tmp_path):
    from tcplab.bench import b2_with_flows, parse_flows

    sc = tcplab.Scenario.from_toml(str(resources.files("tcplab") / "data" / BENCHES["B2"]))
    path = tmp_path / "b2-3.toml"
    path.write_text(b2_with_flows(3))
    three = tcplab.Scenario.from_toml(str(path))
    assert three.data == sc.with_values(**{"flow.0.count": 3, "name": "B2@3"}).data
    assert parse_flows("10, 100") == [10, 100]
    for bad in ("0", "ten", ""):
        try:
            parse_flows(bad)
        except ValueError as e:
            assert "--flows" in str(e)
        else:
            raise AssertionError(f"--flows {bad!r} accepted")


def test_flows_cli_reports_bytes_per_flow(tmp_path):
    from tcplab.cli import main as cli

    assert cli(["bench", "--flows", "0"]) == 2
    assert cli(["bench", "--flows", "2", "--only", "B1"]) == 2
    out = tmp_path / "flows.json"
    assert cli(["bench", "--flows", "2", "--repeat", "1", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["bench"] == "B2@2" and row["flows"] == 2 and row["events"] > 100_000
    assert row["sim_bytes_per_flow"] == row["sim_peak_mb"] * 1024 * 1024 / 2


def test_wlan_benches_saturate_an_80211ac_cell_with_1_and_8_stations(tmp_path):
    data = resources.files("tcplab") / "data"
    for name, stations in (("W1", 1), ("W8", 8)):
        sc = tcplab.Scenario.from_toml(str(data / BENCHES[name]))
        (cell,) = sc.data["wlan"]
        assert cell["standard"] == "802.11ac" and len(cell["stations"]) == stations
        assert sc.data["duration"] == "10s"
    out = tmp_path / "bench.json"
    assert main(_Args("w1,w8", out)) == 0
    rows = {r["bench"]: r for r in json.loads(out.read_text())}
    assert rows["W1"]["simulated_s"] == 10.0 and rows["W1"]["events"] > 500_000
    assert rows["W8"]["events"] > rows["W1"]["events"]


def test_b1_linux_is_b1_under_the_linux_profile(tmp_path):
    data = resources.files("tcplab") / "data"
    b1 = tcplab.Scenario.from_toml(str(data / BENCHES["B1"]))
    lin = tcplab.Scenario.from_toml(str(data / BENCHES["B1-LINUX"]))
    # B1 under the Linux profile: B1's flow without its pre-issue-9 pins, plus the profile.
    flow = {k: v for k, v in b1.data["flow"][0].items() if k not in ("handshake", "rcv_buf")}
    assert {**b1.data, "name": "B1-LINUX", "flow": [{**flow, "stack": "linux"}]} == lin.data
    out = tmp_path / "bench.json"
    assert main(_Args("b1-linux", out)) == 0
    (row,) = json.loads(out.read_text())
    assert row["bench"] == "B1-LINUX" and row["events"] > 10_000
