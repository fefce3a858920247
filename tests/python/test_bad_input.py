"""Hostile and careless input through the Python API: one clear exception each (issue 10)."""

import subprocess
import sys
import textwrap

import pytest
import tcplab

BASE = {"sample": "off", "link": {"rate": "10Mbps", "delay": "1ms"},
        "flow": [{"bytes": "100KB"}]}


def scenario(**dotted):
    return tcplab.Scenario(BASE, source="bad.py").with_values(**dotted)


def run_python(code: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter: a crash there cannot take the test run down."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)


def test_self_referencing_dict_is_an_error_not_a_segfault():
    # Defect 1: the dict conversion recursed without bound and killed the interpreter.
    p = run_python("""
        import tcplab
        d = {"link": {"rate": "10Mbps"}, "flow": [{"bytes": "1MB"}]}
        d["link"]["x"] = d
        try:
            tcplab.Scenario(d)
        except tcplab.ScenarioError as e:
            print("ScenarioError:", e)
        l = [1]
        l.append(l)
        try:
            tcplab.Scenario({"link": {"rate": "10Mbps"}, "flow": [{"bytes": "1MB", "x": l}]})
        except tcplab.ScenarioError as e:
            print("ScenarioError:", e)
        deep = x = {}
        for _ in range(100_000):
            x["a"] = {}
            x = x["a"]
        try:
            tcplab.Scenario({"link": {"rate": "10Mbps", "deep": deep}, "flow": [{"bytes": "1MB"}]})
        except tcplab.ScenarioError as e:
            print("ScenarioError:", str(e)[:200])
    """)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert len(lines) == 3, p.stdout
    assert "link.x" in lines[0] and "refers to itself" in lines[0]
    assert "flow[0].x[1]" in lines[1] and "refers to itself" in lines[1]
    assert "nested" in lines[2]


def test_output_names_stay_inside_the_output_directory(tmp_path):
    # Defect 4: name = "../../escaped" made `tcplab run --out o1/inner` write two levels up.
    for bad in ["../../escaped", "a/b", "a\\b", "..", ".", "", "x\x00y", "tab\there"]:
        with pytest.raises(tcplab.ScenarioError, match=r"bad.py: name = .*output file names"):
            scenario(name=bad)
    assert scenario(name="ok name-1.2_x").name == "ok name-1.2_x"
    scen = tmp_path / "esc.toml"
    scen.write_text('name = "../../escaped"\n[link]\nrate = "10Mbps"\n[[flow]]\nbytes = "10KB"\n')
    out = tmp_path / "o1" / "inner"
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(scen), "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "esc.toml: name = \"../../escaped\"" in p.stderr
    assert [q for q in tmp_path.rglob("*") if "escaped" in q.name] == []


def test_result_writers_refuse_prefixes_that_leave_the_directory(tmp_path):
    res = tcplab.simulate(scenario(), seed=1)
    with pytest.raises(ValueError, match="inside"):
        res.to_parquet(tmp_path / "in", prefix="../up-")
    assert not list(tmp_path.glob("up-*"))


@pytest.mark.parametrize("rate", ["100MBps", "100MB/s", "100MBPS", "12.5kBps", "1GB/s", "8Bps",
                                  "100Mbyte/s", "100 MBps"])
def test_byte_rates_are_rejected_with_the_bit_rate_to_write(rate):
    # Defect 5: "100MBps" ran at 100 Mbit/s (an 8x error) because units were case-folded.
    with pytest.raises(tcplab.ScenarioError, match=r"bits per second.*write") as e:
        scenario(**{"link.rate": rate})
    assert "link.rate" in str(e.value)


def test_byte_rate_message_gives_the_equivalent():
    with pytest.raises(tcplab.ScenarioError, match=r'"800Mbps"'):
        scenario(**{"link.rate": "100MBps"})
    # Bit units keep working whatever their case.
    for ok, bps in [("100Mbps", 100e6), ("100mbps", 100e6), ("100Mbit/s", 100e6),
                    ("64kb/s", 64e3)]:
        sc = scenario(**{"link.rate": ok, "flow.0.bytes": "20KB"})
        res = tcplab.simulate(sc, seed=1)
        assert res.flows.loc[0, "goodput_bps"] < bps


def test_zero_rto_bounds_are_rejected():
    # Defect 8 (parser): min_rto = max_rto = "0s" made the RTO fire at one instant forever.
    with pytest.raises(tcplab.ScenarioError, match=r"flow\[0\].max_rto = \"0s\": must be > 0"):
        scenario(**{"flow.0.min_rto": "0s", "flow.0.max_rto": "0s"})
    with pytest.raises(tcplab.ScenarioError, match="max_rto"):
        scenario(**{"flow.0.max_rto": "0s"})
    # A zero floor is harmless: the clock granularity (1 ms) keeps the RTO positive.
    res = tcplab.simulate(scenario(**{"flow.0.min_rto": "0s", "link.loss": "5%"}), seed=1)
    assert bool(res.flows.loc[0, "completed"])


def test_huge_trace_timestamps_are_an_error(tmp_path):
    # Defect 9: 2^58 ms divided by zero inside the run; 2^58 + 1 silently wrapped to 1 ms.
    for line in ["288230376151711744", "288230376151711745", "18446744073709551615"]:
        (tmp_path / "t.mahi").write_text(f"1\n{line}\n")
        with pytest.raises(tcplab.ScenarioError, match=r"line 2: .*too large"):
            tcplab.Scenario({**BASE, "link": {"trace": "t.mahi"}},
                            source=str(tmp_path / "s.toml"))


def test_trace_files_are_capped_and_must_be_regular_files(tmp_path):
    # Defect 11: trace = "/dev/zero" read until memory ran out.
    with pytest.raises(tcplab.ScenarioError, match="not a regular file"):
        tcplab.Scenario({**BASE, "link": {"trace": "/dev/zero"}}, source="s.toml")
    big = tmp_path / "big.mahi"
    with open(big, "wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: 65 MiB of NUL bytes, one block on disk
    with pytest.raises(tcplab.ScenarioError, match="larger than 64 MiB"):
        tcplab.Scenario({**BASE, "link": {"trace": str(big)}}, source="s.toml")


def test_minor_inputs_are_rejected():
    # Defect 11, the minor ones.
    with pytest.raises(tcplab.ScenarioError, match=r"max_time = \"0s\": must be > 0"):
        scenario(max_time="0s")
    trace = str(tcplab.__path__[0] + "/../../examples/traces/stepped.mahi")
    with pytest.raises(tcplab.ScenarioError, match="rate.*trace.*not both"):
        tcplab.Scenario({**BASE, "link": {"rate": "1Gbps", "trace": trace}})
    with pytest.raises(tcplab.ScenarioError, match="reverse_rate.*reverse_trace.*not both"):
        tcplab.Scenario({**BASE, "link": {"rate": "1Gbps", "reverse_rate": "1Mbps",
                                          "reverse_trace": trace}})
    for path in ["flow.-1.cc", "flow.+0.cc", "flow. 0.cc", "flow.1.cc"]:
        with pytest.raises(tcplab.ScenarioError, match="not an index"):
            scenario(**{path: "reno"})


@pytest.mark.parametrize("seed", ["1", 1.0, None, True, [1]])
def test_wrong_type_seeds_say_what_is_expected(seed):
    with pytest.raises(TypeError, match=r"seed must be a whole number"):
        tcplab.simulate(scenario(), seed=seed)
    with pytest.raises(TypeError, match=r"seed"):
        tcplab.sweep(scenario(), {"link.delay": ["1ms"]}, seeds=[seed], progress=False)


@pytest.mark.parametrize("seed", [-1, 2**64, 10**30])
def test_out_of_range_seeds_say_the_range(seed):
    with pytest.raises(ValueError, match=r"seed must be .*0 to 18446744073709551615"):
        tcplab.simulate(scenario(), seed=seed)
    with pytest.raises(ValueError, match=r"replication must be .*0 to 4294967295"):
        tcplab.simulate(scenario(), seed=1, replication=-1)


def test_coding_raises_value_error_not_overflow_error():
    # Defect 11: negative or huge integers raised OverflowError, the docs promise ValueError.
    from tcplab.coding import LtDecoder, LtEncoder, RlncDecoder, RlncEncoder

    calls = [
        lambda: LtEncoder(b"abc", symbol_size=-1),
        lambda: LtEncoder(b"abc", symbol_size=2, window=-3),
        lambda: LtDecoder(-5, 10),
        lambda: LtEncoder(b"abcdef", symbol_size=2).encode(0, -1),
        lambda: LtEncoder(b"abcdef", symbol_size=2).encode(0, 2**32),
        lambda: RlncEncoder(-1, 3),
        lambda: RlncEncoder(10, 3).encode(-1),
        lambda: RlncDecoder(10, 2**70),
        lambda: RlncDecoder(10, 3).packet(-1),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(ValueError, match="whole number from 0 to") as e:
            call()
        assert not isinstance(e.value, OverflowError), i
