"""What tcplab offers, for people and programs: controllers, transports, studies and every
scenario key with its default and unit (``tcplab list``; ``tcplab.scenario_keys()``).

A test checks this list against the Rust parser both ways (every key it reads is here,
every key here is read) and each stated default against a run with the key set to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tcplab import _tcplab

#: One line per built-in controller name (aliases share a line of their own).
CONTROLLERS = {
    "newreno": "NewReno window growth with RFC 6582 recovery",
    "reno": "the same window growth with RFC 5681 recovery",
    "tahoe": "no fast recovery: slow start from one segment after a fast retransmit",
    "vegas": "delay-based: INET's model, or Brakmo & Peterson's rules (vegas_variant)",
    "westwood": "bandwidth estimate sets ssthresh after a loss",
    "westwoodplus": "Westwood+ (once-per-RTT samples); aliases westwood_plus, westwood+",
    "westwood_plus": "alias of westwoodplus",
    "westwood+": "alias of westwoodplus",
    "cubic": "RFC 9438, optional HyStart++ (RFC 9406) or classic HyStart (Linux, ns-3)",
    "bbr": "BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00)",
    "dctcp": "DCTCP (RFC 8257): cuts cwnd by alpha/2 per window, alpha the marked fraction",
    "wave": "TCP Wave: burst transmission paced by a timer",
    "fixed_burst": "test controller: a fixed burst per timer tick",
}

TRANSPORTS = {
    "tcp": "TCP sender and receiver (the [[flow]] keys of transport = \"tcp\")",
    "datagram": "UDP-like cross traffic: constant rate, on/off or a timestamp trace",
    "tack": "TACK (Li et al., SIGCOMM 2020): tame ACKs at min(bw/(L*MSS), beta/RTT_min), "
            "IACKs, loss blocks, one-way-delay RTT_min",
    "tcp-nc": "TCP/NC: TCP over random linear network coding with seen ACKs "
              "(docs/coded-transports.md)",
    "tcp-forward": "TCP-Forward: LT codes under Vegas, seed 004 (docs/coded-transports.md)",
    "stopwait": "stop-and-wait ARQ, the worked example of docs/transports.md "
                "(params = { timeout_ms, payload })",
}


@dataclass(frozen=True)
class Key:
    """A scenario key: where it goes, its default and unit, and what it means."""

    section: str
    key: str
    default: str
    unit: str
    meaning: str
    #: The default as a scenario value, when it can be written (tests set it and compare).
    value: Any = None


_LINK = "link ([link], [bottleneck], [access], [[link]], schedule entries, handover `to`)"
_TCP = "flow, transport = \"tcp\""
_DGRAM = "flow, transport = \"datagram\""
_TACK = "flow, transport = \"tack\""
_WLAN = "wlan"
_CODED = "flow, transport = \"tcp-nc\" | \"tcp-forward\""

KEYS: tuple[Key, ...] = (
    Key("scenario", "name", "file stem", "name", "scenario name on every result row and "
        "output file", None),
    Key("scenario", "duration", "none", "duration", "stop the run at this simulated time "
        "(required when a flow never ends)"),
    Key("scenario", "stack", "linux", "\"linux\" | \"ns3\" | \"rfc\" | \"tcplab\"",
        "stack profile of every TCP flow that names none (docs/scenarios.md)"),
    Key("scenario", "max_time", "3600s", "duration", "safety cap when no duration is given",
        "3600s"),
    Key("scenario", "sample", "10ms", "duration | \"ack\" | \"off\"", "time-series sampling",
        "10ms"),
    Key("scenario", "series_rows", "1000000", "rows (>= 1000)", "rows each series table keeps "
        "before the series are thinned to every n-th sample (info: series_stride)", 1000000),
    Key("scenario", "memory_limit", "80 % of the machine", "size", "refuse a run whose "
        "estimated memory exceeds this, before it starts"),
    Key("scenario", "topology", "{ kind = \"point-to-point\" }", "table",
        "kind = \"point-to-point\" ([link]), \"dumbbell\" ([bottleneck], [access]) or "
        "\"graph\" ([[node]], [[link]]; the default when [[node]] is present)",
        {"kind": "point-to-point"}),
    Key("scenario", "link", "required", "table | array of tables",
        "[link] (point-to-point) or [[link]] (graph): link keys below"),
    Key("scenario", "bottleneck", "required (dumbbell)", "table", "the shared link"),
    Key("scenario", "access", "10Gbps, no delay", "table",
        "per-flow access links of a dumbbell"),
    Key("scenario", "node", "none", "array of tables", "graph nodes: [[node]] name = ..."),
    Key("scenario", "wlan", "none", "array of tables", "802.11 cells: [[wlan]] keys below"),
    Key("scenario", "flow", "required", "array of tables", "[[flow]]: flow keys below"),
    Key("node", "name", "required", "name", "node name, used by links' between and "
        "flows' from/to/path"),
    Key(_LINK, "rate", "required", "rate (bit/s)", "serialisation rate of both directions "
        "(not with trace)"),
    Key(_LINK, "reverse_rate", "rate", "rate (bit/s)", "rate of the reverse (ACK) direction"),
    Key(_LINK, "delay", "0ms", "duration", "one-way propagation delay", "0ms"),
    Key(_LINK, "queue", "100pkt", "\"Npkt\" | size | \"unlimited\"",
        "drop-tail limit on packets waiting for the transmitter", "100pkt"),
    Key(_LINK, "loss", "0%", "probability | table", "forward-direction loss (table: "
        "loss model keys below)", "0%"),
    Key(_LINK, "ack_loss", "0%", "probability | table", "reverse-direction loss", "0%"),
    Key(_LINK, "up", "true", "bool", "false: the link is down and loses everything", True),
    Key(_LINK, "trace", "none", "file", "Mahimahi delivery trace as the capacity of both "
        "directions, relative to the scenario file (not with rate)"),
    Key(_LINK, "reverse_trace", "trace", "file", "trace of the reverse direction only"),
    Key(_LINK, "jitter", "0ms", "duration | table", "extra one-way delay per packet: "
        "uniform up to the value, or a jitter table (below)", "0ms"),
    Key(_LINK, "reorder", "false", "bool", "true: jittered packets may overtake each other",
        False),
    Key(_LINK, "discipline", "drop-tail", "name | table", "queue discipline of both "
        "directions: drop-tail, fifo, codel, fq_codel, pie, red, step, or a table (below); "
        "`queue` "
        "is its limit", "drop-tail"),
    Key(_LINK, "duplex", "full", "\"full\" | \"half\"", "half: one transmitter shared by "
        "both directions", "full"),
    Key(_LINK, "reverse", "none", "table", "link keys for the reverse direction only"),
    Key(_LINK, "schedule", "none", "array of tables", "[[<link>.schedule]]: at = time, "
        "then link keys that change then"),
    Key(_LINK, "handover", "none", "array of tables", "[[<link>.handover]]: at, outage, to"),
    Key(_LINK, "between", "required ([[link]])", "[name, name]", "the two nodes a graph link "
        "joins; forward is first -> second"),
    Key(_LINK, "name", "\"<a>-<b>\"", "name", "graph link name (results' link column)"),
    Key(_LINK, "cost", "1", "count", "graph link cost for shortest-path routing"),
    Key("link.schedule[]", "at", "required", "duration", "when the entry's keys take effect"),
    Key("link.handover[]", "at", "required", "duration", "when the link goes down"),
    Key("link.handover[]", "outage", "0s", "duration", "how long it stays down"),
    Key("link.handover[]", "to", "required", "table", "link keys in effect after the outage"),
    Key("link.jitter (table)", "dist", "required", "\"uniform\" | \"normal\"",
        "jitter distribution"),
    Key("link.jitter (table)", "max", "required (uniform)", "duration", "uniform upper bound"),
    Key("link.jitter (table)", "mean", "0ms", "duration", "normal mean (negative draws are "
        "clamped to 0)"),
    Key("link.jitter (table)", "sd", "required (normal)", "duration", "normal standard "
        "deviation"),
    Key("link.discipline (table)", "kind", "required", "\"codel\" | \"fq_codel\" | "
        "\"pie\" | \"red\" | \"step\" | \"fifo\" | \"drop-tail\"", "which discipline"),
    Key("link.discipline (table)", "target", "5ms (PIE: 15ms)", "duration",
        "CoDel/FQ-CoDel: acceptable standing delay (RFC 8289); PIE: QDELAY_REF (RFC 8033)"),
    Key("link.discipline (table)", "interval", "100ms", "duration",
        "CoDel/FQ-CoDel: window the delay must exceed target for (above target)"),
    Key("link.discipline (table)", "ecn", "false (FQ-CoDel: true)", "bool",
        "mark ECN-capable packets CE instead of dropping them early"),
    Key("link.discipline (table)", "flows", "1024", "1..65536", "FQ-CoDel: flow queues"),
    Key("link.discipline (table)", "quantum", "1514B", "size", "FQ-CoDel: bytes a flow "
        "sends per round"),
    Key("link.discipline (table)", "t_update", "15ms", "duration", "PIE: update period"),
    Key("link.discipline (table)", "alpha", "0.125", "1/s", "PIE: weight of the delay's "
        "distance to target"),
    Key("link.discipline (table)", "beta", "1.25", "1/s", "PIE: weight of the delay's "
        "change"),
    Key("link.discipline (table)", "max_burst", "150ms", "duration", "PIE: burst "
        "allowance"),
    Key("link.discipline (table)", "min_th", "5", "packets", "RED: average queue where "
        "early drops start"),
    Key("link.discipline (table)", "max_th", "15", "packets", "RED: average queue where "
        "the probability reaches max_p (above min_th)"),
    Key("link.discipline (table)", "max_p", "0.02", "(0, 1]", "RED: drop probability at "
        "max_th"),
    Key("link.discipline (table)", "weight", "0.002", "(0, 1]", "RED: averaging weight "
        "w_q"),
    Key("link.discipline (table)", "gentle", "true", "bool", "RED: rise from max_p to 1 "
        "between max_th and 2 max_th"),
    Key("link.discipline (table)", "k", "required (step)", "packets | size", "step: mark "
        "(or drop, without ECN) what arrives to more than K waiting (DCTCP's queue)"),
    Key("link.loss (table)", "model", "bernoulli", "\"none\" | \"bernoulli\" | "
        "\"gilbert-elliott\" | \"list\"", "loss model"),
    Key("link.loss (table)", "rate", "required (bernoulli)", "probability",
        "loss probability per packet"),
    Key("link.loss (table)", "p_good_bad", "required (gilbert-elliott)", "probability",
        "per packet, good -> bad"),
    Key("link.loss (table)", "p_bad_good", "required (gilbert-elliott)", "probability",
        "per packet, bad -> good"),
    Key("link.loss (table)", "loss_good", "0%", "probability", "loss in the good state"),
    Key("link.loss (table)", "loss_bad", "100%", "probability", "loss in the bad state"),
    Key("link.loss (table)", "drop", "required (list)", "list of counts",
        "packet numbers (from 1) to drop, for tests"),
    Key("flow", "bytes", "required", "size | \"unlimited\"", "bytes to transfer"),
    Key("flow", "count", "1", "count", "this many identical flows", 1),
    Key("flow", "name", "flow<N>", "name", "label in results (count > 1 appends 0, 1, ...)"),
    Key("flow", "start", "0s", "duration", "when the application starts writing", "0s"),
    Key("flow", "stop", "none", "duration", "when it stops writing"),
    Key("flow", "source_rx_coalesce", "0s", "duration <= 100ms", "receive interrupt "
        "coalescing at the source's host (simulator only; iwlwifi's default: 2048us)", "0s"),
    Key("flow", "sink_rx_coalesce", "0s", "duration <= 100ms", "the same at the sink's host",
        "0s"),
    Key("flow", "transport", "tcp", "\"tcp\" | \"datagram\" | registered name",
        "the endpoints; keys below by transport", "tcp"),
    Key("flow", "params", "{}", "table of numbers", "parameters of a registered transport"),
    Key("flow", "access_delay", "[access] delay", "duration",
        "dumbbell: this flow's sender-side access delay"),
    Key("flow", "access_rate", "[access] rate", "rate (bit/s)",
        "dumbbell: this flow's access rate (both sides)"),
    Key("flow", "from", "required (graph)", "name", "graph: sending node"),
    Key("flow", "to", "required (graph)", "name", "graph: receiving node"),
    Key("flow", "path", "shortest by cost", "list of names", "graph: explicit route"),
    Key(_TCP, "cc", "newreno", "controller name", "congestion control (tcplab list "
        "controllers)", "newreno"),
    Key(_TCP, "cc_params", "{}", "table of numbers and names", "controller parameters "
        "(docs/scenarios.md)", {}),
    Key(_TCP, "recovery", "sack", "\"reno\" | \"newreno\" | \"sack\"", "loss recovery "
        "(RFC 5681, 6582, 6675); under stack = \"tcplab\" by cc", "sack"),
    Key(_TCP, "mtu", "1500", "bytes", "IP packet size", 1500),
    Key(_TCP, "mss", "mtu - 52 (- 40 without timestamps)", "bytes", "payload per segment",
        1448),
    Key(_TCP, "initial_cwnd", "10", "segments", "initial window (RFC 6928)", 10),
    Key(_TCP, "dupthresh", "3", "count", "duplicate ACKs for a fast retransmit", 3),
    Key(_TCP, "loss_detection", "rack", "\"dupack\" | \"rack\"", "SACK loss detection: "
        "RFC 6675 IsLost or RFC 8985 RACK-TLP", "rack"),
    Key(_TCP, "recovery_cwnd", "prr", "\"ssthresh\" | \"prr\"", "cwnd in SACK "
        "recovery: RFC 6675 cwnd = ssthresh or RFC 6937 PRR", "prr"),
    Key(_TCP, "partial_ack_timer", "impatient", "\"impatient\" | \"slow-but-steady\"",
        "RFC 6582 section 4 timer variant", "impatient"),
    Key(_TCP, "min_rto", "200ms", "duration", "RTO floor (Linux TCP_RTO_MIN; RFC 6298: 1 s)",
        "200ms"),
    Key(_TCP, "initial_rto", "1s", "duration (> 0)", "RTO before an RTT sample", "1s"),
    Key(_TCP, "max_rto", "120s", "duration (> 0)", "RTO ceiling", "120s"),
    Key(_TCP, "rto_rule", "linux", "\"rfc6298\" | \"linux\"", "RTO from the samples: "
        "RFC 6298 max(SRTT + 4 RTTVAR, min_rto), or Linux's SRTT + max(mdev, min_rto)",
        "linux"),
    Key(_TCP, "timer_hz", "250", "count (0: exact)", "ticks per second of the "
        "retransmission timer (Linux's jiffies at CONFIG_HZ, fired on its timer wheel)", 250),
    Key(_TCP, "ack", "delayed", "\"delayed\" | \"per-packet\"", "receiver ACK policy",
        "delayed"),
    Key(_TCP, "ack_every", "2", "segments", "delayed ACK: ACK every N full segments", 2),
    Key(_TCP, "ack_delay", "40ms", "duration", "delayed ACK: longest wait", "40ms"),
    Key(_TCP, "sack", "true", "bool", "receiver sends SACK blocks (RFC 2018)", True),
    Key(_TCP, "rcv_buf", "6MiB", "size", "receive buffer: the window advertised is what "
        "out-of-order data leave free (Linux tcp_rmem max)", "6MiB"),
    Key(_TCP, "snd_buf", "4MiB", "size", "send buffer: most bytes outstanding (Linux "
        "tcp_wmem max)", "4MiB"),
    Key(_TCP, "ssthresh_basis", "flight-size", "\"flight-size\" | \"in-flight\"",
        "what a loss halves: RFC 5681 FlightSize, or FlightSize less data the receiver "
        "holds (ns-3)", "flight-size"),
    Key(_TCP, "window_basis", "flight-size", "\"flight-size\" | \"in-flight\"",
        "what cwnd bounds outside SACK recovery: RFC 5681 FlightSize, or FlightSize less "
        "SACKed data (ns-3's BytesInFlight)", "flight-size"),
    Key(_TCP, "acked_basis", "cumulative", "\"cumulative\" | \"delivered\"",
        "what an ACK outside fast recovery tells the controller it acknowledged: all it "
        "covers (RFC 5681), or only bytes not SACKed before (ns-3's currentDelivered)",
        "cumulative"),
    Key(_TCP, "handshake", "true", "bool", "SYN / SYN-ACK before data (RFC 6298 1 s SYN "
        "timer, backoff)", True),
    Key(_TCP, "syn_rto", "initial_rto", "duration (> 0)", "first SYN timeout (ns-3's "
        "ConnTimeout)"),
    Key(_TCP, "quick_ack", "16", "segments", "Linux quick-ACK: ACK this many segments at "
        "once at the start and after out-of-order data", 16),
    Key(_TCP, "tso", "none", "bool", "paced senders: true sends each send quantum as one "
        "TSO/GSO burst (Linux's tcp_tso_autosize), false one segment per pacing slot; "
        "absent, a quantum's slack before its slot"),
    Key(_TCP, "stack", "linux", "\"linux\" | \"ns3\" | \"rfc\" | \"tcplab\"", "stack profile: "
        "that stack's defaults (docs/scenarios.md; the other defaults listed here are "
        "linux's, \"tcplab\" keeps tcplab's own); also a top-level key", "linux"),
    Key(_TCP, "timestamps", "true", "bool", "RFC 7323 timestamp option on every segment: "
        "RTT from every ACK, retransmissions included", True),
    Key(_TCP, "dsack", "true", "bool", "receiver reports duplicates in the first SACK "
        "block (RFC 2883)", True),
    Key(_TCP, "undo", "true", "bool", "undo spurious window cuts: Eifel (RFC 3522/4015) "
        "with timestamps, else D-SACK (RFC 3708)", True),
    Key(_TCP, "ecn", "false (dctcp: true)", "bool", "ECN (RFC 3168): ECT data, CE echoed, "
        "one window cut per round trip", False),
    Key(_DGRAM, "rate", "required", "rate (bit/s)", "sending rate (IP packet bytes)"),
    Key(_DGRAM, "pattern", "cbr", "\"cbr\" | \"onoff\" | \"trace\"", "sending pattern"),
    Key(_DGRAM, "packet_size", "1472", "bytes", "UDP payload (1500-byte IP packets)", 1472),
    Key(_DGRAM, "on_time", "required (onoff)", "duration", "mean on period"),
    Key(_DGRAM, "off_time", "required (onoff)", "duration", "mean off period"),
    Key(_DGRAM, "on_dist", "exponential", "\"exponential\" | \"constant\" | \"pareto\"",
        "on-period distribution"),
    Key(_DGRAM, "off_dist", "exponential", "\"exponential\" | \"constant\" | \"pareto\"",
        "off-period distribution"),
    Key(_DGRAM, "pareto_shape", "1.5", "number > 1", "shape of pareto periods"),
    Key(_DGRAM, "trace", "required (trace)", "file", "one datagram at each millisecond "
        "timestamp of a Mahimahi-format file"),
    Key(_TACK, "cc", "bbr", "controller name", "congestion controller (bbr: TCP-TACK)"),
    Key(_TACK, "cc_params", "none", "table of numbers and names",
        "the controller's parameters"),
    Key(_TACK, "mtu", "1500", "bytes", "largest IP packet"),
    Key(_TACK, "mss", "mtu - 52", "bytes", "payload per packet"),
    Key(_TACK, "beta", "4", "TACKs per RTT_min", "beta of f = min(bw/(L*MSS), beta/RTT_min)"),
    Key(_TACK, "l", "2", "packets per TACK", "L of the TACK frequency (byte-counting regime)"),
    Key(_TACK, "feedback", "rich", "\"rich\" | \"poor\"",
        "loss blocks per ACK: as many as fit, or Q = 1"),
    Key(_TACK, "rcv_buf", "64MiB", "bytes", "receive buffer"),
    Key(_TACK, "bw_window_rtts", "10", "RTT_min", "receiver's windowed-max rate filter length"),
    Key(_TACK, "owd_gain", "1", "EWMA gain", "smoothing of the relative one-way delay "
        "(1: the raw minimum-OWD packet)"),
    Key(_TACK, "max_interval", "200ms", "duration", "longest TACK interval"),
    Key(_TACK, "initial_delay", "25ms", "duration", "ACK delay before any rate estimate"),
    Key(_TACK, "rtt_window", "10s", "duration", "sender's RTT_min filter length"),
    Key(_TACK, "iack_delay_div", "4", "integer >= 0", "a gap is reported as lost after "
        "RTT_min / this (reordering allowance); 0: at once"),
    Key(_TACK, "iack_delay_initial", "5ms", "duration", "that allowance before RTT_min is known"),
    Key(_TACK, "loss_iack", "true", "true | false", "instant ACK on a loss; false: the gap "
        "waits for the next TACK (the paper's Figure 5a without IACK)"),
    Key(_TACK, "loss_response", "rate", "\"rate\" | \"conservation\"",
        "a reported loss is only retransmitted (the paper's co-designed BBR), or enters "
        "the controller's recovery as TCP's does"),
    Key(_TACK, "initial_cwnd", "10", "packets", "initial window"),
    Key(_TACK, "min_rto", "200ms", "duration", "lower bound of the retransmission timeout"),
    Key(_TACK, "initial_rto", "1s", "duration", "retransmission timeout before an RTT sample"),
    Key(_WLAN, "name", "wlan, wlan1, ...", "name", "cell name; its links are <name>:<station>"),
    Key(_WLAN, "standard", "required", "\"802.11b\" | \"802.11g\" | \"802.11n\" | "
        "\"802.11ac\"", "PHY/MAC preset (the TACK paper's Figure 7 parameters)"),
    Key(_WLAN, "ap", "required", "node name", "the access point"),
    Key(_WLAN, "stations", "required", "node names", "the stations associated to it"),
    Key(_WLAN, "per", "0", "probability", "frame error rate of every station's frames"),
    Key(_WLAN, "per_station", "none", "table node -> probability", "per-station frame errors"),
    Key(_WLAN, "cost", "1", "integer", "routing cost of each association"),
    Key(_WLAN, "slot", "preset", "duration", "DCF slot time"),
    Key(_WLAN, "sifs", "preset", "duration", "short interframe space"),
    Key(_WLAN, "aifsn", "preset", "slots", "DIFS/AIFS = SIFS + aifsn * slot"),
    Key(_WLAN, "cw_min", "preset", "slots", "smallest contention window"),
    Key(_WLAN, "cw_max", "preset", "slots", "largest contention window"),
    Key(_WLAN, "retry_limit", "preset", "attempts", "frame dropped after this many"),
    Key(_WLAN, "mac_overhead", "preset", "bytes", "MAC header + FCS per frame"),
    Key(_WLAN, "data_rate", "preset", "rate (bit/s)", "PHY rate of data frames"),
    Key(_WLAN, "control_rate", "preset", "rate (bit/s)", "PHY rate of MAC ACK / Block ACK"),
    Key(_WLAN, "preamble", "preset", "duration", "PLCP preamble + header time"),
    Key(_WLAN, "ampdu", "preset", "bool", "A-MPDU aggregation with Block ACK (n/ac)"),
    Key(_WLAN, "ampdu_frames", "preset", "frames", "most MPDUs per A-MPDU"),
    Key(_WLAN, "ampdu_bytes", "preset", "bytes", "largest A-MPDU"),
    Key(_WLAN, "ampdu_time", "preset", "duration", "longest PPDU"),
    Key(_WLAN, "queue", "preset", "packets or bytes", "each station's transmit queue"),
    Key(_WLAN, "node_queue", "unlimited", "packets", "what a node holds over all its "
        "destinations' queues (ns-3's shared WifiMacQueue: 500pkt)"),
    Key(_WLAN, "schedule", "round_robin", "\"round_robin\" | \"fcfs\"", "which destination's "
        "queue an access serves: round robin (mac80211) or oldest head first (ns-3)"),
    Key(_WLAN, "mcs", "n: 15, ac: 9", "integer", "802.11n/ac data PHY from the HT (0-31) or "
        "VHT (0-9) MCS; exclusive with data_rate"),
    Key(_WLAN, "streams", "2", "1-4", "802.11ac: spatial streams of the VHT MCS"),
    Key(_WLAN, "channel_width", "n: 40, ac: 80", "MHz", "20/40 (HT), 20/40/80/160 (VHT)"),
    Key(_WLAN, "guard_interval", "400ns", "\"400ns\" | \"800ns\"", "HT/VHT guard interval"),
    Key(_WLAN, "rate_control", "fixed", "\"fixed\" | \"minstrel\"",
        "802.11n/ac: Minstrel-HT style MCS adaptation"),
    Key(_WLAN, "snr", "none", "dB", "frame errors from the SNR (ns-3's NIST model), on top of per"),
    Key(_WLAN, "reorder", "true with A-MPDU", "bool", "Block Ack receive reordering"),
    Key(_WLAN, "reorder_timeout", "100ms", "duration", "the recipient's reorder timeout "
        "(mac80211)"),
    Key(_WLAN, "station_ampdu", "true with A-MPDU", "bool", "false: stations send one MPDU "
        "per access (the AP still aggregates)"),
    Key(_CODED, "coding", "{}", "table of numbers", "coding parameters: redundancy, window, "
        "payload, ... (docs/coded-transports.md); tcp-nc also reads the TCP sender's keys, "
        "tcp-forward cc (vegas), cc_params, mtu, mss, initial_cwnd"),
)


def congestion_controls() -> list[str]:
    """The names ``cc = "..."`` accepts (built-ins, aliases included)."""
    return list(_tcplab.congestion_controls())


def transports() -> list[str]:
    """The names ``transport = "..."`` accepts (built-ins, then registered ones)."""
    return list(_tcplab.transports())


def studies() -> dict[str, str]:
    """Published studies ``tcplab reproduce`` re-runs: name -> description."""
    from tcplab import reproduce

    return {n: reproduce.get(n).DESCRIPTION for n in reproduce.STUDIES}


def scenario_keys() -> list[Key]:
    """Every scenario key with its section, default, unit and meaning."""
    return list(KEYS)


def describe(what: str = "all") -> str:
    """The text of ``tcplab list [what]``."""
    parts = []
    if what in ("all", "controllers"):
        parts.append("# congestion controllers (cc = ...)")
        parts += [f"  {n:16} {CONTROLLERS.get(n, 'registered')}" for n in congestion_controls()]
    if what in ("all", "transports"):
        parts.append("# transports (transport = ...)")
        parts += [f"  {n:16} {TRANSPORTS.get(n, 'registered')}" for n in transports()]
    if what in ("all", "studies"):
        parts.append("# studies (tcplab reproduce NAME)")
        parts += [f"  {n:24} {d}" for n, d in studies().items()]
    if what in ("all", "keys"):
        parts.append("# scenario keys (default; unit): see docs/scenarios.md")
        section = None
        for k in KEYS:
            if k.section != section:
                section = k.section
                parts.append(f"[{section}]")
            parts.append(f"  {k.key:18} {k.default} ; {k.unit} : {k.meaning}")
    return "\n".join(parts)


def listing(what: str = "all") -> dict[str, Any]:
    """What ``tcplab list [what] --json`` prints: the same catalogue as data."""
    doc: dict[str, Any] = {}
    if what in ("all", "controllers"):
        doc["controllers"] = {n: CONTROLLERS.get(n, "registered") for n in congestion_controls()}
    if what in ("all", "transports"):
        doc["transports"] = {n: TRANSPORTS.get(n, "registered") for n in transports()}
    if what in ("all", "studies"):
        doc["studies"] = studies()
    if what in ("all", "keys"):
        doc["keys"] = [{"section": k.section, "key": k.key, "default": k.default,
                        "unit": k.unit, "meaning": k.meaning} for k in KEYS]
    return doc
