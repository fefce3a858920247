"""The figures show what they claim: each test reads the data drawn into the figure."""

import matplotlib
import numpy as np
import pytest
import tcplab
from matplotlib.collections import PolyCollection
from tcplab import plot
from tcplab.plot import plot_run, plot_summary

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def run(name, **kw):
    return tcplab.simulate(ROOT / "examples" / f"{name}.toml", seed=1, **kw)


def lines(ax, label_part):
    return [ln for ln in ax.get_lines() if label_part in str(ln.get_label())]


def test_importing_plot_keeps_the_backend(monkeypatch):
    import importlib
    import subprocess
    import sys

    code = ("import matplotlib; matplotlib.use('svg'); import tcplab.plot; "
            "print(matplotlib.get_backend())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "svg", out.stderr
    importlib.reload(plot)


@pytest.fixture(scope="module")
def lossy():
    # The example as it was before issue 30 (tcplab's defaults, NewReno recovery, a
    # 64 MiB window): a long recovery episode and a busy link, which these checks read.
    sc = tcplab.Scenario.from_toml(ROOT / "examples" / "newreno-lossy.toml").with_values(
        **{"flow.0.stack": "tcplab", "flow.0.rcv_buf": "64MiB"})
    res = tcplab.simulate(sc, seed=1)
    fig = plot_run(res)
    yield res, fig
    matplotlib.pyplot.close(fig)


def test_link_throughput_sits_under_the_capacity_line(lossy):
    res, fig = lossy
    ax = fig.axes[0]
    (thr,) = lines(ax, "throughput")
    (cap,) = lines(ax, "capacity")
    c = cap.get_ydata()
    # 100 Mbit/s in 10 ms bins of 1500-byte opportunities: 83 or 84 per bin.
    assert np.all((c > 99) & (c < 101))
    t = thr.get_ydata()
    assert t.max() <= c.max() + 1.5 and np.median(t) > 95  # the link is busy
    # The old panel's 1300 Mbit/s "throughput" is goodput: in its own panel, cut at
    # 1.25 x capacity, with the peak written out.
    assert fig.axes[1].get_ylim()[1] == pytest.approx(1.25 * c.max())
    notes = [a.get_text() for a in fig.axes[1].texts]
    assert any("peak" in n for n in notes)
    (good,) = lines(fig.axes[1], "flow0 (newreno)")
    assert good.get_ydata().max() > 1000


def test_flows_are_labelled_by_name_and_controller(lossy):
    _, fig = lossy
    assert [ln.get_label() for ln in fig.axes[2].get_lines()] == ["flow0 (newreno)"]
    assert not any("flow 0" in str(ln.get_label()) for a in fig.axes for ln in a.get_lines())


def test_recovery_is_shaded_and_rtt_samples_show_karn_gaps(lossy):
    res, fig = lossy
    spans = plot.recovery_spans(res)[0]
    longest = max(b - a for a, b in spans)
    assert longest > 0.5  # the long NewReno episode of this example
    shaded = [p for p in fig.axes[1].patches if p.get_label() == "fast recovery"]
    assert shaded
    (pts,) = lines(fig.axes[3], "new samples")
    assert pts.get_linestyle() == "None" and pts.get_marker() == "."
    x = pts.get_xdata()
    a, b = max(spans, key=lambda s: s[1] - s[0])
    inside = (x > a + 0.02) & (x < b - 0.02)
    assert not inside.any(), "no RTT sample during recovery (Karn's rule)"
    assert len(x) > 10


def test_handover_marks_outage_rto_and_capacity():
    res = run("handover-wave")
    fig = plot_run(res)
    ev = plot.link_events(res)
    assert [(e.start, e.end) for e in ev] == [(60.0, 62.0)]
    assert "300 ms" in ev[0].label
    assert any("outage" in t.get_text() for t in fig.axes[0].texts)
    (cap,) = lines(fig.axes[0], "capacity")
    edges = plot.bin_edges(res)
    c = cap.get_ydata()
    mid = (edges[:-1] >= 60.0) & (edges[1:] <= 62.0)  # bins wholly inside the outage
    assert mid.any()
    assert c[mid].max() == 0 and c[edges[1:] < 59].min() > 9.9  # 10 Mbit/s except the outage
    rto = plot.rto_spans(res)[0]
    assert rto and rto[0][0] <= 60.0 <= rto[0][1]
    assert any(p.get_label() == "RTO stall" for p in fig.axes[1].patches)
    matplotlib.pyplot.close(fig)


def test_several_flows_get_their_own_recovery_strips():
    res = run("dumbbell-bbr-vs-cubic")
    fig = plot_run(res)
    strips = [c for c in fig.axes[1].collections if isinstance(c, PolyCollection)]
    labels = {c.get_label() for c in strips}
    assert {"bbr (bbr): fast recovery", "cubic (cubic): fast recovery"} <= labels
    matplotlib.pyplot.close(fig)


def test_plot_run_draws_into_given_axes_and_writes_files(tmp_path):
    import matplotlib.pyplot as plt

    res = run("newreno-lossy")
    fig, axes = plt.subplots(5, 1)
    assert plot_run(res, axes=axes) is fig
    assert axes[2].get_lines()
    plt.close(fig)
    with pytest.raises(ValueError, match="five"):
        plot_run(res, axes=axes[:2])
    out = plot_run(res, path=tmp_path / "x.png")
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG" and out.axes


def test_summary_plot_orders_sizes_states_n_and_marks_identical():
    import pandas as pd

    s = pd.DataFrame({"x": ["10MiB", "1MiB", "2MiB"], "metric": "goodput_bps",
                      "mean": [3.0, 1.0, 2.0], "ci_low": [2.5, 1.0, 1.5],
                      "ci_high": [3.5, 1.0, 2.5], "n": 5,
                      "identical": [False, True, False]})
    fig = plot_summary(s, "x", None)
    ax = fig.axes[0]
    main_line = ax.get_lines()[0]
    assert list(main_line.get_xdata()) == pytest.approx([1.048576, 2.097152, 10.485760])
    assert ax.get_xlabel() == "x [MB]"
    assert "n=5" in ax.get_legend().get_texts()[0].get_text()
    hollow = [ln for ln in ax.get_lines() if ln.get_markerfacecolor() == "white"]
    assert list(hollow[0].get_xdata()) == pytest.approx([1.048576])
    matplotlib.pyplot.close(fig)
    # Each series keeps its own colour (the hollow markers do not shift the cycle).
    two = pd.concat([s.assign(cc="a"), s.assign(cc="b")])
    fig = plot_summary(two, "x", "cc")
    colors = [ln.get_color() for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "-"]
    assert len(colors) == 2 and colors[0] != colors[1]
    matplotlib.pyplot.close(fig)


def test_wave_study_runs_one_seed_and_says_why(tmp_path):
    from tcplab.reproduce import wave

    paths = wave.run(tmp_path, seeds=2, variants=["wave", "cubic"], quick=True)
    assert {p.name for p in paths} == {p.name for p in tmp_path.iterdir()}
    import pandas as pd

    runs = pd.read_parquet(tmp_path / "runs.parquet")
    # Nothing random in this path (tests/python/test_studies.py checks it): one seed.
    assert set(runs["seed"]) == {1}
    text = (tmp_path / "tables.md").read_text()
    assert "± 0.0" not in text and "±0.0" not in text
    assert "One seed: the Wave path has no random component" in text
    assert "--seeds 2 was not needed" in text and "n = 1 per cell" in text
