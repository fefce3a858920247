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

    paths = coded.run(tmp_path, seeds=2, workers=1, windows=[16], scales=[1.0],
                      redundancies=[1.25])
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
    # Figure 7c: TCP/NC at a fixed R = 1.25 collapses past its redundancy (30 % loss and
    # above: 1/(1 - p) > 1.25), where the loss-tuned R keeps it going.
    c = s[s.figure == "fig7c"].set_index(["transport", "loss"])["mean"]
    fixed, tuned = "TCP/NC (Vegas), R = 1.25", "TCP/NC (Vegas), R = 1.1/(1 − p)"
    assert c[fixed, 0.5] < 0.5 * c[tuned, 0.5] and c[fixed, 0.0] > 0.5 * c[tuned, 0.0]
    assert "fixed R = 1.25" in (tmp_path / "tables.md").read_text()
    # Figure 7d: the seed's own TCP/NC (whole generations, fixed R = 1.25) collapses too,
    # and delivers less than the sliding window with the same R below the collapse.
    d = s[s.figure == "fig7d"].set_index(["transport", "loss"])["mean"]
    gen = "TCP/NC (Vegas), generations, R = 1.25"
    assert d[gen, 0.5] < 0.5 * d[tuned, 0.5] and d[gen, 0.0] > 0.5 * d[tuned, 0.0]
    assert "generations of 16, fixed R = 1.25" in (tmp_path / "tables.md").read_text()


def test_study_latency_figures_with_small_parameters(tmp_path):
    """Figures 8-11 and the CPU sensitivity on a small grid (one seed, two windows)."""
    import pandas as pd
    from tcplab.reproduce import coded

    paths = coded.run(tmp_path, seeds=1, workers=1, losses=[0.5], windows=[4, 64],
                      scales=[1.0, 3000.0], redundancies=[])
    names = {p.name for p in paths}
    assert {"fig8_latency_vs_window.png", "fig10_first_vs_whole_window.png",
            "fig11_pc_vs_pi.png", "fig9c_decode_delay_vs_cpu.png"} <= names
    runs = pd.read_parquet(tmp_path / "runs.parquet")
    w = runs[runs.figure == "fig9"]
    # End-to-end latency includes the transfer, so it exceeds the decoding delay.
    assert (w.latency_mean_s > w.decode_delay_mean_s + 0.010).all()
    # The Pi's decoding costs PI_SCALE times the reference machine's work.
    pc = w[w.cpu == "PC"].set_index(["transport", "window"])["decode_busy_s"]
    pi = w[w.cpu == "Pi"].set_index(["transport", "window"])["decode_busy_s"]
    assert (pi > 0.5 * coded.PI_SCALE * pc.reindex(pi.index)).all()
    # Fig. 10: one coding window; the first segment decodes long before the whole window.
    g = runs[(runs.figure == "gen") & (runs.transport == "TCP-Forward") & (runs.cpu == "PC")]
    g = g.set_index("window")
    assert g.loc[64, "first_decode_s"] < 0.1 < g.loc[64, "completion_s"]
    assert g.loc[64, "completion_s"] > g.loc[4, "completion_s"]
    c = runs[runs.figure == "cpu"].set_index(["transport", "cpu"])["decode_busy_s"]
    assert c["TCP/NC (Vegas)", "×3000"] > 1000 * c["TCP/NC (Vegas)", "PC"]
