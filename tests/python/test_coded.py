"""Coded transports from Python: clear errors for bad coding settings, and seed 004's
study (tcplab reproduce coded) reproducing the paper's shape."""

import pytest
import tcplab


@pytest.mark.parametrize("flow,needle", [
    ({"transport": "tcp-nc", "coding": {"redundancy": 0.5}},
     "flow[0].coding: parameter 'redundancy' = 0.5: must be in [1, 1000]"),
    ({"transport": "tcp-forward", "coding": {"zz": 1}},
     "unknown parameter 'zz' for the coding of transport 'tcp-forward'"),
    ({"transport": "tcp-forward", "bytes": "unlimited"}, "tcp-forward needs a byte count"),
    ({"transport": "tcp-nc", "recovery": "sack"}, "tcp-nc's ACKs carry no SACK blocks"),
    ({"transport": "tcp-nc", "ack": "delayed"}, "not used by tcp-nc"),
    ({"transport": "tcp-forward", "coding": {"payload": 2}}, "'payload' = 2: must be true"),
])
def test_bad_coding_settings_are_one_clear_error(flow, needle):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.Scenario({"link": {"rate": "10Mbps"}, "flow": [{"bytes": "1MB", **flow}]},
                        source="bad.py")
    assert needle in str(e.value)
    assert "bad.py" in str(e.value)


def test_study_reproduces_the_shape_of_figure_7(tmp_path):
    from tcplab.reproduce import coded

    paths = coded.run(tmp_path, seeds=2, workers=1)
    assert {p.name for p in paths} >= {"fig7_goodput_vs_loss.png", "tables.md",
                                       "summary.csv", "runs.parquet"}
    import pandas as pd

    s = pd.read_csv(tmp_path / "summary.csv")
    g = s[s.figure == "fig7"].set_index(["transport", "loss"])["mean"]
    # Plain TCP ahead of TCP-Forward without loss, both coded transports far ahead at
    # high loss, where plain TCP does next to nothing.
    assert g["TCP Reno", 0.0] > g["TCP-Forward", 0.0]
    for p in (0.3, 0.5, 0.9):
        for coded_t in ("TCP-Forward", "TCP/NC (Vegas)"):
            for tcp in ("TCP Reno", "TCP Vegas", "TCP Cubic + SACK"):
                assert g[coded_t, p] > 10 * g[tcp, p], (coded_t, tcp, p)
    # TCP-Forward ahead of TCP/NC (Vegas) only at the highest loss (docs/reproductions).
    assert g["TCP-Forward", 0.9] > g["TCP/NC (Vegas)", 0.9]
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    assert runs[runs.transport == "TCP-Forward"]["completed"].all()
