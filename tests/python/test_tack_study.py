"""``tcplab reproduce tack --quick``: the study's code paths in seconds, and the shape that
even short runs show (TACK sends far fewer ACKs than TCP on 802.11ac)."""

import pandas as pd
import pytest
from tcplab.cli import main


def test_quick_study_writes_every_figure_and_table(tmp_path):
    assert main(["reproduce", "tack", "--quick", "--seeds", "1", "--workers", "1",
                 "--out", str(tmp_path), "--quiet"]) == 0
    out = tmp_path / "tack"
    names = {p.name for p in out.iterdir()}
    assert {"fig8_ack_frequency.png", "fig9_goodput_per_phy.png", "fig1_gain_vs_rtt.png",
            "fig5_utilisation_vs_ack_loss.png", "fig6a_rtt_min.png", "tables.md",
            "summary.csv", "runs.parquet", "fig6a_trace.csv"} <= names
    s = pd.read_csv(out / "summary.csv")
    hz = s[(s.figure == "fig8") & (s.phy == "802.11ac")].set_index("transport")["mean"]
    assert hz["TCP-TACK"] < hz["TCP BBR (L=2)"] / 10
    runs = pd.read_parquet(out / "runs.parquet")
    assert (runs.bytes_delivered > 0).all()
    assert "quick mode" in (out / "tables.md").read_text()
    # Fig. 5a: each draw with and without loss IACKs; one histogram count per TACK.
    assert (out / "fig5a_blocked_cdf.png").stat().st_size > 0
    f5a = runs[runs.figure == "fig5a"]
    assert set(f5a.transport) == {"with IACK", "without IACK"}
    assert (f5a[f5a.transport == "without IACK"].iacks_loss == 0).all()
    assert (f5a[f5a.transport == "with IACK"].iacks_loss > 0).all()
    for h, n in zip(f5a.blocked_hist, f5a.tacks_sent):
        assert sum(int(c) for c in h.split()) == n
    assert any(r.startswith("| IACK reduces the data blocked")
               for r in (out / "tables.md").read_text().splitlines())
    # Fig. 6a: the Wi-Fi hosts' interrupt coalescing (2048 us) lifts RTT_min by about
    # the timer, which every lone TACK waits at the sender.
    trace = pd.read_csv(out / "fig6a_trace.csv")
    owd = trace[trace.t_s >= 2].groupby("path").rtt_min_s.median() * 1e3
    assert 1.5 < owd["coalescing"] - owd["fixed"] < 3.0


def test_quick_study_draws_the_ack_frequency_reduction_with_its_claim(tmp_path):
    """Fig. 8a: Δf = TCP's ACK rate less TACK's, from each seed's pair of runs; it grows
    with the PHY (802.11b byte-counts, so TACK saves next to nothing there) and the claim
    table has its row."""
    assert main(["reproduce", "tack", "--quick", "--seeds", "2", "--workers", "1",
                 "--out", str(tmp_path), "--quiet"]) == 0
    out = tmp_path / "tack"
    assert (out / "fig8a_ack_reduction.png").stat().st_size > 0
    s = pd.read_csv(out / "summary.csv")
    d = s[s.figure == "fig8a"].set_index("phy")["mean"]
    assert set(d.index) == {"802.11b", "802.11g", "802.11n", "802.11ac"}
    runs = pd.read_parquet(out / "runs.parquet")
    f = runs[(runs.figure == "fig8") & (runs.phy == "802.11ac")] \
        .pivot_table(index="seed", columns="transport", values="ack_hz")
    assert d["802.11ac"] == pytest.approx((f["TCP BBR (L=2)"] - f["TCP-TACK"]).mean())
    assert abs(d["802.11b"]) < d["802.11g"] < d["802.11n"] < d["802.11ac"]
    rows = [r for r in (out / "tables.md").read_text().splitlines()
            if "(Fig. 8a)" in r and r.startswith("| ")]
    assert len(rows) == 1
    assert rows[0].split(" | ")[3] in {"holds", "shape only"}


def test_quick_is_refused_by_a_study_without_it(tmp_path, capsys, monkeypatch):
    import sys
    import types

    from tcplab import reproduce

    fake = types.ModuleType("fake_study")
    fake.DESCRIPTION = "a study without --quick"
    fake.run = lambda out, seeds=1, workers=None: []
    monkeypatch.setitem(sys.modules, "fake_study", fake)
    monkeypatch.setitem(reproduce.STUDIES, "fake", "fake_study")
    assert main(["reproduce", "fake", "--quick", "--out", str(tmp_path)]) == 2
    assert "no --quick mode" in capsys.readouterr().err
    assert not any(tmp_path.iterdir()), "refused before writing anything"
