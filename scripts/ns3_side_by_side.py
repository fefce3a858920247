"""ns-3 beside tcplab's `stack = "ns3"` profile: goodput (mean and spread over seeds),
retransmission timeouts and bottleneck queue drops per run and wall time of both, cell by
cell. Prints a Markdown table (the one in docs/validation.md).

    python scripts/ns3_side_by_side.py [NS3_DIR] [--cells PATTERNS] [--quick] [--seeds N]
                                       [--csv FILE] [--set KEY=VALUE] [--ns3-arg ARG]
                                       [--same-losses]

NS3_DIR (or the NS3_DIR environment variable) is an ns-3 source tree, built. To get one
(ns-3.48, d2add90b; 95 minutes on 2 busy cores):

    git clone https://gitlab.com/nsnam/ns-3-dev.git /work/ns3src  # (GitHub: nsnam/ns-3-dev-git)
    cd /work/ns3src && git checkout ns-3.48
    ./ns3 configure -d optimized --disable-examples --disable-tests \\
        --enable-modules=core,network,internet,point-to-point,applications,traffic-control,flow-monitor
    ./ns3 build

The script writes one ns-3 program, scratch/tcplab_side_by_side.cc, into that tree (it is
generated here, never part of this repository), builds it with `./ns3 build`, and runs
its binary once per cell and seed (`--RngRun=1..5`; `--seeds N` for 1..N). The program
counts ns-3's timeouts (the sender's entries into CA_LOSS, from its CongState trace), the
packets the bottleneck queue drops (its device queue's, and the traffic-control layer's
when that queue is full) and the random losses, with the numbers of the lost packets; run
by hand with `--trace=1` it also prints flow 0's cwnd, ssthresh and RTT as they change. The
program's TcpSocket, TcpSocketBase, TcpL4Protocol and RttEstimator attributes come from
the `ns3` profile (the table in docs/scenarios.md, PROFILE below) with the cell's own
keys written over it, exactly as tcplab merges the profile under a flow's keys; tcplab
runs the same cell with `stack = "ns3"` through `import tcplab`.

The grid (cell names; --cells takes comma-separated shell patterns, e.g. 'vegas-*,b2'):
- `<cc>-<delay>-rto<min>`: the seed-001 channel, 100 Mbit/s, 100-packet drop-tail queue,
  0.5 % loss on data, SACK, MSS 1448, IW10, 4 MiB buffers, 10 MiB; one-way delay 1 or
  10 ms; min RTO 1 s with 200 ms delayed ACK (`rto1s`) or 200 ms with 40 ms (`rto200ms`);
  cc = newreno, vegas, westwoodplus, cubic, bbr (20 cells).
- `b2`: python/tcplab/data/b2.toml, 100 NewReno flows through a 1 Gbit/s, 10 ms dumbbell
  (1 Gbit/s, 1 ms access links, 1000-packet queues), 10 s; aggregate goodput. ns-3 always
  opens with a handshake, so tcplab's flows do too here (b2.toml turns it off).
- `handover-<cc>` (newreno, cubic): 10 Mbit/s, 20 ms, 50-packet queue; at 60 s a 2 s outage
  (both directions, packets in flight lost) after which the link runs at 5 Mbit/s, 300 ms,
  500 packets (examples/handover-wave.toml with a rate step too); 120 s, MSS 1448, 4 MiB
  buffers; goodput over the run.
B2 and the handover have no random loss: one seed gives what every seed gives (on both
sides), so they run seed 1 only.

Under the table, per cell with random loss: the ratio's 95 % bootstrap interval (each
side's seeds resampled on their own) and how many runs of each side dropped packets at
the queue, and how many of those also had a timeout.

--quick runs seeds 1-2 and B2 for 2 s. --set KEY=VALUE writes a flow key into both sides
(dotted cc_params too, e.g. `--set cc_params.hystart=off` for tcplab only, since ns-3 has
no such key: unknown keys go to tcplab alone) and --ns3-arg passes an argument to the
ns-3 program (e.g. `--ns3-arg=--ns3::TcpCubic::HyStart=false`): one switch at a time, for
controlled experiments. --same-losses takes the randomness of the loss out of the
comparison: each tcplab run drops exactly the packets ns-3's run of that seed lost at
random (a `model = "list"` loss; ns-3 numbers the packets reaching the receiving device,
tcplab those offered to the link, so the two agree until the first queue drop).
--no-ns3 runs the tcplab side only. --ns3-prefix DIR compiles
the program against an installed ns-3 instead of a source tree (DIR holds include/ and
lib/ or lib64/ with libns3.X-*.so, e.g. `pip install ns3` leaves one in
site-packages/ns3: ns-3.44, which runs these cells differently from 3.48, see
docs/validation.md).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import random
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import tcplab
from ns3_build import P2P_CONNECT, WIRED_MODULES, compile_against, parse_value

#: The `ns3` stack profile's keys that ns-3 has an attribute for, with the profile's value
#: (crates/tcplab-transport/src/tcp/stack.rs, docs/scenarios.md "Stack profiles"). Each is
#: the ns-3.4x attribute default named in NS3_ATTR.
PROFILE = {
    "sack": True,
    "timestamps": True,
    "recovery_cwnd": "prr",
    "initial_cwnd": 10,
    "mss": 536,
    "dupthresh": 3,
    "min_rto": "1s",
    "initial_rto": "1s",
    "syn_rto": "3s",
    "ack_every": 2,
    "ack_delay": "200ms",
    "rcv_buf": "128KiB",
    "snd_buf": "128KiB",
}

#: tcplab flow key -> ns-3 attribute (set with Config::SetDefault from the command line).
NS3_ATTR = {
    "sack": "ns3::TcpSocketBase::Sack",
    "timestamps": "ns3::TcpSocketBase::Timestamp",
    "recovery_cwnd": "ns3::TcpL4Protocol::RecoveryType",
    "initial_cwnd": "ns3::TcpSocket::InitialCwnd",
    "mss": "ns3::TcpSocket::SegmentSize",
    "dupthresh": "ns3::TcpSocketBase::ReTxThreshold",
    "min_rto": "ns3::TcpSocketBase::MinRto",
    "initial_rto": "ns3::RttEstimator::InitialEstimation",
    "syn_rto": "ns3::TcpSocket::ConnTimeout",
    "ack_every": "ns3::TcpSocket::DelAckCount",
    "ack_delay": "ns3::TcpSocket::DelAckTimeout",
    "rcv_buf": "ns3::TcpSocket::RcvBufSize",
    "snd_buf": "ns3::TcpSocket::SndBufSize",
    "cc": "ns3::TcpL4Protocol::SocketType",
}
RECOVERY = {"prr": "ns3::TcpPrrRecovery", "ssthresh": "ns3::TcpClassicRecovery"}
CC = {"newreno": "ns3::TcpNewReno", "vegas": "ns3::TcpVegas",
      "westwoodplus": "ns3::TcpWestwoodPlus", "cubic": "ns3::TcpCubic", "bbr": "ns3::TcpBbr"}

SEED001_FLOW = {"bytes": "10MiB", "recovery": "sack", "sack": True, "mss": 1448,
                "initial_cwnd": 10, "ack": "delayed", "ack_every": 2,
                "snd_buf": "4MiB", "rcv_buf": "4MiB"}
#: min RTO -> delayed-ACK timer of the seed-001 cells.
ACK_DELAY = {"1s": "200ms", "200ms": "40ms"}
B2 = Path(__file__).resolve().parent.parent / "python" / "tcplab" / "data" / "b2.toml"


@dataclass
class Cell:
    """One row of the table: a tcplab scenario and the ns-3 program's arguments."""

    name: str
    scenario: dict
    flow: dict  # the flow's own keys (the profile goes under them)
    net: dict  # the ns-3 program's topology arguments
    aggregate: bool = False  # goodput = all flows' bytes over the run
    random: bool = True  # False: nothing random in the cell, seed 1 stands for all
    extra: list = field(default_factory=list)


def seed001_cells() -> list[Cell]:
    cells = []
    for cc in CC:
        for delay in ["1ms", "10ms"]:
            for rto in ["1s", "200ms"]:
                flow = {**SEED001_FLOW, "cc": cc, "min_rto": rto, "ack_delay": ACK_DELAY[rto]}
                link = {"rate": "100Mbps", "delay": delay, "queue": "100pkt",
                        "loss": "0.5%", "ack_loss": "0%"}
                cells.append(Cell(
                    f"{cc}-{delay}-rto{rto}",
                    {"name": f"{cc}-{delay}-rto{rto}", "sample": "off", "link": link},
                    flow,
                    {"topo": "p2p", "rate": "100Mbps", "delay": delay, "queue": 100,
                     "loss": 0.005, "bytes": size("10MiB")}))
    return cells


def b2_cell(duration_s: float) -> Cell:
    sc = tcplab.Scenario.from_toml(B2).data
    flow = {k: v for k, v in sc["flow"][0].items() if k not in ("count", "handshake")}
    data = {**sc, "duration": f"{duration_s:g}s", "flow": []}
    bn, acc = sc["bottleneck"], sc["access"]
    return Cell("b2", data, flow,
                {"topo": "dumbbell", "flows": sc["flow"][0]["count"], "rate": bn["rate"],
                 "delay": bn["delay"], "queue": pkts(bn["queue"]), "accessRate": acc["rate"],
                 "accessDelay": acc["delay"], "accessQueue": pkts(acc["queue"]),
                 "duration": duration_s, "bytes": 0},
                aggregate=True, random=False)


def handover_cells() -> list[Cell]:
    cells = []
    for cc in ["newreno", "cubic"]:
        link = {"rate": "10Mbps", "delay": "20ms", "queue": "50pkt",
                "handover": [{"at": "60s", "outage": "2s",
                              "to": {"rate": "5Mbps", "delay": "300ms", "queue": "500pkt"}}]}
        flow = {"cc": cc, "bytes": "unlimited", "recovery": "sack", "mss": 1448,
                "snd_buf": "4MiB", "rcv_buf": "4MiB"}
        cells.append(Cell(
            f"handover-{cc}",
            {"name": f"handover-{cc}", "sample": "off", "duration": "120s", "link": link},
            flow,
            {"topo": "p2p", "rate": "10Mbps", "delay": "20ms", "queue": 50, "loss": 0.0,
             "duration": 120.0, "bytes": 0, "handoverAt": 60.0, "outage": 2.0,
             "toRate": "5Mbps", "toDelay": "300ms", "toQueue": 500},
            random=False))
    return cells


def size(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|kB|MB|GB)?", str(text))
    if not m:
        raise SystemExit(f"ns3_side_by_side: size {text!r}: expected e.g. 4MiB")
    mult = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
            "kB": 1000, "MB": 10**6, "GB": 10**9}[m.group(2)]
    return int(float(m.group(1)) * mult)


def pkts(text: str) -> int:
    m = re.fullmatch(r"(\d+)\s*pkt", str(text))
    if not m:
        raise SystemExit(f"ns3_side_by_side: queue {text!r}: expected e.g. 100pkt")
    return int(m.group(1))


def ns3_value(key: str, value) -> str:
    """A flow key's value as its ns-3 attribute takes it on the command line."""
    if key == "recovery_cwnd":
        return RECOVERY[value]
    if key == "cc":
        return CC[value]
    if key in ("rcv_buf", "snd_buf"):
        return str(size(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mean(runs: list[Run], key: str) -> float:
    return statistics.mean(getattr(r, key) for r in runs)


def ratio_interval(ours: list[float], theirs: list[float], draws: int = 10_000) -> tuple:
    """95 % percentile-bootstrap interval of mean(ours) / mean(theirs): each side's seeds
    resampled with replacement on their own (the two sides' seeds are independent draws),
    from a fixed generator so that the interval is reproducible."""
    rng = random.Random(1)
    ratios = sorted(statistics.mean(rng.choices(ours, k=len(ours)))
                    / statistics.mean(rng.choices(theirs, k=len(theirs)))
                    for _ in range(draws))
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def ns3_args(cell: Cell, overrides: dict) -> list[str]:
    keys = {**PROFILE, **cell.flow, **overrides}
    args = [f"--{k}={v}" for k, v in cell.net.items()]
    args += [f"--{NS3_ATTR[k]}={ns3_value(k, v)}" for k, v in keys.items() if k in NS3_ATTR]
    return args + cell.extra


@dataclass
class Run:
    """One run of one side."""

    goodput: float  # bit/s
    rtos: float  # retransmission timeouts per flow
    qdrop: int  # packets dropped by the (bottleneck) queue
    lost: list = field(default_factory=list)  # ns-3: numbers of the randomly lost packets


def tcplab_scenario(cell: Cell, overrides: dict, lost: list | None = None) -> tcplab.Scenario:
    """The cell's scenario; with `lost`, the link drops exactly those packets (numbered
    from 1 in the order they reach it) instead of drawing its own losses."""
    flow = {**cell.flow, "stack": "ns3"}
    for k, v in overrides.items():
        node = flow
        *path, last = k.split(".")
        for p in path:
            node = node.setdefault(p, {})
        node[last] = v
    if cell.name == "b2":
        flow["count"] = cell.net["flows"]
    scenario = dict(cell.scenario)
    if lost is not None:
        scenario["link"] = {**scenario["link"], "loss": {"model": "list", "drop": lost}}
    return tcplab.Scenario({**scenario, "flow": [flow]},
                           source=f"ns3_side_by_side {cell.name}")


def tcplab_run(cell: Cell, sc: tcplab.Scenario, seed: int) -> Run:
    """Goodput, retransmission timeouts per flow and queue drops of one run."""
    r = tcplab.simulate(sc, seed=seed)
    flows = r.flows
    rtos = float(flows["rtos"].mean())
    qdrop = int(r.links["dropped_queue"].sum())
    if cell.aggregate:
        return Run(float(flows["bytes_delivered"].sum()) * 8 / cell.net["duration"], rtos, qdrop)
    if cell.net["bytes"] and not bool(flows["completed"].all()):
        raise RuntimeError(f"{cell.name}: tcplab seed {seed} did not complete")
    return Run(float(flows["goodput_bps"].iloc[0]), rtos, qdrop)


PROGRAM_NAME = "tcplab_side_by_side"
PROGRAM = r"""// Generated by tcplab's scripts/ns3_side_by_side.py; not part of ns-3. Overwritten on
// every run of that script.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iomanip>
#include <sstream>
#include <iostream>
#include <vector>

using namespace ns3;

// Drops every packet while `down`; otherwise asks `inner` (the random loss), if any.
class OutageErrorModel : public ErrorModel
{
  public:
    bool down = false;
    Ptr<ErrorModel> inner;
    uint64_t lost = 0; // by `inner`
    uint64_t seen = 0; // packets that reached the model while the link was up
    std::vector<uint64_t> lostIdx; // their numbers (from 1) of those `inner` dropped

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        if (down)
        {
            return true;
        }
        seen++;
        bool drop = inner && inner->IsCorrupt(p);
        if (drop)
        {
            lostIdx.push_back(seen);
        }
        lost += drop;
        return drop;
    }

    void DoReset() override
    {
    }
};

static std::vector<uint64_t> g_rx;
static std::vector<uint32_t> g_rto;
static std::vector<uint32_t> g_recoveries;
static std::vector<double> g_done;
static uint64_t g_target = 0;
static uint32_t g_open = 0;

static void
Rx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    g_rx[i] += p->GetSize();
    if (g_target > 0 && g_done[i] < 0 && g_rx[i] >= g_target)
    {
        g_done[i] = Simulator::Now().GetSeconds();
        if (--g_open == 0)
        {
            Simulator::Stop();
        }
    }
}

// Counts the sender's retransmission timeouts (entries into CA_LOSS) and fast recoveries.
static void
CongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_rto[i]++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_recoveries[i]++;
    }
}

static bool g_trace = false;
static uint64_t g_qdrop = 0;

// A packet dropped at the bottleneck: by its device queue, or by the traffic-control
// layer because that queue is full (stopped) and no queue disc is installed.
static void
QueueDrop(Ptr<const Packet>)
{
    g_qdrop++;
}

// With --trace: flow 0's window, ssthresh and smoothed RTT as they change.
static void
TraceValue(std::string what, uint32_t, uint32_t now)
{
    std::cout << "trace " << Simulator::Now().GetSeconds() << " " << what << " " << now << "\n";
}

static void
TraceTime(std::string what, Time, Time now)
{
    std::cout << "trace " << Simulator::Now().GetSeconds() << " " << what << " "
              << now.GetSeconds() << "\n";
}

// The senders' sockets exist once their applications started (at 0).
static void
TraceSenders(std::vector<Ptr<Node>> src)
{
    if (g_trace)
    {
        std::ostringstream p;
        p << "/NodeList/" << src[0]->GetId() << "/$ns3::TcpL4Protocol/SocketList/0/";
        Config::ConnectWithoutContext(p.str() + "CongestionWindow",
                                      MakeBoundCallback(&TraceValue, std::string("cwnd")));
        Config::ConnectWithoutContext(p.str() + "SlowStartThreshold",
                                      MakeBoundCallback(&TraceValue, std::string("ssthresh")));
        Config::ConnectWithoutContext(p.str() + "RTT",
                                      MakeBoundCallback(&TraceTime, std::string("srtt")));
    }
    for (uint32_t i = 0; i < src.size(); i++)
    {
        std::ostringstream path;
        path << "/NodeList/" << src[i]->GetId() << "/$ns3::TcpL4Protocol/SocketList/0/CongState";
        Config::ConnectWithoutContext(path.str(), MakeBoundCallback(&CongState, i));
    }
}

// @P2P_CONNECT@

static void
Down(Ptr<OutageErrorModel> a, Ptr<OutageErrorModel> b, bool down)
{
    a->down = down;
    b->down = down;
}

static void
Step(NetDeviceContainer devs, std::string rate, std::string delay, uint32_t queue)
{
    for (uint32_t i = 0; i < 2; i++)
    {
        auto d = DynamicCast<PointToPointNetDevice>(devs.Get(i));
        d->SetDataRate(DataRate(rate));
        d->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queue));
    }
    devs.Get(0)->GetChannel()->SetAttribute("Delay", StringValue(delay));
}

int
main(int argc, char* argv[])
{
    std::string topo = "p2p";
    std::string rate = "100Mbps";
    std::string delay = "1ms";
    uint32_t queue = 100;
    double loss = 0;
    uint64_t bytes = 0;
    double duration = 0;
    uint32_t flows = 1;
    std::string accessRate = "1Gbps";
    std::string accessDelay = "1ms";
    uint32_t accessQueue = 1000;
    double handoverAt = -1;
    double outage = 0;
    std::string toRate = "10Mbps";
    std::string toDelay = "300ms";
    uint32_t toQueue = 500;

    CommandLine cmd(__FILE__);
    cmd.AddValue("topo", "p2p or dumbbell", topo);
    cmd.AddValue("rate", "link (bottleneck) rate", rate);
    cmd.AddValue("delay", "link (bottleneck) one-way delay", delay);
    cmd.AddValue("queue", "link (bottleneck) drop-tail queue, packets", queue);
    cmd.AddValue("loss", "packet loss rate on data (p2p)", loss);
    cmd.AddValue("bytes", "bytes per flow (0: unlimited)", bytes);
    cmd.AddValue("duration", "seconds (unlimited flows)", duration);
    cmd.AddValue("flows", "flows (dumbbell)", flows);
    cmd.AddValue("accessRate", "access link rate (dumbbell)", accessRate);
    cmd.AddValue("accessDelay", "access link delay (dumbbell)", accessDelay);
    cmd.AddValue("accessQueue", "access link queue, packets (dumbbell)", accessQueue);
    cmd.AddValue("handoverAt", "handover time, s (p2p; < 0: none)", handoverAt);
    cmd.AddValue("outage", "handover outage, s", outage);
    cmd.AddValue("toRate", "rate after the handover", toRate);
    cmd.AddValue("toDelay", "delay after the handover", toDelay);
    cmd.AddValue("toQueue", "queue after the handover, packets", toQueue);
    cmd.AddValue("trace", "print flow 0's cwnd, ssthresh and smoothed RTT changes", g_trace);
    cmd.Parse(argc, argv);

    InternetStackHelper stack;
    Ipv4AddressHelper ip("10.0.0.0", "255.255.255.0");
    std::vector<NetDeviceContainer> links;
    std::vector<Ptr<Node>> src;
    std::vector<Ipv4Address> dst;
    std::vector<Ptr<Node>> dstNode;
    NetDeviceContainer bottleneck;
    if (topo == "p2p")
    {
        NodeContainer n;
        n.Create(2);
        stack.Install(n);
        bottleneck = Connect(n.Get(0), n.Get(1), rate, delay, queue);
        links.push_back(bottleneck);
        auto ifs = ip.Assign(bottleneck);
        src.push_back(n.Get(0));
        dst.push_back(ifs.GetAddress(1));
        dstNode.push_back(n.Get(1));
    }
    else
    {
        NodeContainer routers;
        routers.Create(2);
        NodeContainer s;
        s.Create(flows);
        NodeContainer r;
        r.Create(flows);
        stack.Install(routers);
        stack.Install(s);
        stack.Install(r);
        bottleneck = Connect(routers.Get(0), routers.Get(1), rate, delay, queue);
        links.push_back(bottleneck);
        ip.Assign(bottleneck);
        ip.NewNetwork();
        for (uint32_t i = 0; i < flows; i++)
        {
            auto a = Connect(s.Get(i), routers.Get(0), accessRate, accessDelay, accessQueue);
            ip.Assign(a);
            ip.NewNetwork();
            auto b = Connect(routers.Get(1), r.Get(i), accessRate, accessDelay, accessQueue);
            auto ifs = ip.Assign(b);
            ip.NewNetwork();
            links.push_back(a);
            links.push_back(b);
            src.push_back(s.Get(i));
            dst.push_back(ifs.GetAddress(1));
            dstNode.push_back(r.Get(i));
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    // Drop-tail device queues only: no queue disc (Ipv4AddressHelper installs FqCoDel).
    TrafficControlHelper tch;
    for (auto& l : links)
    {
        tch.Uninstall(l);
    }

    DynamicCast<PointToPointNetDevice>(bottleneck.Get(0))
        ->GetQueue()
        ->TraceConnectWithoutContext("Drop", MakeCallback(&QueueDrop));
    bottleneck.Get(0)->GetNode()->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&QueueDrop));

    Ptr<OutageErrorModel> fwd = CreateObject<OutageErrorModel>();
    Ptr<OutageErrorModel> rev = CreateObject<OutageErrorModel>();
    if (loss > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorRate", DoubleValue(loss));
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        fwd->inner = em;
    }
    if (topo == "p2p")
    {
        bottleneck.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(fwd));
        bottleneck.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(rev));
    }
    if (handoverAt >= 0)
    {
        // The link goes down in both directions (what is queued or in flight is lost);
        // the new delay applies to what is sent from `handoverAt` on, so nothing sent
        // during the outage survives it.
        Simulator::Schedule(Seconds(handoverAt), &Down, fwd, rev, true);
        Simulator::Schedule(Seconds(handoverAt), &Step, bottleneck, rate, toDelay, queue);
        Time up = Seconds(handoverAt + outage);
        Simulator::Schedule(up + Time(toDelay), &Down, fwd, rev, false);
        Simulator::Schedule(up, &Step, bottleneck, toRate, toDelay, toQueue);
    }

    g_rx.assign(src.size(), 0);
    g_done.assign(src.size(), -1);
    g_rto.assign(src.size(), 0);
    g_recoveries.assign(src.size(), 0);
    g_target = bytes;
    g_open = src.size();
    for (uint32_t i = 0; i < src.size(); i++)
    {
        uint16_t port = 5000;
        BulkSendHelper send("ns3::TcpSocketFactory", InetSocketAddress(dst[i], port));
        send.SetAttribute("MaxBytes", UintegerValue(bytes));
        send.SetAttribute("SendSize", UintegerValue(65536));
        send.Install(src[i]).Start(Seconds(0));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        auto app = sink.Install(dstNode[i]);
        app.Start(Seconds(0));
        app.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Rx, i));
    }
    Simulator::Schedule(NanoSeconds(1), &TraceSenders, src);
    Simulator::Stop(Seconds(duration > 0 ? duration : 3600));
    Simulator::Run();
    std::cout << std::setprecision(12);
    std::cout << "random losses " << fwd->lost << " queue drops " << g_qdrop << "\n";
    std::cout << "lost packets";
    for (auto n : fwd->lostIdx)
    {
        std::cout << " " << n;
    }
    std::cout << "\n";
    for (uint32_t i = 0; i < src.size(); i++)
    {
        std::cout << "flow " << i << " bytes " << g_rx[i] << " done_s " << g_done[i]
                  << " rto " << g_rto[i] << " recoveries " << g_recoveries[i] << "\n";
    }
    Simulator::Destroy();
    return 0;
}
"""
PROGRAM = PROGRAM.replace("// @P2P_CONNECT@\n", P2P_CONNECT)


def build_program(ns3: Path) -> Path:
    """Writes the program into `ns3`/scratch (when it changed), builds it, returns the
    binary."""
    src = ns3 / "scratch" / f"{PROGRAM_NAME}.cc"
    if not src.exists() or src.read_text() != PROGRAM:
        src.write_text(PROGRAM)
    r = subprocess.run(["./ns3", "build", PROGRAM_NAME], cwd=ns3, capture_output=True, text=True)
    if r.returncode != 0:
        # A scratch file new to the tree needs the build system to find it first.
        r = subprocess.run(["./ns3", "build"], cwd=ns3, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ns3_side_by_side: building {src} failed:\n{r.stdout[-3000:]}"
                         f"{r.stderr[-3000:]}")
    bins = sorted((ns3 / "build" / "scratch").glob(f"*{PROGRAM_NAME}*"))
    bins = [b for b in bins if os.access(b, os.X_OK) and b.is_file()]
    if not bins:
        raise SystemExit(f"ns3_side_by_side: no {PROGRAM_NAME} binary under {ns3}/build/scratch")
    return bins[0]


def build_against_prefix(prefix: Path, out: Path) -> Path:
    """Compiles the program against an installed ns-3 under `prefix`; returns the binary."""
    return compile_against(prefix, out, PROGRAM_NAME, PROGRAM, WIRED_MODULES,
                           "ns3_side_by_side")


def ns3_run(binary: Path, ns3: Path, cell: Cell, args: list[str], seed: int) -> Run:
    """Goodput, retransmission timeouts (entries into CA_LOSS) per flow, queue drops and
    the randomly lost packets of one run."""
    env = {**os.environ, "LD_LIBRARY_PATH": f"{ns3 / 'build' / 'lib'}"}
    r = subprocess.run([str(binary), *args, "--RngSeed=1", f"--RngRun={seed}"],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{cell.name}: ns-3 seed {seed} failed: {r.stderr[-2000:]}")
    rows = re.findall(r"flow (\d+) bytes (\d+) done_s (\S+) rto (\d+)", r.stdout)
    rtos = statistics.mean(int(row[3]) for row in rows)
    qdrop = int(re.search(r"queue drops (\d+)", r.stdout).group(1))
    lost = [int(n) for n in re.search(r"lost packets(.*)", r.stdout).group(1).split()]
    if cell.aggregate:
        return Run(sum(int(row[1]) for row in rows) * 8 / cell.net["duration"], rtos, qdrop)
    _, got, done, _ = rows[0]
    if cell.net["bytes"]:
        if float(done) < 0:
            raise RuntimeError(f"{cell.name}: ns-3 seed {seed} did not complete")
        return Run(int(got) * 8 / float(done), rtos, qdrop, lost)
    return Run(int(got) * 8 / cell.net["duration"], rtos, qdrop, lost)




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ns3", nargs="?", default=os.environ.get("NS3_DIR"),
                    help="ns-3 source tree, built (default: $NS3_DIR)")
    ap.add_argument("--cells", help="comma-separated shell patterns of cell names")
    ap.add_argument("--quick", action="store_true", help="seeds 1-2, B2 for 2 s")
    ap.add_argument("--seeds", type=int, help="seeds 1..N (default 5)")
    ap.add_argument("--csv", help="also write every run's goodput and wall time here")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a flow key for both sides (ns-3 only if it has an attribute)")
    ap.add_argument("--ns3-arg", action="append", default=[], metavar="ARG",
                    help="an extra argument of the ns-3 program")
    ap.add_argument("--no-ns3", action="store_true", help="run the tcplab side only")
    ap.add_argument("--same-losses", action="store_true",
                    help="tcplab drops the packets ns-3 lost at random (same numbers)")
    ap.add_argument("--ns3-prefix", help="instead of a source tree: an installed ns-3 "
                    "(include/ and lib/ or lib64/), e.g. the `ns3` wheel's site-packages/ns3")
    ap.add_argument("--ns3-prefix-build", default="/tmp/tcplab-ns3-side-by-side",
                    help="where --ns3-prefix builds the program")
    a = ap.parse_args()
    seeds = a.seeds or (2 if a.quick else 5)
    overrides = {}
    for kv in a.set:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error(f"--set {kv!r}: expected KEY=VALUE")
        overrides[k] = parse_value(v)
    cells = [*seed001_cells(), b2_cell(2.0 if a.quick else 10.0), *handover_cells()]
    if a.cells:
        pats = a.cells.split(",")
        cells = [c for c in cells if any(fnmatch.fnmatch(c.name, p) for p in pats)]
        if not cells:
            ap.error(f"--cells {a.cells!r} matches no cell")
    binary = ns3 = None
    if a.ns3_prefix and not a.no_ns3:
        ns3 = Path(a.ns3_prefix).resolve()
        binary = build_against_prefix(ns3, Path(a.ns3_prefix_build))
        print(f"ns-3 installed at {ns3} ({next(ns3.glob('lib*/libns3*-core*.so')).name})")
    elif not a.no_ns3:
        if not a.ns3:
            ap.error("give the ns-3 tree (argument or NS3_DIR), or --no-ns3")
        ns3 = Path(a.ns3).resolve()
        if not (ns3 / "ns3").exists():
            ap.error(f"{ns3}: not an ns-3 source tree (no ./ns3)")
        binary = build_program(ns3)
        commit = subprocess.run(["git", "-C", str(ns3), "describe", "--tags", "--always"],
                                capture_output=True, text=True).stdout.strip()
        print(f"ns-3 {commit or '(not a git tree)'} at {ns3}")
    here = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short",
                           "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"tcplab {tcplab.__version__} ({here}); seeds 1-{seeds}; load average "
          f"{' '.join(Path('/proc/loadavg').read_text().split()[:3])}; nproc {os.cpu_count()}")
    if overrides or a.ns3_arg:
        print(f"overrides: {overrides} ns-3 args: {a.ns3_arg}")
    print()
    if a.same_losses:
        if not binary:
            ap.error("--same-losses needs ns-3 (not --no-ns3)")
        print("same losses: tcplab drops the packets ns-3 lost at random, by number\n")
    print("| cell | ns-3 mean Mbit/s | ns-3 sd | tcplab mean Mbit/s | tcplab sd | tcplab / ns-3 "
          "| within 25 % | RTOs per run ns-3 / tcplab | queue drops per run ns-3 / tcplab "
          "| ns-3 wall s | tcplab wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    runs, within, total, summaries = [], 0, 0, []
    ns3_overrides = {k: v for k, v in overrides.items() if k in NS3_ATTR}
    for cell in cells:
        cell.extra = list(a.ns3_arg)
        n = seeds if cell.random else 1
        theirs, theirs_wall = [], float("nan")
        if binary:
            args = ns3_args(cell, ns3_overrides)
            t0 = time.perf_counter()
            theirs = [ns3_run(binary, ns3, cell, args, s) for s in range(1, n + 1)]
            theirs_wall = time.perf_counter() - t0
        same = a.same_losses and cell.random
        scs = [tcplab_scenario(cell, overrides, theirs[s].lost if same else None)
               for s in range(n)]
        t0 = time.perf_counter()
        ours = [tcplab_run(cell, scs[s], s + 1) for s in range(n)]
        ours_wall = time.perf_counter() - t0
        for s in range(n):
            t = theirs[s] if theirs else Run("", "", "")
            runs.append((cell.name, s + 1, t.goodput, ours[s].goodput, t.rtos, ours[s].rtos,
                         t.qdrop, ours[s].qdrop))
        m_ours = mean(ours, "goodput") / 1e6
        sd_ours = statistics.pstdev(r.goodput for r in ours) / 1e6
        drops_ours = mean(ours, "qdrop")
        if theirs:
            m = mean(theirs, "goodput") / 1e6
            sd = statistics.pstdev(r.goodput for r in theirs) / 1e6
            ratio = m_ours / m
            ok = abs(ratio - 1) <= 0.25
            within += ok and not cell.aggregate and not cell.name.startswith("handover")
            total += not cell.aggregate and not cell.name.startswith("handover")
            if n > 1:
                lo, hi = ratio_interval([r.goodput for r in ours], [r.goodput for r in theirs])
                over = [sum(r.qdrop > 0 for r in side) for side in (theirs, ours)]
                both = [sum(r.qdrop > 0 and r.rtos > 0 for r in side) for side in (theirs, ours)]
                summaries.append(f"- {cell.name}: tcplab / ns-3 {ratio:.2f}, 95 % bootstrap "
                                 f"interval {lo:.2f}-{hi:.2f}; runs with queue drops ns-3 "
                                 f"{over[0]} of {n}, tcplab {over[1]} of {n} (with a timeout "
                                 f"too: {both[0]} and {both[1]})")
            print(f"| {cell.name} | {m:.1f} | {sd:.1f} | {m_ours:.1f} | {sd_ours:.1f} | "
                  f"{ratio:.2f} | {'yes' if ok else '**no**'} | "
                  f"{mean(theirs, 'rtos'):.1f} / {mean(ours, 'rtos'):.1f} | "
                  f"{mean(theirs, 'qdrop'):.0f} / {drops_ours:.0f} | "
                  f"{theirs_wall:.1f} | {ours_wall:.1f} |", flush=True)
        else:
            print(f"| {cell.name} | | | {m_ours:.1f} | {sd_ours:.1f} | | | "
                  f"/ {mean(ours, 'rtos'):.1f} | / {drops_ours:.0f} | | {ours_wall:.1f} |",
                  flush=True)
    if total:
        print(f"\nseed-001 cells within 25 % of ns-3: {within} of {total}")
    if summaries:
        print("\nThe ratio of the means with its seeds resampled:")
        print("\n".join(summaries))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("cell,seed,ns3_goodput_bps,tcplab_goodput_bps,ns3_rtos,tcplab_rtos,"
                    "ns3_queue_drops,tcplab_queue_drops\n")
            for r in runs:
                f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        sys.exit(f"ns3_side_by_side: {e}")
