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


def test_b1_linux_is_b1_under_the_linux_profile(tmp_path):
    data = resources.files("tcplab") / "data"
    b1 = tcplab.Scenario.from_toml(str(data / BENCHES["B1"]))
    lin = tcplab.Scenario.from_toml(str(data / BENCHES["B1-LINUX"]))
    assert b1.with_values(**{"flow.0.stack": "linux", "name": "B1-LINUX"}).data == lin.data
    out = tmp_path / "bench.json"
    assert main(_Args("b1-linux", out)) == 0
    (row,) = json.loads(out.read_text())
    assert row["bench"] == "B1-LINUX" and row["events"] > 10_000
