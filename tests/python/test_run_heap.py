"""A run of many flows takes its memory from huge pages (the extension's RunHeap) and gives
the same results as in the system heap; TCPLAB_RUN_HEAP=off turns it off."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

RUN = r"""
import importlib.resources as ir, json, tcplab
sc = tcplab.Scenario.from_toml(str(ir.files("tcplab") / "data" / "b2.toml")).with_values(
    **{"flow.0.count": 40, "duration": "200ms"})
r = tcplab.simulate(sc, seed=1)
region = None
for entry in open("/proc/self/smaps").read().split("VmFlags:")[:-1]:
    fields = dict(line.split(":", 1) for line in entry.splitlines() if ":" in line
                  and not line[0].isdigit() and not line[0] in "abcdef")
    size_kb = int(fields.get("Size", "0 kB").split()[0])
    if size_kb >= 64 << 20:  # the run heap reserves 64 GiB (and one huge page to align)
        region = {"huge_kb": int(fields["AnonHugePages"].split()[0])}
print(json.dumps({"digest": r.info["digest"], "region": region}))
"""


def run(env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_large_run_uses_the_huge_page_region_with_the_same_results():
    on = run({})
    off = run({"TCPLAB_RUN_HEAP": "off"})
    assert on["region"] is not None, "a 40-flow run reserves the region"
    assert off["region"] is None, "TCPLAB_RUN_HEAP=off leaves it alone"
    assert on["digest"] == off["digest"]


FORK = r"""
import importlib.resources as ir, os, tcplab
sc = tcplab.Scenario.from_toml(str(ir.files("tcplab") / "data" / "b2.toml")).with_values(
    **{"flow.0.count": 40, "duration": "100ms"})
first = tcplab.simulate(sc, seed=1)  # results kept: the region is in use at the fork
pid = os.fork()
if pid == 0:
    again = tcplab.simulate(sc, seed=1)
    os._exit(0 if again.info["digest"] == first.info["digest"] else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


def test_a_forked_child_runs_in_the_inherited_region():
    out = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


def test_a_bad_run_heap_setting_is_refused_with_its_name_and_value():
    out = subprocess.run(
        [sys.executable, "-c", RUN],
        capture_output=True,
        text=True,
        env=dict(os.environ, TCPLAB_RUN_HEAP="0"),
    )
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert "ScenarioError: the environment: " in last, last
    assert "TCPLAB_RUN_HEAP = 0: must be on or off" in last, last
