"""`tcplab send` / `tcplab recv` on an open network (issue 31): forged HELLOs neither stop
the receiver nor keep the real sender out, a pre-shared key (`--key FILE`) keeps every
unauthenticated datagram unread, and Ctrl-C ends either command within a second with
exit code 130 and one line, the sender telling its receiver and writing --out."""

import json
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest
from tcplab import net as tnet


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _hello(transport: int, table: bytes, conn: int = 7, mss: int = 1000,
           total: int = 60_000) -> bytes:
    """A wire-format HELLO (docs/wire-format.md)."""
    return (struct.pack(">HBBBBHQ", 0x544C, 1, 1, 0, 0, 0, conn)
            + struct.pack(">IB3xQ", mss, transport, total) + table)


def _recv_in_thread(port: int, **kw):
    got: dict = {}

    def run():
        try:
            got.update(tnet.recv(f"127.0.0.1:{port}", timeout=20, **kw))
        except Exception as e:  # noqa: BLE001 - reported by the test
            got["error"] = e
    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)
    return t, got


def test_a_non_utf8_hello_is_refused_and_the_real_sender_served():
    port = _free_port()
    t, got = _recv_in_thread(port)
    hello = _hello(2, b"\xff\xfe")
    assert len(hello) == 34
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(hello, ("127.0.0.1", port))
    time.sleep(0.1)
    res = tnet.send(f"127.0.0.1:{port}", {"transport": "tack", "bytes": "1MB"}, sample=None)
    t.join()
    assert "error" not in got, got
    assert got["bytes_delivered"] == 1_000_000
    assert res.flows.iloc[0]["bytes_delivered"] == 1_000_000
    assert got["input"]["refused_hello"] == 1
    assert "not UTF-8" in got["last_refusal"]


def test_with_a_key_a_forged_hello_is_unread(tmp_path):
    key = tmp_path / "key"
    key.write_bytes(b"0123456789abcdef0123456789abcdef")
    port = _free_port()
    t, got = _recv_in_thread(port, key=key)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(_hello(0, b""), ("127.0.0.1", port))
    time.sleep(0.1)
    res = tnet.send(f"127.0.0.1:{port}", {"bytes": "1MB"}, sample=None, key=key)
    t.join()
    assert "error" not in got, got
    assert got["bytes_delivered"] == 1_000_000 and got["authenticated"]
    assert got["input"]["bad_mac"] == 1 and got["released_claims"] == 0
    assert res.info["authenticated"]


def test_a_short_or_missing_key_file_is_named(tmp_path):
    short = tmp_path / "short.key"
    short.write_bytes(b"too short")
    with pytest.raises(tnet.NetworkError, match="short.key.*at least 16 bytes"):
        tnet.send("127.0.0.1:9", {"bytes": "1MB"}, key=short)
    with pytest.raises(tnet.NetworkError, match="missing.key.*cannot read"):
        tnet.recv("127.0.0.1:0", key=tmp_path / "missing.key")


def _start(args):
    # As a terminal would start it: SIGINT at its default (tests/python/test_interrupt.py).
    return subprocess.Popen([sys.executable, "-m", "tcplab.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _interrupt(p, after: float):
    time.sleep(after)
    assert p.poll() is None, p.communicate()
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    return p.returncode, out, err, time.monotonic() - t0


def _assert_interrupted(cmd, code, err, took):
    assert code == 130, (code, err)
    assert err.strip().splitlines()[-1] == f"tcplab {cmd}: interrupted", err
    assert "Traceback" not in err, err
    assert took < 1.0, took
    print(f"tcplab {cmd}: exited {took:.3f} s after SIGINT")


def test_ctrl_c_stops_recv_waiting_for_a_sender():
    p = _start(["recv", "--listen", f"127.0.0.1:{_free_port()}"])
    code, out, err, took = _interrupt(p, 2.0)
    _assert_interrupted("recv", code, err, took)


def test_ctrl_c_stops_send_waiting_for_a_receiver():
    quiet = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    quiet.bind(("127.0.0.1", 0))
    port = quiet.getsockname()[1]
    # Python starts in about a second: the 5 s HELLO wait is still running at 2.5 s.
    p = _start(["send", f"127.0.0.1:{port}", "--bytes", "1MB"])
    code, out, err, took = _interrupt(p, 2.5)
    quiet.close()
    _assert_interrupted("send", code, err, took)


def test_ctrl_c_stops_send_closes_with_the_receiver_and_writes_out(tmp_path):
    port = _free_port()
    r = _start(["recv", "--listen", f"127.0.0.1:{port}", "--json"])
    time.sleep(1.5)
    out_dir = tmp_path / "out"
    s = _start(["send", f"127.0.0.1:{port}", "--time", "30s", "--out", str(out_dir),
                "--sample", "50ms"])
    code, out, err, took = _interrupt(s, 3.0)
    _assert_interrupted("send", code, err, took)
    written = {p.name for p in out_dir.iterdir()}
    assert {"send-flows.parquet", "send-flow_series.parquet"} <= written, written
    import pyarrow.parquet as pq
    flows = pq.read_table(out_dir / "send-flows.parquet").to_pylist()
    assert flows[0]["bytes_delivered"] > 0 and not flows[0]["completed"], flows
    assert pq.read_table(out_dir / "send-flow_series.parquet").num_rows > 10
    # The receiver was told (CLOSE): it ends at once, with the partial transfer.
    rout, rerr = r.communicate(timeout=5)
    assert r.returncode == 0, rerr
    rep = json.loads(rout)
    assert rep["sender_interrupted"] and rep["bytes_delivered"] > 0, rep
