"""Bad command lines and bad files give one clear line, before anything is simulated (defect 7)."""

import subprocess
import sys

import pytest

SCEN = '[link]\nrate = "10Mbps"\n[[flow]]\nbytes = "10KB"\n'


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tcplab.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def one_clear_line(p, *needles):
    """No traceback, exactly one line on stderr, nothing simulated (stdout empty)."""
    err = p.stderr.strip().splitlines()
    assert "Traceback" not in p.stderr, p.stderr
    assert len(err) == 1, p.stderr
    assert p.stdout == "", p.stdout
    for n in needles:
        assert n in err[0], err[0]
    return err[0]


@pytest.fixture
def scen(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCEN)
    return p


@pytest.mark.parametrize("seed, why", [
    ("-5", "from 0 to 18446744073709551615"),
    ("1e23", "a whole number"),
    ("100000000000000000000000", "from 0 to 18446744073709551615"),
    ("x", "a whole number"),
])
def test_bad_seed(scen, seed, why):
    p = cli("run", scen, "--seed", seed)
    assert p.returncode == 2
    one_clear_line(p, "--seed", why)


def test_bad_counts(scen, tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text('scenario = "s.toml"\n[grid]\n"link.delay" = ["1ms"]\n')
    one_clear_line(cli("sweep", plan, "--workers", "-2"), "--workers", ">= 1")
    one_clear_line(cli("sweep", plan, "--workers", "0"), "--workers", ">= 1")
    one_clear_line(cli("run", scen, "--replications", "0"), "--replications", ">= 1")
    one_clear_line(cli("reproduce", "wave", "--seeds", "-1"), "--seeds", ">= 1")


def test_out_that_cannot_be_written_is_reported_before_the_run(scen, tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    p = cli("run", scen, "--out", f)
    assert p.returncode == 2
    one_clear_line(p, "--out", "not a directory")
    p = cli("run", scen, "--out", "/proc/tcplab-cannot-be-here")
    assert p.returncode == 2
    one_clear_line(p, "--out", "cannot")
    plan = tmp_path / "p.toml"
    plan.write_text('scenario = "s.toml"\n[grid]\n"link.delay" = ["1ms"]\n')
    one_clear_line(cli("sweep", plan, "--out", f), "--out", "not a directory")


def test_nul_in_name(tmp_path):
    p = tmp_path / "nul.toml"
    p.write_text('name = "a\\u0000b"\n' + SCEN)
    r = cli("run", p, "--out", tmp_path / "o")
    assert r.returncode == 1
    one_clear_line(r, "nul.toml: name = ", "control character")


@pytest.mark.parametrize("content, why", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not UTF-8 text"),
    ('name = "café"\n'.encode("latin-1") + SCEN.encode(), "not UTF-8 text (byte 0xe9"),
    (b"\x00" * 64, "NUL"),
])
def test_binary_and_latin1_files(tmp_path, content, why):
    p = tmp_path / "bin.toml"
    p.write_bytes(content)
    for cmd in (["run", p], ["check", p]):
        r = cli(*cmd)
        assert r.returncode == 1
        one_clear_line(r, "bin.toml", why)
    plan = tmp_path / "plan.toml"
    plan.write_bytes(content)
    r = cli("sweep", plan)
    assert r.returncode == 1
    one_clear_line(r, "plan.toml", why)


def test_a_byte_order_mark_is_accepted_everywhere(tmp_path):
    # Rust accepted a BOM that Python's TOML reader then rejected with a traceback.
    p = tmp_path / "bom.toml"
    p.write_bytes(b"\xef\xbb\xbf" + SCEN.encode())
    r = cli("check", p)
    assert r.returncode == 0, r.stderr
    r = cli("run", p, "--no-plot")
    assert r.returncode == 0, r.stderr
    plan = tmp_path / "plan.toml"
    plan.write_bytes(b"\xef\xbb\xbf" + b'scenario = "bom.toml"\nseeds = 1\n'
                     b'[grid]\n"link.delay" = ["1ms"]\n')
    r = cli("sweep", plan, "--executor", "serial")
    assert r.returncode == 0, r.stderr


def test_directories_and_devices_are_not_scenarios(tmp_path):
    r = cli("check", tmp_path)
    assert r.returncode == 1
    one_clear_line(r, "not a regular file")
    r = cli("check", "/dev/zero")
    assert r.returncode == 1
    one_clear_line(r, "/dev/zero", "not a regular file")


def test_replications_are_printed_as_they_finish(scen, capsys, monkeypatch):
    # `--replications N` printed nothing until the last one finished; now each replication's
    # rows are out before the next one starts.
    import tcplab.scenario
    from tcplab.cli import main

    seen, real = [], tcplab.scenario.simulate

    def spy(*a, **k):
        seen.append(capsys.readouterr().out)
        return real(*a, **k)

    monkeypatch.setattr(tcplab.scenario, "simulate", spy)
    assert main(["run", str(scen), "--replications", "3", "--no-plot"]) == 0
    seen.append(capsys.readouterr().out)
    assert seen[0] == ""
    for rep in range(3):
        assert f"replication={rep}" in seen[rep + 1]
        assert "flow0" in seen[rep + 1], "the replication's per-flow rows"
        assert f"replication={rep + 1}" not in seen[rep + 1]
