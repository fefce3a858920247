"""`tcplab list` and tcplab.scenario_keys(): the catalogue matches what the parser reads."""

import copy
import re
from pathlib import Path

import pytest
import tcplab
from tcplab.catalog import CONTROLLERS, KEYS, TRANSPORTS
from tcplab.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
L = {"rate": "10Mbps"}
F = {"bytes": "1MB"}
NODES = [{"name": "a"}, {"name": "b"}]
GRAPH = {"node": NODES, "link": [{**L, "between": ["a", "b"]}]}
DUMBBELL = {"topology": {"kind": "dumbbell"}, "bottleneck": L}
DGRAM = {**F, "transport": "datagram", "rate": "1Mbps"}

# Scenarios with an unknown key "zz" in one section: the parser's error lists the keys it
# read there. Grouped by catalogue section.
PROBES = {
    "scenario": [{"link": L, "flow": [F], "zz": 1}, {**DUMBBELL, "flow": [F], "zz": 1},
                 {**GRAPH, "flow": [{**F, "from": "a", "to": "b"}], "zz": 1}],
    "link": [{"link": {**L, "zz": 1}, "flow": [F]},
             {**GRAPH, "link": [{**L, "between": ["a", "b"], "zz": 1}],
              "flow": [{**F, "from": "a", "to": "b"}]}],
    "node": [{**GRAPH, "node": [{"name": "a", "zz": 1}, {"name": "b"}],
              "flow": [{**F, "from": "a", "to": "b"}]}],
    "link.schedule[]": [{"link": {**L, "schedule": [{"at": "1s", "zz": 1}]}, "flow": [F]}],
    "link.handover[]": [{"link": {**L, "handover": [{"at": "1s", "to": L, "zz": 1}]},
                         "flow": [F]}],
    "link.jitter (table)": [
        {"link": {**L, "jitter": {"dist": "uniform", "max": "1ms", "zz": 1}}, "flow": [F]},
        {"link": {**L, "jitter": {"dist": "normal", "sd": "1ms", "zz": 1}}, "flow": [F]}],
    "link.discipline (table)": [
        {"link": {**L, "discipline": {"kind": k, "zz": 1, **extra}}, "flow": [F]}
        for k, extra in [("codel", {}), ("fq_codel", {}), ("pie", {}), ("red", {}),
                         ("step", {"k": 40})]],
    "link.loss (table)": [
        {"link": {**L, "loss": {"model": m, "zz": 1, **extra}}, "flow": [F]}
        for m, extra in [("bernoulli", {"rate": 0.1}), ("list", {"drop": [1]}),
                         ("gilbert-elliott", {"p_good_bad": 0.1, "p_bad_good": 0.1})]],
    "flow": [
        {"link": L, "flow": [{**F, "zz": 1}]},
        {**DUMBBELL, "flow": [{**F, "zz": 1}]},
        {**GRAPH, "flow": [{**F, "from": "a", "to": "b", "zz": 1}]},
        {"link": L, "flow": [{**DGRAM, "zz": 1}]},
        {"link": L, "flow": [{**DGRAM, "pattern": "onoff", "on_time": "1s", "off_time": "1s",
                              "on_dist": "pareto", "zz": 1}]},
        {"link": L, "flow": [{**F, "transport": "datagram", "pattern": "trace",
                              "trace": "traces/onoff.mahi", "zz": 1}]},
        {"link": L, "flow": [{**F, "transport": "tack", "zz": 1}]},
        {"link": L, "flow": [{**F, "transport": "tcp-nc", "zz": 1}]},
        {"link": L, "flow": [{**F, "transport": "tcp-forward", "zz": 1}]}],
    "wlan": [{"node": [{"name": "ap"}, {"name": "sta"}],
              "wlan": [{"standard": "802.11g", "ap": "ap", "stations": ["sta"], "zz": 1}],
              "flow": [{**F, "from": "ap", "to": "sta"}]},
             {"node": [{"name": "ap"}, {"name": "sta"}],
              "wlan": [{"standard": "802.11n", "ap": "ap", "stations": ["sta"], "zz": 1}],
              "flow": [{**F, "from": "ap", "to": "sta"}]}],
}
# Read only for a registered transport (none can be registered from Python).
UNPROBED = {("flow", "params")}


def parser_keys(probe: dict) -> set[str]:
    with pytest.raises(tcplab.ScenarioError) as e:
        # Relative trace paths resolve against the scenario's folder: the repository's
        # examples (the installed package has none).
        tcplab.Scenario(probe, source=str(EXAMPLES / "x.toml"))
    m = re.search(r"zz = 1: unknown key \(known here: (.*)\)$", str(e.value))
    assert m, str(e.value)
    return set(m.group(1).split(", "))


def group_of(section: str) -> str:
    """Link keys share one section; every transport's keys are flow keys."""
    return "link" if section.startswith("link (") else section.split(",")[0]


def catalogue(group: str) -> set[str]:
    return {k.key for k in KEYS if group_of(k.section) == group}


@pytest.mark.parametrize("group", list(PROBES))
def test_catalogue_lists_exactly_the_keys_the_parser_reads(group):
    read = set().union(*(parser_keys(p) for p in PROBES[group]))
    if group == "link.schedule[]":
        read -= catalogue("link")
    listed = catalogue(group) - {k for g, k in UNPROBED if g == group}
    assert read == listed, f"parser only: {read - listed}; catalogue only: {listed - read}"


def test_every_section_is_probed():
    sections = {group_of(k.section) for k in KEYS}
    assert sections == set(PROBES)


BASE = {"sample": "10ms", "link": {"rate": "20Mbps", "delay": "2ms", "loss": "1%"},
        "flow": [{"bytes": "300KB"}, {**DGRAM, "bytes": "50KB"}]}


@pytest.mark.parametrize("key", [k for k in KEYS if k.value is not None],
                         ids=lambda k: f"{k.section.split(' ')[0]}.{k.key}")
def test_stated_defaults_are_the_defaults(key):
    """Setting a key to its stated default changes nothing (same run digest)."""
    data = copy.deepcopy(BASE)
    target = {"scenario": data, "link": data["link"], "flow": data["flow"][0],
              "flow, transport = \"tcp\"": data["flow"][0],
              "flow, transport = \"datagram\"": data["flow"][1]}[
        "link" if key.section.startswith("link (") else key.section]
    target.pop(key.key, None)
    without = tcplab.simulate(tcplab.Scenario(data), seed=3).info["digest"]
    target[key.key] = key.value
    with_default = tcplab.simulate(tcplab.Scenario(data), seed=3).info["digest"]
    assert with_default == without


def test_python_and_cli_listings(capsys):
    assert set(tcplab.congestion_controls()) == set(CONTROLLERS)
    assert set(tcplab.transports()) == set(TRANSPORTS)
    assert "wave" in tcplab.studies()
    assert any(k.key == "min_rto" and k.default == "200ms" for k in tcplab.scenario_keys())
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for needle in ["# congestion controllers", "cubic", "# transports", "datagram",
                   "# studies", "handover", "# scenario keys", "min_rto", "200ms ; duration"]:
        assert needle in out
    assert main(["list", "controllers"]) == 0
    assert "# transports" not in capsys.readouterr().out
