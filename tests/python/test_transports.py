"""Graph topologies, cross traffic and per-transport columns through the Python API."""

import pytest
import tcplab


def graph(extra_flow=None):
    flows = [{"name": "tcp", "from": "a", "to": "c", "cc": "cubic", "bytes": "unlimited"}]
    if extra_flow:
        flows.append(extra_flow)
    return tcplab.Scenario({
        "duration": "5s",
        "sample": "100ms",
        "node": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        "link": [
            {"between": ["a", "b"], "rate": "20Mbps", "delay": "5ms"},
            {"between": ["b", "c"], "rate": "10Mbps", "delay": "5ms", "queue": "50pkt"},
        ],
        "flow": flows,
    })


def test_graph_with_cross_traffic_has_both_kinds_of_rows():
    udp = {"name": "udp", "from": "b", "to": "c", "transport": "datagram",
           "rate": "4Mbps", "bytes": "unlimited"}
    res = tcplab.simulate(graph(udp), seed=1)
    f = res.flows.set_index("name")
    assert list(f["transport"]) == ["tcp", "datagram"]
    # TCP columns for TCP, delay percentiles for the datagram flow.
    assert f.loc["tcp", "segments_sent"] > 0 and f["owd_p99_s"].isna()["tcp"]
    assert f.loc["udp", "owd_p50_s"] > 0.005 and f["segments_sent"].isna()["udp"]
    # Packet accounting balances for both.
    for name in ("tcp", "udp"):
        r = f.loc[name]
        assert r["packets_sent"] == (r["packets_delivered"] + r["packets_lost"]
                                     + r["packets_in_flight"])
    # The TCP flow gets what the cross traffic leaves of the 10 Mbit/s hop.
    assert 4.5e6 < f.loc["tcp", "goodput_bps"] < 6.2e6
    links = set(res.links["link"].astype(str))
    assert links == {"a-b", "b-c"}
    # Series of either transport by name.
    assert set(res.series("sent")["flow"].dropna()) >= {1}
    assert res.series("cwnd")["cwnd"].notna().any()
    assert "owd_p99_ms" in res.summary().columns


def test_unknown_node_is_a_scenario_error():
    bad = {"name": "x", "from": "a", "to": "z", "bytes": "1MB"}
    with pytest.raises(tcplab.ScenarioError, match=r"flow\[1\]\.to = \"z\": unknown node"):
        graph(bad)


def test_with_values_reaches_graph_links():
    sc = graph().with_values(**{"link.1.rate": "5Mbps"})
    res = tcplab.simulate(sc, seed=1)
    assert res.flows["goodput_bps"][0] < 5e6
