"""802.11g's airtime for TCP and its ACKs (scripts/ns3_wifi_side_by_side.py --tack): the
standard's timing worked out by hand, and tcplab's cell inside the bounds it gives.

ns-3's Wi-Fi model measures the same cells (docs/validation.md); it is not needed here.
"""

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
side = pytest.importorskip("ns3_wifi_side_by_side")


def test_802_11g_by_hand_matches_the_standard_timing():
    # docs/wlan.md's table: T = 28 + 67.5 + 254 + 10 + 34 µs for a 1500-byte packet.
    assert side.g_access_us(1500) == pytest.approx(393.5)
    # A 52-byte TCP ACK: 4 symbols at 54 Mbit/s, 42 µs with the signal extension.
    assert side.g_ppdu_us(52 + 36, 216) == pytest.approx(42.0)
    assert side.g_access_us(52) == pytest.approx(181.5)
    assert side.g_access_us(52, backoff=False) == pytest.approx(114.0)
    udp, tcp = side.g_by_hand(2)
    assert udp / 1e6 == pytest.approx(29.93, abs=0.01)
    assert tcp / udp == pytest.approx(0.80, abs=0.005)
    # TACK's ACK rate on 802.11g: 6 segments per RTT_min / β = 2.5 ms at the ceiling.
    assert [side.thin_ack_every(s) for s in side.TACK_PHYS] == [6, 55, 133]


def late(cell: dict) -> float:
    sc = side.tcplab_scenario(cell, cell["standard"], 3.0, {},
                              queue=cell.get("queue", side.TACK_QUEUE_PKTS))
    return side.run_tcplab(cell, sc, 1, 3.0)["late"]


def test_tcp_share_and_thinning_gain_lie_between_the_hand_bounds():
    cells = {c["name"]: c for c in side.tack_cells()}
    udp = late(cells["tack-g-udp"])
    assert udp == pytest.approx(side.g_by_hand(2)[0], rel=0.01)
    for cc in ("bbr", "cubic"):
        l2, l6 = late(cells[f"tack-g-{cc}-L2"]), late(cells[f"tack-g-{cc}-L6"])
        # The station's counter runs while the access point's does, so a TCP ACK costs
        # less than an access of its own and more than one without any backoff.
        worst, best = side.g_by_hand(2, True)[1], side.g_by_hand(2, False)[1]
        assert worst < l2 < best, (cc, worst, l2, best)
        gain = l6 / l2 - 1
        lo = side.g_by_hand(6, False)[1] / best - 1
        hi = side.g_by_hand(6, True)[1] / worst - 1
        assert lo < gain < hi, (cc, lo, gain, hi)
