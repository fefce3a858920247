"""The real-network drivers from Python: the emulator, the UDP pair, kernel TCP and
`tcplab compare`. Tests that need root and /dev/net/tun skip elsewhere with the reason."""

import socket
import sys
import threading

import pytest
import tcplab
from tcplab import cli
from tcplab import net as tnet

OK, WHY = tnet.available()
needs_root = pytest.mark.skipif(not OK, reason=f"emulator unavailable: {WHY}")

LINK = {"sample": "20ms", "link": {"rate": "20Mbps", "delay": "5ms", "queue": "50pkt"}}


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_udp_pair_on_loopback_matches_simulator_tables():
    port = _free_port()
    got = {}
    t = threading.Thread(target=lambda: got.update(tnet.recv(f"127.0.0.1:{port}", timeout=10)))
    t.start()
    res = tnet.send(f"127.0.0.1:{port}", {"cc": "bbr", "bytes": "4MB", "recovery": "sack"},
                    sample="5ms")
    t.join()
    assert got["bytes_delivered"] == 4_000_000
    f = res.flows.iloc[0]
    assert f["bytes_delivered"] == 4_000_000 and f["completed"]
    # Same columns as a simulation's tables.
    sim = tcplab.simulate(tcplab.Scenario({"link": {"rate": "1Gbps"},
                                           "flow": [{"cc": "bbr", "bytes": "1MB"}]}))
    udp, simulated = res.tables["flows"].schema.names, sim.tables["flows"].schema.names
    # The simulator's columns, but for the packet counts only its links can see and the
    # CE marks its receivers count (over UDP the receiver, another process, reports them:
    # `recv`'s ce_received).
    # The UDP driver runs the simulated endpoints, so its row names their stack too.
    assert set(simulated) - set(udp) == {"packets_sent", "packets_delivered", "packets_lost",
                                         "packets_in_flight", "ce_received"}
    assert set(udp) <= set(simulated)
    # Every column documented (tcplab/columns.py), emulator packet log included.
    from tcplab import columns
    for name, table in res.tables.items():
        assert set(table.schema.names) <= set(columns.COLUMNS[name]), name
    assert len(res.series("cwnd")) > 0
    assert res.info["input"]["accepted"] > 0


def test_send_bad_flow_key_is_a_scenario_error():
    with pytest.raises(tcplab.ScenarioError, match="cc"):
        tnet.send("127.0.0.1:9", {"cc": "no-such-cc"})


@pytest.mark.parametrize("flow", [
    {"transport": "tack"},
    {"transport": "tcp-nc", "cc": "cubic"},
    {"transport": "tcp-forward"},
    {"transport": "datagram", "rate": "20Mbps"},
    # Real coded bytes in the symbols, each decoded byte checked by the receiver.
    {"transport": "tcp-nc", "coding": {"payload": True}},
    {"transport": "tcp-forward", "coding": {"payload": True}},
], ids=lambda f: f["transport"] + ("-payload" if "coding" in f else ""))
def test_every_transport_over_the_udp_pair(flow):
    port = _free_port()
    got = {}
    t = threading.Thread(target=lambda: got.update(tnet.recv(f"127.0.0.1:{port}", timeout=10)))
    t.start()
    res = tnet.send(f"127.0.0.1:{port}", {**flow, "bytes": "400KB"}, sample="5ms")
    t.join()
    assert got["transport"] == flow["transport"] == res.info["transport"]
    assert got["bytes_delivered"] == 400_000
    f = res.flows.iloc[0]
    assert f["transport"] == flow["transport"]
    assert f["bytes_delivered"] == 400_000 and f["completed"]


def test_send_transport_flag(capsys, tmp_path):
    port = _free_port()
    t = threading.Thread(target=lambda: cli.main(["recv", "--listen", f"127.0.0.1:{port}",
                                                  "--timeout", "10", "--quiet"]))
    t.start()
    assert cli.main(["send", f"127.0.0.1:{port}", "--transport", "tack", "--bytes", "300KB",
                     "--json", "--out", str(tmp_path)]) == 0
    t.join()
    import json
    doc = json.loads(capsys.readouterr().out)
    assert doc["flows"][0]["transport"] == "tack"
    assert doc["flows"][0]["bytes_delivered"] == 300_000
    # The run figure, drawn from a socket run's tables (no link series).
    assert (tmp_path / "send-plot.png").stat().st_size > 10_000
    assert str(tmp_path / "send-plot.png") in doc["files"]


def test_net_commands_take_json_and_quiet(capsys):
    port = _free_port()
    t = threading.Thread(target=lambda: cli.main(["recv", "--listen", f"127.0.0.1:{port}",
                                                  "--timeout", "10", "--quiet"]))
    t.start()
    assert cli.main(["send", f"127.0.0.1:{port}", "--bytes", "300KB", "--json"]) == 0
    t.join()
    import json
    doc = json.loads(capsys.readouterr().out)
    assert doc["flows"][0]["bytes_delivered"] == 300_000 and doc["input"]["accepted"] > 0


def test_emulate_needs_a_command(capsys):
    assert cli.main(["emulate", "x.toml"]) == 2
    assert "give a command after --" in capsys.readouterr().err


@needs_root
def test_emulate_runs_a_command_through_the_link(tmp_path, capsys):
    # The command is a tiny kernel-TCP transfer to a receiver on the host.
    srv = socket.socket()
    srv.bind(("0.0.0.0", 0))
    srv.listen()
    port = srv.getsockname()[1]
    got = []

    def serve():
        c, _ = srv.accept()
        n = 0
        while b := c.recv(65536):
            n += len(b)
        got.append(n)

    t = threading.Thread(target=serve)
    t.start()
    code = ("import os, socket; s = socket.create_connection((os.environ['TCPLAB_EMU_HOST'], "
            f"{port})); s.sendall(b'x' * 500000); s.close()")
    res = tnet.emulate(LINK, [sys.executable, "-c", code], timeout=20)
    t.join(timeout=20)
    assert res.exit_code == 0
    assert got == [500000], "the kernel delivered what the command wrote before it exited"
    lk = res.links.set_index("direction")
    assert lk.loc["fwd", "delivered_pkts"] > 300
    from tcplab import columns
    assert set(res.tables["packets"].schema.names) <= set(columns.COLUMNS["packets"])
    p = res.packets
    assert set(p["event"]) >= {"arrive", "depart"}
    # 500 kB at 20 Mbit/s takes at least 0.2 s; the one-way delay is at least 5 ms.
    assert res.info["end_time_s"] > 0.2
    dep = p[p["event"] == "depart"]
    assert dep["delay_ns"].min() >= 5_000_000
    # The CLI writes the same tables.
    rc = cli.main(["emulate", str(_toml(tmp_path)), "--out", str(tmp_path), "--",
                   sys.executable, "-c", "pass"])
    assert rc == 0
    assert (tmp_path / "link-emu-s1-packets.parquet").exists()


def _toml(tmp_path):
    p = tmp_path / "link.toml"
    p.write_text('[link]\nrate = "10Mbps"\ndelay = "1ms"\n')
    return p


@needs_root
def test_compare_runs_three_ways(tmp_path):
    from tcplab.compare import compare

    sc = tcplab.Scenario({**LINK, "flow": [{"cc": "cubic", "bytes": "1MB",
                                             "recovery": "sack"}]})
    res = compare(sc)
    t = res.table.set_index("mode")
    assert list(t.index) == ["sim", "kernel", "udp"]
    # 1 MB over 20 Mbit/s: every way below the link rate, none absurdly slow.
    assert (t["goodput_Mbps"] < 20).all() and (t["goodput_Mbps"] > 5).all(), t
    assert (t["rtt_min_ms"] >= 10).all(), t
    assert res.plot(tmp_path / "c.png").exists()


@needs_root
@pytest.mark.parametrize("tcp_ecn", [1, 0])
def test_compare_on_a_codel_link_with_the_kernels_ecn(tcp_ecn):
    # Issue 32 item 5: the kernel's TCP through the emulator's CoDel. With
    # net.ipv4.tcp_ecn = 1 in the namespace its segments are ECT and CoDel marks them
    # CE (no drop, no retransmission); with 0 CoDel drops them.
    from tcplab.compare import compare

    sc = tcplab.Scenario({"sample": "50ms", "duration": "4s",
                          "link": {"rate": "10Mbps", "delay": "10ms", "queue": "1000pkt",
                                   "discipline": {"kind": "codel", "ecn": True}},
                          "flow": [{"cc": "cubic", "bytes": "unlimited"}]})
    res = compare(sc, modes=("kernel",), tcp_ecn=tcp_ecn)
    r = res.results["kernel"]
    fwd = r.links.set_index("direction").loc["fwd"]
    assert fwd["sojourn_p50_ms"] < 100, fwd
    if tcp_ecn:
        assert fwd["marked_ce"] > 0 and fwd["dropped_aqm"] == 0, fwd
        assert r.flows["retransmitted_segments"].sum() == 0, r.flows
        p = r.tables["packets"].to_pandas()
        departed = p[(p.direction == "fwd") & (p.event == "depart")]
        assert (departed.ecn == "ce").sum() == fwd["marked_ce"]
    else:
        assert fwd["dropped_aqm"] > 0 and fwd["marked_ce"] == 0, fwd
    assert "with ECN" in res.labels["kernel"] or not tcp_ecn


def _codepoints(path) -> dict[int, int]:
    """Data segments in a pcapng file by their IP ECN codepoint (read with dpkt)."""
    dpkt = pytest.importorskip("dpkt")
    got: dict[int, int] = {}
    with open(path, "rb") as f:
        for _, buf in dpkt.pcapng.Reader(f):
            ip = dpkt.ip.IP(buf)
            if isinstance(ip.data, dpkt.tcp.TCP) and ip.data.data:
                got[ip.tos & 3] = got.get(ip.tos & 3, 0) + 1
    return got


CODEL_ECN_LINK = {"sample": "50ms", "duration": "3s",
                  "link": {"rate": "10Mbps", "delay": "10ms", "queue": "1000pkt",
                           "discipline": {"kind": "codel", "ecn": True}}}


def test_compare_pcap_needs_out(tmp_path, capsys):
    p = tmp_path / "c.toml"
    p.write_text('[link]\nrate = "10Mbps"\ndelay = "1ms"\n[[flow]]\ncc = "cubic"\n')
    assert cli.main(["compare", str(p), "--only", "sim", "--pcap"]) == 2
    assert "--pcap: needs --out" in capsys.readouterr().err


def test_compare_pcap_writes_the_simulated_leg(tmp_path):
    # One capture per leg, here the simulated one: the flow's ECT(0) segments, CE where
    # the simulated CoDel marked them (as many as the links table counts).
    from tcplab.compare import compare, pcap_path

    sc = tcplab.Scenario({**CODEL_ECN_LINK, "flow": [{"cc": "cubic", "bytes": "unlimited",
                                                      "ecn": True}]})
    res = compare(sc, modes=("sim",), pcap=tmp_path / "caps")
    fwd = res.results["sim"].links.set_index("direction").loc["fwd"]
    got = _codepoints(pcap_path(tmp_path / "caps", "sim"))
    assert fwd["marked_ce"] > 0 and got.get(3, 0) == fwd["marked_ce"], (got, fwd)
    assert got.get(2, 0) > 1000 and 0 not in got, got


@needs_root
def test_compare_pcap_writes_one_capture_per_leg(tmp_path, capsys):
    # `tcplab compare --pcap`: the simulated, kernel and UDP legs each leave a capture of
    # the packets that left the link; the kernel's (tcp_ecn = 1) holds its CE marks.
    p = tmp_path / "codel.toml"
    p.write_text('sample = "50ms"\nduration = "3s"\n[link]\nrate = "10Mbps"\n'
                 'delay = "10ms"\nqueue = "1000pkt"\n'
                 'discipline = { kind = "codel", ecn = true }\n'
                 '[[flow]]\ncc = "cubic"\nbytes = "unlimited"\n')
    out = tmp_path / "out"
    assert cli.main(["compare", str(p), "--out", str(out), "--pcap", "--tcp-ecn", "1",
                     "--quiet"]) == 0
    caps = out / "codel-pcap"
    assert sorted(c.name for c in caps.iterdir()) == ["kernel.pcapng", "sim.pcapng",
                                                       "udp.pcapng"]
    import pandas as pd

    links = pd.read_parquet(out / "codel-kernel-links.parquet").set_index("direction")
    kernel = _codepoints(caps / "kernel.pcapng")
    assert links.loc["fwd", "marked_ce"] > 0
    assert kernel.get(3, 0) == links.loc["fwd", "marked_ce"], (kernel, links)
    dpkt = pytest.importorskip("dpkt")
    with open(caps / "udp.pcapng", "rb") as f:
        udp = sum(isinstance(dpkt.ip.IP(b).data, dpkt.udp.UDP)
                  for _, b in dpkt.pcapng.Reader(f))
    assert udp > 1000, udp


@needs_root
def test_emulate_pcap_shows_the_ce_marks(tmp_path):
    # Issue 32 item 5: the capture holds each packet as it left the link, so a CE mark
    # the discipline set in the IP header is in it (read here with dpkt).
    dpkt = pytest.importorskip("dpkt")
    port = _free_port()
    got = {}
    rcv = threading.Thread(target=lambda: got.update(
        tnet.tcp_recv(f"0.0.0.0:{port}", timeout=30)))
    rcv.start()
    pcap = tmp_path / "ce.pcapng"
    sc = {"sample": "50ms", "link": {"rate": "10Mbps", "delay": "10ms", "queue": "1000pkt",
                                     "discipline": {"kind": "codel", "ecn": True}}}
    send = (f"{sys.executable} -m tcplab.cli tcp-send $TCPLAB_EMU_HOST:{port} --cc cubic "
            "--time 3s --quiet")
    res = tnet.emulate(sc, ["sh", "-c", send], tcp_ecn=1, pcap=pcap, timeout=30)
    rcv.join()
    assert res.exit_code == 0 and got["status"] == "ok", (res, got)
    marked = int(res.links.set_index("direction").loc["fwd", "marked_ce"])
    assert marked > 0, res.links
    codepoints = {}
    with open(pcap, "rb") as f:
        for _, buf in dpkt.pcapng.Reader(f):
            ip = dpkt.ip.IP(buf)
            if isinstance(ip.data, dpkt.tcp.TCP) and ip.data.data:
                codepoints[ip.tos & 3] = codepoints.get(ip.tos & 3, 0) + 1
    # Data segments: ECT(0) from the kernel, CE where CoDel marked them, none Not-ECT.
    assert codepoints.get(3, 0) == marked, codepoints
    assert codepoints.get(2, 0) > 1000 and 0 not in codepoints, codepoints


def test_emulate_refuses_a_dumbbell():
    if not OK:
        pytest.skip(f"emulator unavailable: {WHY}")
    sc = {"topology": {"kind": "dumbbell"}, "bottleneck": {"rate": "10Mbps"},
          "flow": [{"bytes": "1MB"}]}
    with pytest.raises(tcplab.ScenarioError, match="point-to-point"):
        tnet.emulate(sc, ["true"])


@needs_root
def test_emulate_host_command_runs_the_udp_pair_in_one_command(tmp_path, capsys):
    # The README's one-command form: receiver on the host (--host), sender through the link.
    import json
    from pathlib import Path

    exe = Path(sys.executable).parent / "tcplab"
    if not exe.exists():
        pytest.skip("the tcplab console script is not installed next to this python")
    sc = tmp_path / "link.toml"
    sc.write_text('[link]\nrate = "20Mbps"\ndelay = "5ms"\nqueue = "50pkt"\n')
    port = _free_port()
    code = cli.main(["emulate", str(sc), "--json",
                     "--host", f"{exe} recv --listen 0.0.0.0:{port} --timeout 15 --quiet",
                     "--", "sh", "-c",
                     f"{exe} send $TCPLAB_EMU_HOST:{port} --transport tack --bytes 500KB --quiet"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["exit_code"] == 0 and doc["host_exit_code"] == 0
    fwd = next(x for x in doc["links"] if x["direction"] == "fwd")
    assert fwd["delivered_pkts"] > 300


def test_compare_refuses_host_coalescing_for_the_kernel_leg():
    # The simulator's interrupt-coalescing keys model a host; the kernel leg runs real
    # hosts, so a comparison with them would silently mean something else.
    from tcplab.compare import compare

    sc = tcplab.Scenario({**LINK, "flow": [{"cc": "cubic", "bytes": "1MB",
                                             "sink_rx_coalesce": "2ms"}]})
    with pytest.raises(tcplab.ScenarioError, match="flow.sink_rx_coalesce"):
        compare(sc, modes=("sim", "kernel"))
    # The simulated leg alone runs the key.
    assert compare(sc, modes=("sim",)).results["sim"].flows["completed"].all()
