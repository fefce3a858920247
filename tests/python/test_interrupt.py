"""Ctrl-C stops a run promptly (defect 3): the API raises KeyboardInterrupt, the CLI exits
with 130 and one line. The long scenario would take minutes; the checks allow seconds."""

import signal
import subprocess
import sys
import time

LONG = ('{"sample": "off", "max_time": "200000s", '
        '"link": {"rate": "10Mbps", "delay": "1ms"}, "flow": [{"bytes": "200GB"}]}')
API = f"""
import sys, tcplab
print("ready", flush=True)
try:
    tcplab.simulate(tcplab.Scenario({LONG}))
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
"""


def interrupt_after(cmd, wait_line: bool, delay: float = 1.0):
    # A shell runs background jobs with SIGINT ignored, and Python keeps an ignored SIGINT
    # ignored: give the child the default disposition a terminal would.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if wait_line:
        assert p.stdout.readline().strip() == "ready"
    time.sleep(delay)  # well inside the run
    assert p.poll() is None, "the run ended before it was interrupted"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err, time.monotonic() - t0


def test_ctrl_c_stops_the_api_promptly():
    code, out, err, took = interrupt_after([sys.executable, "-c", API], wait_line=True)
    assert code == 3 and "interrupted" in out, (code, out, err)
    # The simulator checks for signals every 65,536 events (a few ms); allow for a loaded
    # machine but not for the minutes the run would take.
    assert took < 10, took


def test_ctrl_c_stops_the_cli_with_130(tmp_path):
    s = tmp_path / "long.toml"
    s.write_text('sample = "off"\nmax_time = "200000s"\n[link]\nrate = "10Mbps"\ndelay = "1ms"\n'
                 '[[flow]]\nbytes = "200GB"\n')
    code, out, err, took = interrupt_after(
        [sys.executable, "-m", "tcplab.cli", "run", str(s), "--no-plot"], wait_line=False,
        delay=3.0)
    assert code == 130, (code, err)
    assert err.strip().splitlines()[-1] == "tcplab run: interrupted", err
    assert "Traceback" not in err and took < 10, (err, took)
