"""Stack profiles from Python, and ``tcplab reproduce profiles`` (issue 9's validation
table) on one seed."""

import pandas as pd
import tcplab
from tcplab.reproduce import profiles


def test_profile_is_in_every_row_and_explicit_keys_win():
    sc = tcplab.Scenario({"stack": "ns3", "sample": "off",
                          "link": {"rate": "10Mbps", "delay": "5ms"},
                          "flow": [{"bytes": "200KB"}, {"bytes": "200KB", "stack": "linux"},
                                   {"bytes": "200KB", "mss": 1448}]})
    f = tcplab.simulate(sc, seed=1).flows
    assert list(f["stack"]) == ["ns3", "linux", "ns3"]
    # ns-3's 536-byte default segment unless the flow says otherwise.
    assert f["segments_sent"][0] > 2 * f["segments_sent"][2]
    assert (f["syn_retransmits"] == 0).all() and f["established_s"].notna().all()


def test_linux_is_the_default_and_tcplab_keeps_the_old_defaults():
    """Issue 30: a TCP flow without `stack` runs as `stack = "linux"` (same run digest),
    `stack = "tcplab"` reaches tcplab's own defaults, and rows name what ran."""
    def run(**flow):
        sc = tcplab.Scenario({"sample": "off",
                              "link": {"rate": "20Mbps", "delay": "10ms", "loss": "1%"},
                              "flow": [{"bytes": "500KB", **flow}]})
        return tcplab.simulate(sc, seed=2)

    plain, linux, own = run(), run(stack="linux"), run(stack="tcplab")
    assert plain.info["digest"] == linux.info["digest"]
    assert plain.info["digest"] != own.info["digest"]
    assert list(plain.flows["stack"]) == ["linux"] and list(own.flows["stack"]) == ["tcplab"]


def test_study_writes_the_table_for_every_profile(tmp_path):
    paths = profiles.run(tmp_path, seeds=1, workers=1)
    summary = pd.read_csv(tmp_path / "summary.csv")
    n_cells = len(profiles.DELAYS) * len(profiles.MIN_RTOS)
    assert len(summary) == 4 * n_cells * len(profiles.CONTROLLERS)
    assert summary["completed"].all()
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert (runs["stack"] == runs["profile"]).all()
    # RACK-TLP under the Linux profile: no cell needs a timeout.
    assert summary.loc[summary.profile == "linux", "rtos"].max() == 0
    text = (tmp_path / "tables.md").read_text()
    for p in [*profiles.PROFILES, profiles.DEFAULT]:
        assert f"### stack = {p}" in text
    assert tmp_path / "tables.md" in paths
