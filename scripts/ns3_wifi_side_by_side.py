"""ns-3's 802.11n/ac model beside tcplab's 802.11 cell (`[[wlan]]`): UDP and TCP goodput,
the mean A-MPDU size and the wall time of one run of each, cell by cell. Prints a Markdown
table (the one in docs/validation.md).

    python scripts/ns3_wifi_side_by_side.py [--ns3-prefix DIR] [--cells PATTERNS]
        [--duration S] [--seed N] [--standard 802.11ac|802.11n] [--set KEY=VALUE]
        [--ns3-arg ARG] [--cc-param KEY=VALUE] [--no-ns3] [--csv FILE] [--tack [--seeds N]]

ns-3 comes from the PyPI wheel (ns-3.44, every module's headers and shared libraries):

    python3 -m venv /work/ns3pip && /work/ns3pip/bin/pip install ns3==3.44

--ns3-prefix (default /work/ns3pip/lib/python3.11/site-packages/ns3) is the wheel's
package directory, holding include/ns3 and lib64/libns3.44-*.so. The script writes one
C++ program (PROGRAM below; generated here, never part of ns-3 or of this repository) into
a build directory (--build, default /tmp/tcplab_ns3_wifi), compiles it with g++ against
those libraries (-Wl,-rpath) and runs it once per cell; tcplab runs the same cell through
`import tcplab` (`maturin develop --release` in this repository first).

The cell (both sides): an access point and 1 or 8 stations, 802.11ac VHT MCS 9, 2
spatial streams, 80 MHz, 400 ns guard interval (866.7 Mbit/s) at a fixed rate (ns-3's
ConstantRateWifiManager; tcplab's `rate_control = "fixed"`), Block ACKs and ACKs at 24
Mbit/s (ns-3 answers at the highest basic rate not above the data rate's non-HT reference
rate; tcplab's `control_rate`), EDCA best effort; `--standard 802.11n` uses HT MCS 15, 40
MHz instead; the `--tack` cells also run 802.11g (ERP-OFDM 54 Mbit/s, 20 MHz at 2.4 GHz;
ns-3's 802.11g MAC is the DCF without QoS, tcplab's preset the same). Cell names are
`<stations>sta-<traffic>-ampdu<on|off>-per<0|10>`:
- traffic `udp`: with 1 station the access point sends it 1 Gbit/s of 1472-byte
  datagrams (W1's cell); with 8, each station sends the access point 200 Mbit/s (W8's);
  goodput = all datagrams received over the run.
- traffic `cubic`, `bbr`: a server behind a 10 Gbit/s, 5 ms wire to the access point sends
  one bulk TCP flow to each station (tcplab `stack = "ns3"`, the ns-3 attributes of
  scripts/ns3_side_by_side.py's PROFILE, with MSS 1448 and 4 MiB buffers); goodput = all
  flows' delivered bytes over the run.
- `ampduon`: A-MPDU with Block ACK (ns-3 `BE_MaxAmpduSize` at its 65,535-byte default,
  tcplab's preset); `ampduoff`: one MPDU per access and a normal ACK (ns-3
  `BE_MaxAmpduSize` 0, tcplab `ampdu = false`).
- `per10`: every data MPDU (and every TCP ACK's MPDU) is lost with probability 0.1 at
  every receiver, ACK and Block ACK frames never. tcplab's `per` does exactly that; ns-3
  gets an ErrorModel in the PHY's `PostReceptionErrorModel` slot (checked per MPDU, after
  the SNR model, which at 1 m never fails) that corrupts a received MPDU with probability
  0.1 when its MAC payload is at least 28 bytes (LLC/SNAP + an IPv4 header: every data
  frame; ACKs carry no payload, compressed Block ACKs 12 bytes). A fixed SNR with a
  matching PER would make the error rate depend on the MPDU's length (a 100-byte TCP
  ACK would almost never fail where a 1538-byte data MPDU fails 10 % of the time), and on
  the Block ACK frames too, so it would not give the same per-MPDU error rate on both
  sides.
The mean A-MPDU size counts the data senders' PPDUs that carry QoS data (the access
point's with 1 station or TCP, the stations' for 8-station UDP): MPDUs per PPDU. ns-3
counts every PPDU it sends, tcplab those that did not collide.

Settings made the same on both sides (see NS3_AMPDU, NS3_QUEUE_PKTS and NS3_FIXED below):
ns-3's A-MPDU limits and its transmit queue (one WifiMacQueue of 500 packets per access
category, shared by all receivers and served oldest head first: tcplab's `queue`,
`node_queue` and `schedule = "fcfs"`; `--queue N` sets both sides, and then lifts ns-3's
500 ms packet lifetime, which tcplab's queues lack),
and no explicit BlockAckReq after a missed Block ACK in ns-3 (as in Linux's drivers and
tcplab). ns-3's own defaults stand elsewhere: no queue disc above the device (the
default FqCoDel is removed so both sides drop tail), passive scanning and association
before the traffic starts at 1 s (the run measures `--duration` seconds from then), and
BulkSendApplication's 512-byte writes. `--preset-ampdu`, `--own-queue` and `--ns3-bar`
undo one of these each; --set KEY=VALUE writes a `[[wlan]]` key into tcplab's cell (e.g.
`--set ampdu_time=550us`), --cc-param KEY=VALUE a key of tcplab's TCP flows' `cc_params`
(e.g. `--cc-param extra_acked_gain=1`), --ns3-arg passes an argument to the ns-3 program (e.g.
`--ns3-arg=--ns3::BulkSendApplication::SendSize=1448`): one switch at a time, for
controlled experiments. The TCP cells of docs/validation.md run with `--queue 5000`.
`--tack [--seeds N]` runs instead the TACK study's setting (TACK_PHYS below) on 802.11g, n
and ac with one station, as docs/validation.md's second table: UDP, TCP BBR with L = 2 and
with ACKs thinned to TACK's rate, and TCP Cubic with both (a sender that keeps the channel
busy, so the gain is the airtime's alone), in ns-3 and in tcplab (`stack = "ns3"`), and
the study's own TCP BBR and TCP-TACK in tcplab (`tcplab.reproduce.tack.wlan`); it prints
the second-half goodputs, TCP's share of the UDP ceiling, the station's channel accesses
and the gain from thinning, beside 802.11g's airtime worked out by hand (`g_by_hand`).
--ns3-only and --no-ns3 run one side; ns-3's output and times are kept under the build
directory, and --reuse prints a kept run again instead of running ns-3 (--detail adds
its counters: MAC queue drops, TCP recoveries and timeouts, goodput by tenths of the run).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import tcplab

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ns3_build import compile_against, parse_value  # noqa: E402
from ns3_side_by_side import NS3_ATTR, PROFILE, ns3_value  # noqa: E402

DEFAULT_PREFIX = "/work/ns3pip/lib/python3.11/site-packages/ns3"
#: The PHY of each standard on both sides: ns-3's data mode and channel width, and the
#: tcplab preset that has the same MCS, streams, width and guard interval by default.
PHY = {
    "802.11ac": {"mode": "VhtMcs9", "width": 80, "streams": 2},
    "802.11n": {"mode": "HtMcs15", "width": 40, "streams": 2},
    # ERP-OFDM 54 Mbit/s; ns-3 answers at 24 Mbit/s, the highest mandatory ERP-OFDM rate
    # not above the data rate (`GetControlAnswerMode`), tcplab's preset `control_rate`.
    "802.11g": {"mode": "ErpOfdmRate54Mbps", "width": 20, "streams": 1},
}
#: What the TCP flows share on both sides (over the `ns3` stack profile).
TCP_FLOW = {"mss": 1448, "snd_buf": "4MiB", "rcv_buf": "4MiB"}
#: ns-3's A-MPDU limits, given to tcplab's cell: `BE_MaxAmpduSize` 65,535 bytes (the
#: WifiMac attribute's default, the HT maximum) and no airtime cap but aPPDUMaxTime (5.484
#: ms, which ns-3's MpduAggregator enforces). The 802.11n/ac presets have the same limits
#: (`NS3_AMPDU` in crates/tcplab-link/src/wlan/params.rs); they are written out so that a
#: change to the presets does not change the comparison (`--preset-ampdu` drops them).
NS3_AMPDU = {"ampdu_bytes": 65535, "ampdu_time": "5484us"}
#: ns-3's transmit queue, given to tcplab's cell: one WifiMacQueue per access category,
#: shared by every receiver, `MaxSize` 500 packets (`--queue N` sets both sides), whose
#: per-receiver queues `FcfsWifiQueueScheduler` serves oldest head first (tcplab's
#: `schedule = "fcfs"`). `--own-queue` keeps tcplab's preset: 1000 packets per
#: destination, no limit per node, round robin.
NS3_QUEUE_PKTS = 500
#: After a missed Block ACK ns-3's originator first sends an explicit BlockAckReq
#: (`QosTxop::UseExplicitBarAfterMissedBlockAck`, default true); Linux's drivers (ath9k's
#: `ath_tx_complete_aggr`) and tcplab's cell retransmit the MPDUs in the next A-MPDU
#: instead, as IEEE 802.11-2020 10.25.3 allows. The script switches ns-3 to the latter
#: (`--ns3-bar` keeps ns-3's default): with 8 contending stations the extra BlockAckReq
#: exchange after each collision costs ns-3 12 % of the cell's UDP goodput.
NS3_FIXED = ["--ns3::QosTxop::UseExplicitBarAfterMissedBlockAck=false"]
UDP_SIZE = 1472
#: Offered UDP load: the access point to 1 station (W1), each of 8 stations to the AP (W8).
UDP_RATE = {1: "1Gbps", 8: "200Mbps"}
WIRE = {"rate": "10Gbps", "delay": "5ms", "queue": "100000pkt"}

#: `--tack`: the TACK study's setting (python/tcplab/reproduce/tack.py, `wlan`): one
#: station receives one bulk flow from a server behind a 10 Gbit/s, 5 ms wire (RTT_min 10
#: ms) on 802.11g, n and ac, beside one saturating UDP flow from the access point, with
#: the study's 1000-packet AP queue on both sides (`--queue 1000`). TCP BBR runs with
#: ns-3's delayed ACK (DelAckCount 2, tcplab's `ack_every = 2`) and thinned to about
#: TACK's ACK rate, β / RTT_min = 4 / 10 ms: one ACK per the segments the cell's UDP
#: ceiling carries in RTT_min / β = 2.5 ms (ceilings from docs/wlan.md's formula: 29.93 /
#: 256.3 / 618.5 Mbit/s -> 6 / 55 / 133 segments of 1448 bytes, rounded down), and the
#: delayed-ACK timer at RTT_min / β too (ns-3's DelAckTimeout, tcplab's `ack_delay`), so
#: that an ACK leaves at most 2.5 ms after the first segment it covers, as a periodic TACK
#: does. With the default 200 ms timer a count above the initial window of 10 segments
#: waits 200 ms for every ACK of the start-up: ns-3's TCP BBR carried 0.5 Mbit/s on
#: 802.11n with DelAckCount 55.
TACK_PHYS = {"802.11g": ("g", 29.93e6), "802.11n": ("n", 256.3e6),
             "802.11ac": ("ac", 618.5e6)}
TACK_RTT_MIN_S, TACK_BETA = 0.010, 4
TACK_QUEUE_PKTS = 1000
SATURATING_QUEUE_PKTS = 5000
THIN_ACK_DELAY = "2.5ms"
#: Offered UDP load in the TACK cells: above each ceiling (examples/tack_wlan_efficiency.py).
TACK_UDP_RATE = {"802.11g": "100Mbps", "802.11n": "500Mbps", "802.11ac": "1Gbps"}
#: The paper's gains of TCP-TACK over TCP BBR (Figure 1), in %.
PAPER_GAIN = {"802.11g": 26.3, "802.11n": 28.1, "802.11ac": 27.7}


def thin_ack_every(standard: str) -> int:
    """Segments of 1448 bytes the cell's UDP ceiling carries in RTT_min / β."""
    ceiling = TACK_PHYS[standard][1]
    return int(ceiling * TACK_RTT_MIN_S / TACK_BETA / (TCP_FLOW["mss"] * 8))


PROGRAM_NAME = "tcplab_wifi_side_by_side"
PROGRAM = r"""// Generated by tcplab's scripts/ns3_wifi_side_by_side.py; not part of ns-3.
// Overwritten on every run of that script.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <cstdio>

using namespace ns3;

// Corrupts a received MPDU with probability `Rate` if its MAC payload holds at least
// `MinBytes` (data frames; not ACKs or Block ACKs).
class DataMpduErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("DataMpduErrorModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DataMpduErrorModel>();
        return tid;
    }

    DataMpduErrorModel()
        : m_rv(CreateObject<UniformRandomVariable>())
    {
    }

    double m_rate{0};
    uint32_t m_minBytes{28};
    Ptr<UniformRandomVariable> m_rv;
    uint64_t m_checked{0};
    uint64_t m_corrupted{0};

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (p->GetSize() < m_minBytes)
        {
            return false;
        }
        m_checked++;
        bool bad = m_rv->GetValue() < m_rate;
        m_corrupted += bad;
        return bad;
    }

    void DoReset() override
    {
    }
};

static uint64_t g_psdus = 0;
static uint64_t g_mpdus = 0;
static uint64_t g_queueDrops = 0;
static uint64_t g_expired = 0;
static uint64_t g_recoveries = 0;
static uint64_t g_losses = 0;

static void
QueueDrop(Ptr<const WifiMpdu>)
{
    g_queueDrops++;
}

// The traffic control layer drops what arrives while the device's queue is stopped
// (its WifiMacQueue full) when no queue disc sits above the device.
static void
TcDrop(Ptr<const Packet>)
{
    g_queueDrops++;
}

static void
Expired(Ptr<const WifiMpdu>)
{
    g_expired++;
}

static void
CongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_recoveries += now == TcpSocketState::CA_RECOVERY;
    g_losses += now == TcpSocketState::CA_LOSS;
}

// The (first) station's data PPDUs: its channel accesses carrying TCP ACKs.
static uint64_t g_staPsdus = 0;
static uint64_t g_staMpdus = 0;

// Counts a transmitter's data PSDUs and their MPDUs into *psduCount and *mpduCount.
static void
PsduTx(uint64_t* psduCount, uint64_t* mpduCount, WifiConstPsduMap psdus, WifiTxVector, double)
{
    for (auto& [id, psdu] : psdus)
    {
        if (psdu->GetNMpdus() > 0 && psdu->GetHeader(0).IsData())
        {
            ++*psduCount;
            *mpduCount += psdu->GetNMpdus();
        }
    }
}

int
main(int argc, char* argv[])
{
    uint32_t stations = 1;
    std::string traffic = "udp";
    std::string standard = "802.11ac";
    std::string mode = "VhtMcs9";
    uint32_t width = 80;
    uint32_t streams = 2;
    bool sgi = true;
    uint32_t ampdu = 65535;
    double per = 0.0;
    double duration = 3.0;
    std::string udpRate = "1Gbps";
    uint32_t udpSize = 1472;
    std::string wireRate = "10Gbps";
    std::string wireDelay = "5ms";
    uint32_t queue = 0;
    double start = 1.0;

    CommandLine cmd;
    cmd.AddValue("stations", "stations in the cell", stations);
    cmd.AddValue("traffic", "udp or tcp", traffic);
    cmd.AddValue("standard", "802.11n or 802.11ac", standard);
    cmd.AddValue("mode", "data mode of ConstantRateWifiManager", mode);
    cmd.AddValue("width", "channel width MHz", width);
    cmd.AddValue("streams", "spatial streams", streams);
    cmd.AddValue("sgi", "400 ns guard interval", sgi);
    cmd.AddValue("ampdu", "BE_MaxAmpduSize (0: no aggregation)", ampdu);
    cmd.AddValue("per", "data MPDU error rate", per);
    cmd.AddValue("duration", "measured seconds", duration);
    cmd.AddValue("udpRate", "offered UDP rate per flow", udpRate);
    cmd.AddValue("udpSize", "UDP payload bytes", udpSize);
    cmd.AddValue("wireRate", "server-AP rate", wireRate);
    cmd.AddValue("wireDelay", "server-AP delay", wireDelay);
    cmd.AddValue("queue", "WifiMacQueue MaxSize in packets (0: ns-3's default)", queue);
    cmd.Parse(argc, argv);
    if (queue > 0)
    {
        Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                           QueueSizeValue(QueueSize(std::to_string(queue) + "p")));
    }

    NodeContainer server;
    server.Create(1);
    NodeContainer ap;
    ap.Create(1);
    NodeContainer sta;
    sta.Create(stations);

    WifiHelper wifi;
    bool erp = standard == "802.11g";
    wifi.SetStandard(erp                     ? WIFI_STANDARD_80211g
                     : standard == "802.11n" ? WIFI_STANDARD_80211n
                                             : WIFI_STANDARD_80211ac);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(mode),
                                 "ControlMode",
                                 StringValue(mode));
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("ChannelSettings",
            StringValue("{0, " + std::to_string(width) +
                        (erp ? ", BAND_2_4GHZ, 0}" : ", BAND_5GHZ, 0}")));
    phy.Set("Antennas", UintegerValue(streams));
    phy.Set("MaxSupportedTxSpatialStreams", UintegerValue(streams));
    phy.Set("MaxSupportedRxSpatialStreams", UintegerValue(streams));

    WifiMacHelper mac;
    Ssid ssid("tcplab");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize",
                UintegerValue(ampdu));
    NetDeviceContainer staDev = wifi.Install(phy, mac, sta);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize",
                UintegerValue(ampdu));
    NetDeviceContainer apDev = wifi.Install(phy, mac, ap);
    if (!erp)
    {
        Config::Set("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/HtConfiguration/"
                    "ShortGuardIntervalSupported",
                    BooleanValue(sgi));
    }

    std::vector<Ptr<DataMpduErrorModel>> ems;
    NetDeviceContainer all(apDev, staDev);
    for (uint32_t i = 0; i < all.GetN(); i++)
    {
        auto em = CreateObject<DataMpduErrorModel>();
        em->m_rate = per;
        em->m_rv->SetStream(1000 + i);
        DynamicCast<WifiNetDevice>(all.Get(i))->GetPhy()->SetPostReceptionErrorModel(em);
        ems.push_back(em);
    }

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < stations; i++)
    {
        double a = 2 * M_PI * i / stations;
        pos->Add(Vector(std::cos(a), std::sin(a), 0));
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(ap);
    mobility.Install(sta);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(wireRate));
    p2p.SetChannelAttribute("Delay", StringValue(wireDelay));
    NetDeviceContainer wire = p2p.Install(server.Get(0), ap.Get(0));

    InternetStackHelper stack;
    stack.Install(server);
    stack.Install(ap);
    stack.Install(sta);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.0.0", "255.255.255.0");
    Ipv4InterfaceContainer wireIf = addr.Assign(wire);
    addr.SetBase("10.2.0.0", "255.255.255.0");
    Ipv4InterfaceContainer apIf = addr.Assign(apDev);
    Ipv4InterfaceContainer staIf = addr.Assign(staDev);
    // Drop tail at the device on both sides: no FqCoDel above the Wi-Fi device.
    TrafficControlHelper tch;
    tch.Uninstall(apDev);
    tch.Uninstall(staDev);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    ApplicationContainer sinks;
    ApplicationContainer sources;
    uint16_t port = 9000;
    if (traffic == "udp")
    {
        for (uint32_t i = 0; i < stations; i++)
        {
            // One station: the AP sends to it; more: each station sends to the AP.
            bool down = stations == 1;
            Ptr<Node> from = down ? ap.Get(0) : sta.Get(i);
            Ptr<Node> to = down ? sta.Get(i) : ap.Get(0);
            Ipv4Address dst = down ? staIf.GetAddress(i) : apIf.GetAddress(0);
            PacketSinkHelper sink("ns3::UdpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), port + i));
            sinks.Add(sink.Install(to));
            OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(dst, port + i));
            onoff.SetConstantRate(DataRate(udpRate), udpSize);
            sources.Add(onoff.Install(from));
        }
    }
    else
    {
        for (uint32_t i = 0; i < stations; i++)
        {
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), port + i));
            sinks.Add(sink.Install(sta.Get(i)));
            BulkSendHelper bulk("ns3::TcpSocketFactory",
                                InetSocketAddress(staIf.GetAddress(i), port + i));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            sources.Add(bulk.Install(server.Get(0)));
        }
    }
    sinks.Start(Seconds(0.5));
    sources.Start(Seconds(start));
    sources.Stop(Seconds(start + duration));
    Simulator::Schedule(Seconds(start), [&] {
        Config::ConnectWithoutContext(
            traffic == "udp" && stations > 1
                ? "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin"
                : "/NodeList/1/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
            MakeBoundCallback(&PsduTx, &g_psdus, &g_mpdus));
        Config::ConnectWithoutContext(
            "/NodeList/2/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
            MakeBoundCallback(&PsduTx, &g_staPsdus, &g_staMpdus));
    });
    for (uint32_t i = 0; i < all.GetN(); i++)
    {
        // 802.11g runs ns-3's non-QoS DCF (one Txop), n/ac EDCA best effort.
        auto mac = DynamicCast<WifiNetDevice>(all.Get(i))->GetMac();
        Ptr<Txop> txop = mac->GetQosSupported() ? Ptr<Txop>(mac->GetQosTxop(AC_BE))
                                                : mac->GetTxop();
        auto q = txop->GetWifiMacQueue();
        q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&QueueDrop));
        q->TraceConnectWithoutContext("Expired", MakeCallback(&Expired));
    }
    for (uint32_t i = 0; i < NodeList::GetNNodes(); i++)
    {
        auto tc = NodeList::GetNode(i)->GetObject<TrafficControlLayer>();
        if (!tc || !tc->TraceConnectWithoutContext("TcDrop", MakeCallback(&TcDrop)))
        {
            std::printf("warning: no TrafficControlLayer TcDrop trace on node %u\n", i);
        }
    }
    if (traffic != "udp")
    {
        Simulator::Schedule(Seconds(start + 0.001), [] {
            Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/"
                                          "CongState",
                                          MakeCallback(&CongState));
        });
    }
    // Goodput over each tenth of the run, to see where two runs part.
    std::vector<uint64_t> series;
    for (int k = 1; k <= 10; k++)
    {
        Simulator::Schedule(Seconds(start + duration * k / 10), [&] {
            uint64_t b = 0;
            for (uint32_t i = 0; i < sinks.GetN(); i++)
            {
                b += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
            }
            series.push_back(b);
        });
    }
    Simulator::Stop(Seconds(start + duration + 1e-6));
    Simulator::Run();

    uint64_t bytes = 0;
    for (uint32_t i = 0; i < sinks.GetN(); i++)
    {
        bytes += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
    }
    uint64_t checked = 0;
    uint64_t corrupted = 0;
    for (auto& em : ems)
    {
        checked += em->m_checked;
        corrupted += em->m_corrupted;
    }
    std::printf("bytes %llu goodput_bps %.1f psdus %llu mpdus %llu ampdu_mean %.3f "
                "per_checked %llu per_corrupted %llu\n",
                (unsigned long long)bytes,
                bytes * 8.0 / duration,
                (unsigned long long)g_psdus,
                (unsigned long long)g_mpdus,
                g_psdus ? double(g_mpdus) / g_psdus : 0.0,
                (unsigned long long)checked,
                (unsigned long long)corrupted);
    std::printf("sta_psdus %llu sta_mpdus %llu\n",
                (unsigned long long)g_staPsdus,
                (unsigned long long)g_staMpdus);
    std::printf("queue_drops %llu expired %llu recoveries %llu rtos %llu\nseries_bytes",
                (unsigned long long)g_queueDrops,
                (unsigned long long)g_expired,
                (unsigned long long)g_recoveries,
                (unsigned long long)g_losses);
    for (auto b : series)
    {
        std::printf(" %llu", (unsigned long long)b);
    }
    std::printf("\n");
    Simulator::Destroy();
    return 0;
}
"""

MODULES = ["wifi", "mobility", "propagation", "spectrum", "antenna", "energy", "applications",
           "internet", "point-to-point", "traffic-control", "network", "bridge", "stats",
           "core"]


def build(prefix: Path, out: Path) -> Path:
    """Compiles PROGRAM against the installed ns-3 under `prefix` into `out` (only when the
    program changed); returns the binary."""
    return compile_against(prefix, out, PROGRAM_NAME, PROGRAM, MODULES,
                           "ns3_wifi_side_by_side")


def cells() -> list[dict]:
    out = []
    for n in (1, 8):
        for traffic in ("udp", "cubic", "bbr"):
            for ampdu in (True, False):
                for per in (0, 10):
                    out.append({"name": f"{n}sta-{traffic}-ampdu{'on' if ampdu else 'off'}"
                                        f"-per{per}",
                                "stations": n, "traffic": traffic, "ampdu": ampdu,
                                "per": per})
    return out


def tack_cells() -> list[dict]:
    """`--tack`'s cells: per PHY, UDP, TCP BBR with L = 2 and with L thinned."""
    out = []
    for std, (short, _) in TACK_PHYS.items():
        base = {"stations": 1, "ampdu": True, "per": 0, "standard": std}
        out.append({**base, "name": f"tack-{short}-udp", "traffic": "udp",
                    "udp_rate": TACK_UDP_RATE[std]})
        thin = {"ack_delay": THIN_ACK_DELAY}
        for every in (2, thin_ack_every(std)):
            out.append({**base, "name": f"tack-{short}-bbr-L{every}", "traffic": "bbr",
                        "ack_every": every, **(thin if every > 2 else {})})
        # A TCP that never leaves the channel idle: Cubic whose 4 MiB window (2,900
        # segments) sits in a 5000-packet AP queue, so goodput is what the cell's airtime
        # gives a TCP flow and its ACKs, whatever the sender's controller does with them.
        for every in (2, thin_ack_every(std)):
            out.append({**base, "name": f"tack-{short}-cubic-L{every}", "traffic": "cubic",
                        "ack_every": every, "queue": SATURATING_QUEUE_PKTS,
                        **(thin if every > 2 else {})})
    return out


def tcplab_scenario(cell: dict, standard: str, duration: float, overrides: dict,
                    preset_ampdu: bool = False, own_queue: bool = False,
                    queue: int = NS3_QUEUE_PKTS,
                    cc_params: dict | None = None) -> tcplab.Scenario:
    n = cell["stations"]
    stas = [f"sta{i + 1}" for i in range(n)]
    standard = cell.get("standard", standard)
    wlan = {"standard": standard, "ap": "ap", "stations": stas}
    if not cell["ampdu"]:
        wlan["ampdu"] = False
    elif not preset_ampdu and standard != "802.11g":
        wlan.update(NS3_AMPDU)
    if not own_queue:
        wlan.update({"queue": f"{queue}pkt", "node_queue": f"{queue}pkt", "schedule": "fcfs"})
    if cell["per"]:
        wlan["per"] = f"{cell['per']}%"
    wlan.update(overrides)
    nodes = [{"name": "ap"}] + [{"name": s} for s in stas]
    sc = {"name": cell["name"], "duration": f"{duration:g}s", "sample": "off",
          "node": nodes, "wlan": [wlan]}
    if cell["traffic"] == "udp":
        pairs = [("ap", stas[0])] if n == 1 else [(s, "ap") for s in stas]
        rate = cell.get("udp_rate", UDP_RATE[n])
        sc["flow"] = [{"transport": "datagram", "from": a, "to": b, "rate": rate,
                       "packet_size": UDP_SIZE, "bytes": "unlimited"} for a, b in pairs]
    else:
        sc["node"] = [{"name": "server"}, *nodes]
        sc["link"] = [{"between": ["server", "ap"], **WIRE}]
        sc["flow"] = [{"transport": "tcp", "stack": "ns3", **TCP_FLOW, "cc": cell["traffic"],
                       "from": "server", "to": s, "bytes": "unlimited"} for s in stas]
        for key in ("ack_every", "ack_delay"):
            if key in cell:
                for f in sc["flow"]:
                    f[key] = cell[key]
        if cc_params:
            for f in sc["flow"]:
                f["cc_params"] = dict(cc_params)
    if "standard" in cell:
        sc["sample"] = f"{duration / 10:g}s"
    return tcplab.Scenario(sc, source=f"ns3_wifi_side_by_side {cell['name']}")


def study_scenario(cell: dict, duration: float) -> tcplab.Scenario:
    """The TACK study's own TCP BBR (its flow keys, default stack, its queues) in the
    cell's PHY with the cell's ACK count: what `tcplab reproduce tack` runs."""
    from tcplab.reproduce.tack import TRANSPORTS, wlan

    flow = dict(TRANSPORTS["TCP BBR (L=2)"])
    if cell["traffic"] == "udp":
        flow = {"transport": "datagram", "rate": cell["udp_rate"]}
    elif cell["traffic"] == "tack":
        flow = dict(TRANSPORTS["TCP-TACK"])
    else:
        flow.update({k: cell[k] for k in ("ack_every", "ack_delay") if k in cell})
    return wlan(cell["standard"], TACK_RTT_MIN_S * 1e3, flow, duration,
                f"study-{cell['name']}", sample=f"{duration / 10:g}s")


def senders(cell: dict) -> list[str]:
    """The nodes whose data PPDUs the mean A-MPDU size counts."""
    if cell["traffic"] == "udp" and cell["stations"] > 1:
        return [f"sta{i + 1}" for i in range(cell["stations"])]
    return ["ap"]


def run_tcplab(cell: dict, sc: tcplab.Scenario, seed: int, duration: float) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    res = tcplab.simulate(sc, seed=seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    goodput = float(res.flows["bytes_delivered"].sum()) * 8 / duration
    links = res.links
    rows = links[links["direction"].isin(senders(cell))]
    ok = rows["tx_attempts"] - rows["collisions"]
    frames = float((rows["ampdu_mean"].fillna(0) * ok).sum())
    ampdu = frames / float(ok.sum()) if float(ok.sum()) > 0 else float("nan")
    out = {"goodput": goodput, "ampdu": ampdu, "wall": wall, "cpu": cpu}
    if "standard" in cell:
        out.update(second_half(res, duration))
        wl = links[links["link"] == "wlan"].set_index("direction")
        sta = [d for d in wl.index if d.startswith("sta")][0]
        out["sta_access_hz"] = float(wl.loc[sta, "tx_attempts"]) / duration
        out["sta_mpdus_per_access"] = float(wl.loc[sta, "ampdu_mean"] or 1)
    return out


def second_half(res, duration: float) -> dict:
    """Goodput over the second half of the run, from the `delivered` series (one flow)."""
    s = res.series("delivered")
    d = s.drop_duplicates("t_s").set_index("t_s")["delivered"]
    half = d.index[d.index >= duration / 2 - 1e-9][0]
    return {"late": float(d.iloc[-1] - d[half]) * 8 / float(d.index[-1] - half)}


def run_study(cell: dict, seed: int, duration: float) -> dict:
    """The study's own flow in the cell (`study_scenario`): second-half goodput."""
    res = tcplab.simulate(study_scenario(cell, duration), seed=seed)
    return second_half(res, duration)


def ns3_args(cell: dict, standard: str, duration: float, extra: list[str],
             queue: int = NS3_QUEUE_PKTS, bar: bool = False) -> list[str]:
    standard = cell.get("standard", standard)
    phy = PHY[standard]
    args = [] if bar else list(NS3_FIXED)
    args += [f"--stations={cell['stations']}", f"--standard={standard}",
            f"--mode={phy['mode']}", f"--width={phy['width']}", f"--streams={phy['streams']}",
            "--sgi=1", f"--ampdu={65535 if cell['ampdu'] else 0}",
            f"--per={cell['per'] / 100}", f"--duration={duration:g}",
            f"--wireRate={WIRE['rate']}", f"--wireDelay={WIRE['delay']}"]
    if cell["traffic"] == "udp":
        rate = cell.get("udp_rate", UDP_RATE[cell["stations"]])
        args += ["--traffic=udp", f"--udpRate={rate}", f"--udpSize={UDP_SIZE}"]
    else:
        keys = {**PROFILE, **TCP_FLOW, "cc": cell["traffic"]}
        keys.update({k: cell[k] for k in ("ack_every", "ack_delay") if k in cell})
        args += ["--traffic=tcp"]
        args += [f"--{NS3_ATTR[k]}={ns3_value(k, v)}" for k, v in keys.items()
                 if k in NS3_ATTR]
        if "standard" in cell:
            # `--tack`: whole segments from the application, as tcplab's (a window that
            # reaches the send buffer otherwise gets BulkSendApplication's 512-byte writes
            # sent as they come; docs/validation.md).
            args += ["--ns3::BulkSendApplication::SendSize=1448"]
    if queue != NS3_QUEUE_PKTS:
        # tcplab's queues have no packet lifetime: ns-3's 500 ms (MaxDelay) would drop
        # from a longer queue at the slower rates.
        args += [f"--ns3::WifiMacQueue::MaxSize={queue}p", "--ns3::WifiMacQueue::MaxDelay=100s"]
    return args + extra


def children_cpu() -> float:
    """User + system seconds of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_ns3(binary: Path, cell: dict, args: list[str], seed: int, reuse: bool) -> dict:
    """Runs the ns-3 program; its output and wall time are kept beside the binary, keyed
    by the arguments, so that `reuse` can print an earlier run's numbers again."""
    argv = [*args, "--RngSeed=1", f"--RngRun={seed}"]
    key = hashlib.sha1(" ".join([PROGRAM, *argv]).encode()).hexdigest()[:16]
    kept = binary.parent / "runs" / f"{cell['name']}-{key}.txt"
    if reuse and kept.exists():
        times, stdout = kept.read_text().split("\n", 1)
        wall, cpu = (float(x) for x in (times.split() + ["nan"])[:2])
    else:
        t0, c0 = time.perf_counter(), children_cpu()
        r = subprocess.run([str(binary), *argv], capture_output=True, text=True)
        wall, cpu = time.perf_counter() - t0, children_cpu() - c0
        if r.returncode != 0:
            raise RuntimeError(f"{cell['name']}: ns-3 failed: {r.stderr[-2000:]}")
        stdout = r.stdout
        kept.parent.mkdir(exist_ok=True)
        kept.write_text(f"{wall} {cpu}\n{stdout}")
    m = re.search(r"goodput_bps (\S+) psdus (\d+) mpdus (\d+) ampdu_mean (\S+)", stdout)
    if not m:
        raise RuntimeError(f"{cell['name']}: no result in ns-3's output: {stdout[-500:]}")
    out = {"goodput": float(m.group(1)), "ampdu": float(m.group(4)), "wall": wall, "cpu": cpu,
           "detail": " ".join(stdout.split())}
    series = [int(x) for x in stdout.split("series_bytes", 1)[1].split()]
    duration = float(re.search(r"--duration=(\S+)", " ".join(args)).group(1))
    # Goodput over the second half: from the 5th tenth of the run to its end.
    out["late"] = (series[9] - series[4]) * 8 / (duration / 2)
    sta = re.search(r"sta_psdus (\d+) sta_mpdus (\d+)", stdout)
    if sta:
        out["sta_access_hz"] = int(sta.group(1)) / duration
        out["sta_mpdus_per_access"] = int(sta.group(2)) / max(int(sta.group(1)), 1)
    return out




#: 802.11g by hand (IEEE 802.11-2020 clause 18, ERP-OFDM, with the OFDM timing of Table
#: 17-21 and the short slot of an ERP-only BSS): slot 9 µs, SIFS 10 µs, DIFS = SIFS + 2
#: slots, aCWmin 15; a PPDU is 20 µs of preamble and SIGNAL, 4 µs symbols of N_DBPS data
#: bits holding 16 SERVICE + 8·PSDU + 6 tail bits, and a 6 µs signal extension; N_DBPS 216
#: at 54 Mbit/s (data), 96 at 24 Mbit/s (the ACK's rate). MPDU = IP packet + 36 bytes (MAC
#: header 24, LLC/SNAP 8, FCS 4); ACK frame 14 bytes. A TCP ACK is 52 bytes of IP (20 IP +
#: 20 TCP + 12 of timestamp option), a data segment 1500 (1448 of payload), UDP 1472 of
#: payload in 1500.
G_SLOT, G_SIFS, G_CWMIN = 9.0, 10.0, 15


def g_ppdu_us(psdu_bytes: int, ndbps: int) -> float:
    return 20 + 4 * -(-(16 + 8 * psdu_bytes + 6) // ndbps) + 6


def g_access_us(ip_bytes: int, backoff: bool = True) -> float:
    """One channel access: DIFS, the mean backoff (if `backoff`), the data PPDU, SIFS and
    the ACK (Bianchi's T with n = 1; docs/wlan.md)."""
    return (G_SIFS + 2 * G_SLOT + backoff * G_CWMIN / 2 * G_SLOT
            + g_ppdu_us(ip_bytes + 36, 216) + G_SIFS + g_ppdu_us(14, 96))


def g_by_hand(every: int, ack_backoff: bool = True) -> tuple[float, float]:
    """(UDP ceiling, TCP goodput with one TCP ACK per `every` data frames) in bit/s on
    802.11g, without collisions. With `ack_backoff` each access is taken alone, the TCP
    ACK's with a whole mean backoff of its own (the most the ACKs can cost); without, the
    station's backoff is counted down entirely while the access point's runs, so its ACK
    costs only DIFS, its PPDU, SIFS and the ACK frame (the least). Two contenders' counters
    run together (post-backoff), so a cell lies between the two, less its collisions."""
    udp = 1472 * 8 / g_access_us(1500) * 1e6
    ack = g_access_us(52, ack_backoff)
    tcp = every * 1448 * 8 / (every * g_access_us(1500) + ack) * 1e6
    return udp, tcp


def mean_of(runs: list[dict]) -> dict:
    """The mean of each number the runs share."""
    keys = [k for k in runs[0] if all(isinstance(r.get(k), float | int) for r in runs)]
    return {k: sum(r[k] for r in runs) / len(runs) for k in keys}


def tack_table(rows: list, duration: float) -> None:
    """`--tack`'s summary per PHY (second half of each run, mean over the seeds): TCP BBR's
    share of the UDP ceiling and the gain from thinning its ACKs, in ns-3, in tcplab with
    the same TCP (`stack = "ns3"`) and with the study's own TCP, beside TCP-TACK's gain in
    tcplab."""
    groups: dict = {}
    for c, ours, theirs in rows:
        groups.setdefault(c["name"], []).append((c, ours, theirs))
    by = {}
    for name, g in groups.items():
        ok = all(o and t for _, o, t in g)
        by[name] = (g[0][0], ok and mean_of([o for _, o, _ in g]),
                    ok and mean_of([t for _, _, t in g]))
    seeds = sorted({c["seed"] for c, _, _ in rows})

    def study(cell: dict) -> float:
        return statistics.mean(run_study(cell, s, duration)["late"] for s in seeds)

    print(f"\nSecond half of each {duration:g} s run, mean of seeds {seeds}, Mbit/s; "
          "station accesses per second (MPDUs per access) for TCP BBR L = 2; gain of "
          "thinned ACKs = L = thinned over L = 2; tcplab ns3 = `stack = \"ns3\"` as ns-3, "
          "study = the TACK study's TCP BBR and TCP-TACK.\n")
    print("| PHY | UDP ns-3 / tcplab | TCP BBR L=2 ns-3 / tcplab ns3 / study | TCP/UDP ns-3 / "
          "tcplab ns3 / study | station accesses/s ns-3 / tcplab | L thinned | TCP BBR "
          "thinned ns-3 / tcplab ns3 / study | gain of thinned ACKs ns-3 / tcplab ns3 / study"
          " | TCP-TACK study (gain) | paper gain |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for std, (short, _) in TACK_PHYS.items():
        thin = thin_ack_every(std)
        names = [f"tack-{short}-udp", f"tack-{short}-bbr-L2", f"tack-{short}-bbr-L{thin}"]
        if not all(n in by and by[n][1] and by[n][2] for n in names):
            continue
        (uc, u, un), (tc, t, tn), (hc, h, hn) = (by[n] for n in names)
        t_study, h_study = study(tc), study(hc)
        k_study, u_study = study({**tc, "traffic": "tack"}), study(uc)

        def mb(x):
            return f"{x / 1e6:.1f}"

        def gain(a, b):
            return f"{100 * (a / b - 1):+.1f} %"

        if std == "802.11g":
            for alone in (True, False):
                udp, tcp2 = g_by_hand(2, alone)
                _, tcpn = g_by_hand(thin, alone)
                how = "each access alone" if alone else "the ACK's backoff hidden"
                print(f"| 802.11g by hand ({how}) | {mb(udp)} | {mb(tcp2)} | "
                      f"{tcp2 / udp:.2f} | | {thin} | {mb(tcpn)} | {gain(tcpn, tcp2)} | | |")
        print(f"| {std} | {mb(un['late'])} / {mb(u['late'])} | {mb(tn['late'])} / "
              f"{mb(t['late'])} / {mb(t_study)} | {tn['late'] / un['late']:.2f} / "
              f"{t['late'] / u['late']:.2f} / {t_study / u_study:.2f} | "
              f"{tn.get('sta_access_hz', 0):.0f} ({tn.get('sta_mpdus_per_access', 0):.1f}) / "
              f"{t['sta_access_hz']:.0f} ({t['sta_mpdus_per_access']:.1f}) | {thin} | "
              f"{mb(hn['late'])} / {mb(h['late'])} / {mb(h_study)} | "
              f"{gain(hn['late'], tn['late'])} / {gain(h['late'], t['late'])} / "
              f"{gain(h_study, t_study)} | {mb(k_study)} ({gain(k_study, t_study)}) | "
              f"+{PAPER_GAIN[std]:.1f} % |", flush=True)
    print("\nTCP BBR with thinned ACKs, second half of each seed's run (ns-3 / tcplab ns3), "
          "Mbit/s:")
    for std, (short, _) in TACK_PHYS.items():
        runs = groups.get(f"tack-{short}-bbr-L{thin_ack_every(std)}", [])
        if runs and all(o and t for _, o, t in runs):
            print(f"- {std}: " + ", ".join(f"seed {c['seed']} {t['late'] / 1e6:.1f} / "
                                           f"{o['late'] / 1e6:.1f}" for c, o, t in runs))
    print("\nTCP Cubic keeping the channel busy (4 MiB window in a 5000-packet AP queue): "
          "what the airtime alone gives, Mbit/s, second half.\n")
    print("| PHY | TCP Cubic L=2 ns-3 / tcplab | TCP/UDP ns-3 / tcplab | station accesses/s "
          "ns-3 / tcplab | L thinned | TCP Cubic thinned ns-3 / tcplab | TCP/UDP ns-3 / "
          "tcplab | gain of thinned ACKs ns-3 / tcplab |")
    print("|---|---|---|---|---|---|---|---|")
    for std, (short, _) in TACK_PHYS.items():
        thin = thin_ack_every(std)
        names = [f"tack-{short}-udp", f"tack-{short}-cubic-L2", f"tack-{short}-cubic-L{thin}"]
        if not all(n in by and by[n][1] and by[n][2] for n in names):
            continue
        (_, u, un), (_, t, tn), (_, h, hn) = (by[n] for n in names)
        print(f"| {std} | {tn['late'] / 1e6:.1f} / {t['late'] / 1e6:.1f} | "
              f"{tn['late'] / un['late']:.2f} / {t['late'] / u['late']:.2f} | "
              f"{tn.get('sta_access_hz', 0):.0f} / {t['sta_access_hz']:.0f} | {thin} | "
              f"{hn['late'] / 1e6:.1f} / {h['late'] / 1e6:.1f} | "
              f"{hn['late'] / un['late']:.2f} / {h['late'] / u['late']:.2f} | "
              f"{100 * (hn['late'] / tn['late'] - 1):+.1f} % / "
              f"{100 * (h['late'] / t['late'] - 1):+.1f} % |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns3-prefix", default=os.environ.get("NS3_PREFIX", DEFAULT_PREFIX))
    ap.add_argument("--build", default="/tmp/tcplab_ns3_wifi")
    ap.add_argument("--cells", default="*", help="comma-separated shell patterns")
    ap.add_argument("--duration", type=float, default=3.0, help="simulated seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=1,
                    help="with --tack: seeds --seed .. --seed + N - 1, means in the summary")
    ap.add_argument("--standard", default="802.11ac", choices=sorted(PHY))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--ns3-arg", action="append", default=[], metavar="ARG")
    ap.add_argument("--cc-param", action="append", default=[], metavar="KEY=VALUE",
                    help="a key of tcplab's TCP flows' cc_params")
    ap.add_argument("--preset-ampdu", action="store_true",
                    help="tcplab keeps its preset's A-MPDU limits instead of ns-3's")
    ap.add_argument("--queue", type=int, default=NS3_QUEUE_PKTS,
                    help="packets each node's transmit queue holds, on both sides (default "
                    "ns-3's 500)")
    ap.add_argument("--ns3-bar", action="store_true",
                    help="ns-3 keeps its explicit BlockAckReq after a missed Block ACK")
    ap.add_argument("--own-queue", action="store_true",
                    help="tcplab keeps its preset's queues (and round robin) instead of ns-3's")
    ap.add_argument("--no-ns3", action="store_true", help="run tcplab's side only")
    ap.add_argument("--ns3-only", action="store_true", help="run ns-3's side only")
    ap.add_argument("--reuse", action="store_true",
                    help="take ns-3's numbers (and wall time) from an earlier run with the "
                    "same program and arguments, kept in the build directory")
    ap.add_argument("--tack", action="store_true",
                    help="the TACK study's cells on 802.11g/n/ac (TACK_PHYS) with a 1000-packet "
                    "queue, then a table of TCP/UDP and the gain from thinned ACKs")
    ap.add_argument("--csv", help="also write every cell's numbers here")
    ap.add_argument("--detail", action="store_true",
                    help="after the table, ns-3's counters per cell (MAC queue drops, TCP "
                    "recoveries and RTOs, goodput over each tenth of the run)")
    a = ap.parse_args()

    def key_values(option: str, pairs: list[str]) -> dict:
        out = {}
        for kv in pairs:
            k, sep, v = kv.partition("=")
            if not sep:
                raise SystemExit(f"ns3_wifi_side_by_side: {option} {kv!r}: expected KEY=VALUE")
            out[k] = parse_value(v)
        return out

    overrides = key_values("--set", a.set)
    cc_params = key_values("--cc-param", a.cc_param)
    pats = a.cells.split(",")
    if a.tack and a.queue == NS3_QUEUE_PKTS:
        a.queue = TACK_QUEUE_PKTS
    every = tack_cells() if a.tack else cells()
    grid = [c for c in every if any(fnmatch.fnmatch(c["name"], p) for p in pats)]
    if not grid:
        raise SystemExit(f"ns3_wifi_side_by_side: no cell matches {a.cells!r}")
    binary = None if a.no_ns3 else build(Path(a.ns3_prefix), Path(a.build))
    here = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short",
                           "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"ns-3 {a.ns3_prefix}; tcplab {here}; {a.standard}, {a.duration:g} s, seed {a.seed}; "
          f"load {' '.join(open('/proc/loadavg').read().split()[:3])}, nproc {os.cpu_count()}")
    if a.preset_ampdu:
        print("tcplab: the preset's A-MPDU limits")
    if a.own_queue:
        print("tcplab: the preset's queues")
    if a.ns3_bar:
        print("ns-3: an explicit BlockAckReq after a missed Block ACK")
    if a.queue != NS3_QUEUE_PKTS:
        print(f"queues: {a.queue} packets a node on both sides"
              + (f" ({SATURATING_QUEUE_PKTS} in the Cubic cells)" if a.tack else ""))
    if overrides or a.ns3_arg or cc_params:
        print(f"tcplab --set {overrides} cc_params {cc_params}; ns-3 args {a.ns3_arg}")
    print("\n| cell | goodput ns-3 | tcplab | ratio | A-MPDU ns-3 | tcplab | ratio "
          "| within 15 % | wall ns-3 s | tcplab s | speed-up | CPU ns-3 s | tcplab s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    seeds = range(a.seed, a.seed + a.seeds) if a.tack else [a.seed]
    runs = [{**c, "seed": s} if a.tack else c for s in seeds for c in grid]
    for cell in runs:
        seed = cell.get("seed", a.seed)
        label = cell["name"] + (f" (seed {seed})" if a.seeds > 1 and a.tack else "")
        theirs = None
        if binary is not None:
            theirs = run_ns3(binary, cell,
                             ns3_args(cell, a.standard, a.duration, a.ns3_arg,
                                      cell.get("queue", a.queue), a.ns3_bar),
                             seed, a.reuse)
        if a.ns3_only:
            rows.append((cell, None, theirs))
            print(f"| {label} | {theirs['goodput'] / 1e6:.1f} | | | "
                  f"{theirs['ampdu']:.1f} | | | | {theirs['wall']:.1f} | | |", flush=True)
            continue
        sc = tcplab_scenario(cell, a.standard, a.duration, overrides, a.preset_ampdu,
                             a.own_queue, cell.get("queue", a.queue), cc_params)
        ours = run_tcplab(cell, sc, seed, a.duration)
        rows.append((cell, ours, theirs))
        if theirs is None:
            print(f"| {label} | | {ours['goodput'] / 1e6:.1f} | | | "
                  f"{ours['ampdu']:.1f} | | | | {ours['wall']:.3f} | |", flush=True)
            continue
        g = ours["goodput"] / theirs["goodput"]
        aggregating = cell["ampdu"] and cell.get("standard") != "802.11g"
        m = ours["ampdu"] / theirs["ampdu"] if aggregating else float("nan")
        ok = abs(g - 1) <= 0.15 and (not aggregating or abs(m - 1) <= 0.15)
        # Runs kept from before the script measured CPU time have none.
        cpu_ns3 = "" if theirs["cpu"] != theirs["cpu"] else f"{theirs['cpu']:.2f}"
        print(f"| {label} | {theirs['goodput'] / 1e6:.1f} | {ours['goodput'] / 1e6:.1f} "
              f"| {g:.2f} | {theirs['ampdu']:.1f} | {ours['ampdu']:.1f} | "
              f"{'' if not aggregating else f'{m:.2f}'} | {'yes' if ok else '**no**'} | "
              f"{theirs['wall']:.1f} | {ours['wall']:.3f} | "
              f"{theirs['wall'] / ours['wall']:.0f}× | "
              f"{cpu_ns3} | "
              f"{ours['cpu']:.3f} |", flush=True)
    if a.tack and not a.ns3_only:
        tack_table(rows, a.duration)
    if a.detail:
        print()
        for cell, _, theirs in rows:
            if theirs:
                print(f"- {cell['name']}: {theirs['detail']}")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("cell,ns3_goodput_bps,tcplab_goodput_bps,ns3_ampdu,tcplab_ampdu,"
                    "ns3_wall_s,tcplab_wall_s\n")
            for cell, ours, theirs in rows:
                t = theirs or {"goodput": "", "ampdu": "", "wall": ""}
                ours = ours or {"goodput": "", "ampdu": "", "wall": ""}
                f.write(f"{cell['name']},{t['goodput']},{ours['goodput']},{t['ampdu']},"
                        f"{ours['ampdu']},{t['wall']},{ours['wall']}\n")


if __name__ == "__main__":
    main()
