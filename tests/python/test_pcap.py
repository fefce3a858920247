"""Packet capture (`simulate(..., pcap=...)`, `tcplab run --pcap`): files read back with a
third-party parser (dpkt) agree with the run's tables, and tshark's TCP analysis works
on them when tshark is installed."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess

import pytest
import tcplab
from tcplab.cli import main

dpkt = pytest.importorskip("dpkt", reason="pip install dpkt (scripts/test.sh installs it)")

LOSSY = {
    "link": {"rate": "20Mbps", "delay": "5ms", "loss": "1%", "queue": "20pkt"},
    "flow": [{"recovery": "sack", "bytes": "2MB"}],
}
BYTES = 2_000_000


def read(path):
    """(interface names, [(iface, ts_s, caplen, wire_len, dpkt.ip.IP)]) of a pcapng file,
    every block parsed by dpkt."""
    pcapng = dpkt.pcapng
    data = path.read_bytes()
    names, packets, off = [], [], 0
    while off < len(data):
        kind, size = struct.unpack_from("<II", data, off)
        blk = data[off:off + size]
        if kind == pcapng.PCAPNG_BT_SHB:
            assert pcapng.SectionHeaderBlockLE(blk).bom == pcapng.BYTE_ORDER_MAGIC  # as read LE
        elif kind == pcapng.PCAPNG_BT_IDB:
            idb = pcapng.InterfaceDescriptionBlockLE(blk)
            assert idb.linktype == 101  # LINKTYPE_RAW: IPv4 headers first
            opts = {o.code: o.data for o in idb.opts}
            assert opts[pcapng.PCAPNG_OPT_IF_TSRESOL] == b"\x09", "nanoseconds"
            names.append(opts[2].decode())
        elif kind == pcapng.PCAPNG_BT_EPB:
            epb = pcapng.EnhancedPacketBlockLE(blk)
            ts = ((epb.ts_high << 32) | epb.ts_low) / 1e9
            packets.append((epb.iface_id, ts, epb.caplen, epb.pkt_len, dpkt.ip.IP(epb.pkt_data)))
        off += size
    # dpkt's own reader agrees on the number of packets.
    with open(path, "rb") as f:
        assert sum(1 for _ in dpkt.pcapng.Reader(f)) == len(packets)
    return names, packets


def internet_checksum(b: bytes) -> int:
    """RFC 1071, written independently of the Rust encoder."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def sack_blocks(tcp) -> list[tuple[int, int]]:
    for kind, val in dpkt.tcp.parse_opts(tcp.opts):
        if kind == dpkt.tcp.TCP_OPT_SACK:
            return [struct.unpack("!II", val[i:i + 8]) for i in range(0, len(val), 8)]
    return []


def delivered(res, direction: str, link: str = "link") -> int:
    links = res.links
    row = links[(links["link"] == link) & (links["direction"] == direction)]
    return int(row["delivered_pkts"].iloc[0])


def test_capture_agrees_with_the_tables(tmp_path):
    path = tmp_path / "lossy.pcapng"
    sc = tcplab.Scenario(LOSSY)
    res = tcplab.simulate(sc, seed=1, pcap={"link": "link", "path": path})
    plain = tcplab.simulate(sc, seed=1)
    assert res.info["digest"] == plain.info["digest"], "capturing changes no result"
    names, pk = read(path)
    assert names == ["link.fwd", "link.rev"]
    fwd = [p for p in pk if p[0] == 0]
    rev = [p for p in pk if p[0] == 1]
    assert len(fwd) == delivered(res, "fwd") == res.flows["packets_delivered"][0]
    assert len(rev) == delivered(res, "rev")
    assert res.info["pcap"]["packets"] == [len(fwd), len(rev)]
    assert res.info["pcap"]["wire_bytes"] == [sum(p[3] for p in fwd), sum(p[3] for p in rev)]

    # Data: 10.0.0.1:10000 -> 10.0.0.2:5001, sequence numbers covering the transfer.
    covered, seqs = set(), []
    syns = 0
    for _, _, caplen, wire_len, ip in fwd:
        assert (ip.src, ip.dst) == (bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
        tcp = ip.data
        if tcp.flags & 0x02:  # the SYN opening the connection (52 bytes, no payload)
            assert wire_len == 52 and not seqs
            syns += 1
            continue
        assert (tcp.sport, tcp.dport) == (10000, 5001)
        assert ip.len == wire_len and caplen == min(wire_len, 80)
        payload = ip.len - 20 - tcp.off * 4
        assert 0 < payload <= 1460
        covered.add((tcp.seq, payload))
        seqs.append(tcp.seq)
    assert syns == 1
    assert max(s + n for s, n in covered) == BYTES
    assert sum(n for _, n in covered) == BYTES, "every byte once, retransmissions aside"
    # Segments lost on this link never reach its exit: their retransmissions fill the
    # holes, out of sequence order.
    backs = sum(b < a for a, b in zip(seqs, seqs[1:]))
    assert 0 < backs <= res.flows["retransmitted_segments"][0]

    # ACKs: cumulative numbers never fall back, end at the transfer's size; SACK blocks
    # lie above the cumulative ACK.
    acks, with_sack = [], 0
    for _, _, _, _, ip in rev:
        tcp = ip.data
        assert (tcp.sport, tcp.dport) == (5001, 10000)
        assert tcp.flags & dpkt.tcp.TH_ACK
        assert ip.len == 20 + tcp.off * 4, "pure ACKs"
        # 6 MiB receive buffer at window scale 11, less out-of-order data held.
        assert tcp.win <= 3072 and (tcp.win == 3072 or not tcp.flags & dpkt.tcp.TH_SYN)
        acks.append(tcp.ack)
        blocks = sack_blocks(tcp)
        with_sack += bool(blocks)
        assert all(tcp.ack < s < e <= BYTES for s, e in blocks)
    assert acks == sorted(acks) and acks[-1] == BYTES
    assert with_sack > 0

    # Times: nanoseconds of simulated time, in order, within the run.
    ts = [p[1] for p in pk]
    assert ts == sorted(ts) and ts[-1] <= res.info["end_time_s"] + 1e-9
    # Small files: 80-byte snapshots, 32 bytes of block framing per packet.
    per_packet = path.stat().st_size / len(pk)
    assert per_packet <= 112, per_packet


def test_checksums_and_zero_payload_with_full_snaplen(tmp_path):
    path = tmp_path / "full.pcapng"
    sc = tcplab.Scenario({**LOSSY, "flow": [{"recovery": "sack", "bytes": "200kB"}]})
    tcplab.simulate(sc, seed=3, pcap={"link": "link", "path": path, "snaplen": 65535})
    _, pk = read(path)
    assert pk
    for _, _, caplen, wire_len, ip in pk:
        raw = bytes(ip)
        assert caplen == wire_len == len(raw)
        assert internet_checksum(raw[:20]) == 0xFFFF, "IPv4 header checksum"
        pseudo = raw[12:20] + struct.pack("!BBH", 0, 6, len(raw) - 20)
        assert internet_checksum(pseudo + raw[20:]) == 0xFFFF, "TCP checksum"
        hdr = 20 + ip.data.off * 4
        assert raw[hdr:] == bytes(len(raw) - hdr), "payload bytes are zeros"


def test_datagram_cross_traffic_is_udp(tmp_path):
    path = tmp_path / "mixed.pcapng"
    sc = tcplab.Scenario({
        "duration": "1s",
        "link": {"rate": "10Mbps", "delay": "1ms"},
        "flow": [{"bytes": "300kB"},
                 {"transport": "datagram", "rate": "1Mbps", "bytes": "unlimited"}],
    })
    res = tcplab.simulate(sc, seed=1, pcap={"link": "link", "path": path, "direction": "fwd"})
    names, pk = read(path)
    assert names == ["link.fwd"]
    udp = [p[4] for p in pk if p[4].p == dpkt.ip.IP_PROTO_UDP]
    tcp = [p[4] for p in pk if p[4].p == dpkt.ip.IP_PROTO_TCP]
    flows = res.flows
    assert len(udp) == flows["packets_delivered"][1]
    assert len(tcp) == flows["packets_delivered"][0]
    for i, ip in enumerate(udp):
        assert (ip.data.sport, ip.data.dport) == (10001, 5001), "flow 1's ports"
        seq, sent_ns = struct.unpack("!QQ", bytes(ip.data.data)[:16])
        assert seq == i, "no loss: every datagram in order"
        assert sent_ns <= 1e9


def test_bad_arguments_are_clear_errors(tmp_path):
    sc = tcplab.Scenario(LOSSY)
    with pytest.raises(ValueError, match=r"no link named 'bottleneck' \(its links: link\)"):
        tcplab.simulate(sc, pcap={"link": "bottleneck", "path": tmp_path / "x.pcapng"})
    assert not (tmp_path / "x.pcapng").exists(), "nothing written for a bad link"
    with pytest.raises(OSError, match="pcap: cannot write"):
        tcplab.simulate(sc, pcap={"link": "link", "path": tmp_path / "no" / "x.pcapng"})
    with pytest.raises(ValueError, match="direction must be"):
        tcplab.simulate(sc, pcap={"link": "link", "path": tmp_path / "x", "direction": "up"})
    with pytest.raises(ValueError, match="unknown key"):
        tcplab.simulate(sc, pcap={"link": "link", "path": tmp_path / "x", "snap": 1})
    with pytest.raises(ValueError, match="'path' is required"):
        tcplab.simulate(sc, pcap={"link": "link"})
    with pytest.raises(ValueError, match="snaplen"):
        tcplab.simulate(sc, pcap={"link": "link", "path": tmp_path / "x", "snaplen": 0})


def test_cli_pcap_json_and_quiet(example, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["run", str(example), "--pcap", "link:fwd", "--out", str(out),
                 "--no-plot", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    run = doc["runs"][0]
    path = out / "newreno-lossy-s1-r0-link-fwd.pcapng"
    assert str(path) in map(str, run["files"])
    assert run["pcap"]["packets"][0] == len(read(path)[1]) > 0
    assert run["pcap"]["packets"][1] == 0
    assert main(["run", str(example), "--pcap", "link", "--out", str(out), "--no-plot",
                 "--quiet", "--snaplen", "40"]) == 0
    assert capsys.readouterr().out == ""
    _, pk = read(out / "newreno-lossy-s1-r0-link.pcapng")
    assert {p[0] for p in pk} == {0, 1} and max(p[2] for p in pk) == 40


def test_cli_pcap_errors(example, tmp_path, capsys):
    assert main(["run", str(example), "--pcap", "link"]) == 2
    assert "needs --out" in capsys.readouterr().err
    assert main(["run", str(example), "--pcap", "wan", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no link named 'wan'" in err and "Traceback" not in err
    assert not list(tmp_path.glob("*.pcapng"))


@pytest.mark.skipif(shutil.which("tshark") is None,
                    reason="tshark not installed (apt-get install tshark); dpkt tests cover "
                           "the file format")
def test_tshark_tcp_analysis(tmp_path):
    path = tmp_path / "t.pcapng"
    sc = tcplab.Scenario(LOSSY)
    res = tcplab.simulate(sc, seed=1, pcap={"link": "link", "path": path, "snaplen": 65535})
    total = sum(res.info["pcap"]["packets"])

    def tshark(*args):
        p = subprocess.run(["tshark", "-n", "-r", str(path), "-o",
                            "tcp.default_window_scaling:11", *args],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout

    conv = tshark("-q", "-z", "conv,tcp")
    line = next(ln for ln in conv.splitlines() if "10.0.0.1:10000" in ln)
    assert "10.0.0.2:5001" in line
    assert str(total) in line.split(), line  # total frames of the one conversation

    def count(flt, *opts):
        return len(tshark(*opts, "-Y", flt, "-T", "fields", "-e", "frame.number").split())

    assert count("tcp") == total
    checked = ("-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE")
    good = 'ip.checksum.status == "Good" && tcp.checksum.status == "Good"'
    assert count(good, *checked) == total
    assert count("tcp.analysis.zero_window") == 0
    assert count("tcp.analysis.ack_rtt") > 0, "RTTs from data to its ACK"
    # Every data segment below the highest byte already seen is, to Wireshark, either a
    # retransmission or out of order.
    top, backs = 0, 0
    for _, _, _, _, ip in read(path)[1]:
        if ip.src == bytes([10, 0, 0, 1]):
            backs += ip.data.seq < top
            top = max(top, ip.data.seq + ip.len - 20 - ip.data.off * 4)
    assert backs > 0
    assert count("tcp.analysis.retransmission || tcp.analysis.out_of_order") == backs
    wins = set(tshark("-Y", "ip.src == 10.0.0.2", "-T", "fields",
                      "-e", "tcp.window_size").split())
    assert wins == {str(64 << 20)}, "the scaled window is the 64 MiB receive buffer"
