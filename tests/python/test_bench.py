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
