"""The results columns: unit, meaning and valid range of every column of every table.

This is the one reference: :class:`tcplab.Result` stamps it on the Arrow schema (field
metadata ``unit`` and ``description``, kept in Parquet files), summaries use the ranges
to keep confidence intervals valid, and ``docs/results.md`` is generated from it
(``python -m tcplab.columns``; a test checks the file is current).

The columns every flow has (``FlowOutcome`` in tcplab-scenario) and a TCP sender's
(``TcpSummary`` and ``Retransmissions`` in tcplab-transport) are declared in Rust beside
the code that publishes them and read here through the binding (``_tcplab.columns()``);
the entries below are the columns that have no Rust declaration yet, and may not
redefine one.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from tcplab import _tcplab


class Column(NamedTuple):
    """One column: its unit ("" for labels and counts of things), meaning and valid range."""

    unit: str
    description: str
    low: float = -math.inf
    high: float = math.inf


_RUN = {
    "scenario": Column("", "scenario name (`name` key or file stem)"),
    "seed": Column("", "master seed of the run", 0),
    "replication": Column("", "replication index under that seed", 0),
}
#: table → column → :class:`Column`, as declared in Rust (in the order a row writes them).
RUST_COLUMNS: dict[str, dict[str, Column]] = {
    table: {name: Column(unit, description, low, high)
            for name, unit, description, low, high in cols}
    for table, cols in _tcplab.columns()}


def _after_rust(table: str, extra: dict[str, Column]) -> dict[str, Column]:
    """The Rust-declared columns of `table`, then `extra` (the columns declared here),
    which may not redefine one of them."""
    rust = RUST_COLUMNS.get(table, {})
    twice = sorted(set(rust) & set(extra))
    if twice:
        raise RuntimeError(f"tcplab.columns: {table} columns {twice} are declared in Rust; "
                           "declare each once")
    return {**rust, **extra}


_FRACTION = (0.0, 1.0)
_NONNEG = (0.0, math.inf)

#: table → column → :class:`Column`.
COLUMNS: dict[str, dict[str, Column]] = {
    "flows": {
        **_RUN,
        **_after_rust("flows", {
            "packets_sent": Column("packets", "packets the source sent (incl. retransmissions)", 0),
            "packets_delivered": Column("packets", "source packets that reached the sink", 0),
            "packets_lost": Column("packets", "source packets dropped on the way", 0),
            "packets_in_flight": Column("packets", "source packets still in the network at the end",
                                        0),
            "acks_sent": Column("", "ACKs the TCP receiver sent", 0),
            "ce_received": Column("", "data segments that arrived marked CE (ECN on)", 0),
            "packets_reordered": Column("packets", "datagrams that arrived after a later one", 0),
            "owd_min_s": Column("s", "smallest one-way delay of a datagram", 0),
            "owd_mean_s": Column("s", "mean one-way delay of the datagrams", 0),
            "owd_p50_s": Column("s", "median one-way delay", 0),
            "owd_p95_s": Column("s", "95th percentile one-way delay", 0),
            "owd_p99_s": Column("s", "99th percentile one-way delay", 0),
            "owd_max_s": Column("s", "largest one-way delay", 0),
            "loss_events": Column("", "TACK: losses the sender learned of from ACKs", 0),
            "tacks_received": Column("", "TACK: periodic ACKs the sender received", 0),
            "iacks_received": Column("", "TACK: instant ACKs the sender received", 0),
            "ack_path_loss": Column("", "TACK: share of ACKs lost on the way back", *_FRACTION),
            "rtt_min_legacy_s": Column("s", "TACK: RTT_min by legacy ACK timing (comparison)", 0),
            "tacks_sent": Column("", "TACK: periodic ACKs the receiver sent", 0),
            "iacks_loss": Column("", "TACK: instant ACKs on a loss (a gap still open after the "
                                    "IACK delay)", 0),
            "iacks_window": Column("", "TACK: instant ACKs on a window update", 0),
            "blocked_mean_bytes": Column("bytes", "TACK: mean of the bytes blocked out of order "
                                         "in the receive buffer when a TACK was sent", 0),
            "blocked_max_bytes": Column("bytes", "TACK: most bytes blocked out of order when a "
                                        "TACK was sent", 0),
            "blocked_hist": Column("", "TACK: TACKs sent per quantity of blocked bytes, 41 "
                                   "counts separated by spaces: nothing blocked, then quarter "
                                   "decades from 1 byte (bin k >= 1: 10^((k-1)/4) to 10^(k/4) "
                                   "bytes)"),
            # Coded transports (tcp-nc, tcp-forward; docs/coded-transports.md).
            "coding": Column("", "the code: `rlnc` (tcp-nc) or `lt` (tcp-forward)"),
            "payload_mode": Column("", "real bytes were coded and checked (`coding.payload`)"),
            "symbols_sent": Column("symbols", "coded packets the source sent", 0),
            "repair_symbols": Column("symbols", "tcp-forward: symbols sent on a Diff_p timeout",
                                     0),
            "coded_segments": Column("segments", "segments that entered the coding buffer", 0),
            "segments_handed_down": Column("segments", "tcp-nc: segments TCP handed to the "
                                           "coding layer (retransmissions included)", 0),
            "redundancy": Column("", "R: the configured (tcp-nc) or final adaptive "
                                 "(tcp-forward) redundancy", 1),
            "redundancy_measured": Column("", "symbols sent per segment coded", 0),
            "n_segments": Column("segments", "tcp-forward: N_segments of the adaptive R", 0),
            "n_timeout": Column("segments", "tcp-forward: N_timeout of the adaptive R", 0),
            "timeout_events": Column("", "tcp-forward: Diff_p timeouts (repair bursts)", 0),
            "coding_window": Column("segments", "coding window limit (tcp-nc 0: unbounded)", 0),
            "min_elapsed_s": Column("s", "tcp-forward: shortest time a segment spent in the "
                                    "coding window (minE of the Diff_p test)", 0),
            "encode_busy_s": Column("s", "CPU time the source spent encoding (cost model)", 0),
            "symbols_received": Column("symbols", "coded packets that reached the sink", 0),
            "innovative_symbols": Column("symbols", "tcp-nc: received combinations that "
                                         "raised the rank", 0),
            "redundant_symbols": Column("symbols", "received symbols that taught nothing new",
                                        0),
            "decode_events": Column("", "symbols that decoded at least one segment", 0),
            "segments_decoded": Column("segments", "segments the sink decoded", 0),
            "decode_delay_mean_s": Column("s", "mean time from a segment's first symbol to its "
                                          "decode", 0),
            "decode_delay_max_s": Column("s", "largest such decoding delay", 0),
            "first_decode_s": Column("s", "when the first segment was decoded", 0),
            "latency_mean_s": Column("s", "mean end-to-end latency: from a segment's entry into "
                                     "the sender's coding layer to its decode (encoding, "
                                     "transfer and decoding)", 0),
            "latency_max_s": Column("s", "largest such end-to-end latency", 0),
            "decode_busy_s": Column("s", "CPU time the sink spent decoding (cost model)", 0),
        }),
    },
    "links": {
        **_RUN,
        "link": Column("", "link name"),
        "direction": Column("", "`fwd` (a → b), `rev`, `shared` (half-duplex), or a WLAN "
                            "cell's node name"),
        "offered_pkts": Column("packets", "packets offered to the link direction", 0),
        "sent_pkts": Column("packets", "packets admitted and transmitted", 0),
        "sent_bytes": Column("B", "wire bytes transmitted (headers included)", 0),
        "delivered_pkts": Column("packets", "packets that reached the far end", 0),
        "dropped_queue": Column("packets", "drop-tail drops (queue full); with a queue "
                                "discipline, all of its drops (`dropped_limit` + "
                                "`dropped_aqm`)", 0),
        "dropped_loss": Column("packets", "drops by the loss model", 0),
        "dropped_down": Column("packets", "packets lost to an outage", 0),
        "max_queue_pkts": Column("packets", "longest queue seen", 0),
        "dropped_limit": Column("packets", "discipline: drops at the queue's limit "
                                "(FQ-CoDel: from the fattest flow)", 0),
        "dropped_aqm": Column("packets", "discipline: drops by its algorithm (RED/PIE "
                              "early drops, CoDel dequeue drops)", 0),
        "marked_ce": Column("packets", "discipline: ECN-capable packets marked CE "
                            "instead of dropped", 0),
        "sojourn_p50_ms": Column("ms", "discipline: median time packets waited before "
                                 "transmission (log-linear histogram, within 3 %)", 0),
        "sojourn_p95_ms": Column("ms", "discipline: 95th percentile of that wait", 0),
        "sojourn_p99_ms": Column("ms", "discipline: 99th percentile of that wait", 0),
        "dropped_retry": Column("packets", "WLAN: frames dropped after the retry limit", 0),
        "tx_attempts": Column("", "WLAN: channel accesses (transmissions incl. collided)", 0),
        "collisions": Column("", "WLAN: accesses that collided", 0),
        "mpdus_sent": Column("frames", "WLAN: MPDUs transmitted", 0),
        "retries": Column("", "WLAN: retransmitted frames", 0),
        "mpdu_errors": Column("frames", "WLAN: MPDUs lost to frame errors (PER)", 0),
        "reorder_held": Column("frames", "WLAN: the node's MPDUs the recipient's Block Ack "
                               "reordering buffer held behind a gap", 0),
        "phy_rate_mean_bps": Column("bit/s", "WLAN: mean PHY rate of the MPDUs the node sent "
                                    "(varies under rate_control = \"minstrel\")", 0),
        "reorder_late": Column("packets", "WLAN: the node's MPDUs discarded as arriving after "
                               "their gap's reorder timeout", 0),
        "ampdu_mean": Column("frames", "WLAN: mean MPDUs per successful access", 0),
        "airtime_s": Column("s", "WLAN: the node's airtime (its exchanges incl. MAC ACKs)", 0),
        "ack_airtime_s": Column("s", "WLAN: airtime of frames carrying no payload "
                                "(transport ACKs)", 0),
        "airtime_share": Column("", "WLAN: airtime / busy time of the channel", 0),
        "ack_airtime_share": Column("", "WLAN: ACK airtime / busy time of the channel", 0),
        "busy_s": Column("s", "WLAN: time the channel was busy", 0),
        "collision_s": Column("s", "WLAN: time lost to collisions", 0),
    },
    "flow_series": {
        **_RUN,
        "t_s": Column("s", "sample time", 0),
        "flow": Column("", "flow index", 0),
        "cwnd": Column("B", "congestion window", 0),
        "ssthresh": Column("B", "slow-start threshold (null: not yet set)", 0),
        "srtt_s": Column("s", "smoothed RTT (RFC 6298)", 0),
        "rtt_s": Column("s", "latest RTT sample (null before the first; Karn's rule: "
                        "none from retransmitted segments)", 0),
        "rto_s": Column("s", "retransmission timeout", 0),
        "in_flight": Column("B", "bytes in flight (SACK recovery: the RFC 6675 pipe)", 0),
        "pacing_rate_bps": Column("bit/s", "pacing rate (null: not paced)", 0),
        "state": Column("", "`recovery` during fast recovery, else the controller's state"),
        "rtos": Column("", "retransmission timeouts so far (cumulative)", 0),
        "fast_retransmits": Column("", "fast retransmits so far (cumulative)", 0),
        "delivered": Column("B", "bytes the receiver delivered in order so far", 0),
        "sent": Column("B", "bytes a datagram source sent so far", 0),
        "rtt_min_s": Column("s", "TACK: the sender's RTT_min (one-way-delay based)", 0),
        "rtt_min_legacy_s": Column("s", "TACK: RTT_min by legacy ACK timing", 0),
        "tack_bw_bps": Column("bit/s", "TACK: the receiver's delivery-rate estimate", 0),
        "tack_hz": Column("Hz", "TACK: the receiver's current TACK frequency", 0),
        "redundancy": Column("", "tcp-forward: adaptive R", 1),
        "symbols_sent": Column("symbols", "coded packets sent so far (cumulative)", 0),
        "coding_buffer": Column("segments", "tcp-forward: segments coded, not yet "
                                "acknowledged", 0),
        "buffered_symbols": Column("symbols", "tcp-forward: symbols the peeling decoder "
                                   "holds undecoded", 0),
        "undecoded_rows": Column("", "tcp-nc: combinations held, not yet decoded", 0),
    },
    "link_series": {
        **_RUN,
        "t_s": Column("s", "sample time", 0),
        "link": Column("", "link name"),
        "direction": Column("", "`fwd`, `rev` or `shared`"),
        "queue_pkts": Column("packets", "packets waiting for the transmitter", 0),
        "queue_bytes": Column("B", "bytes waiting for the transmitter", 0),
        "delivered_bytes": Column("B", "wire bytes delivered so far (cumulative)", 0),
        "dropped_queue": Column("packets", "drop-tail drops so far (cumulative)", 0),
        "dropped_loss": Column("packets", "loss-model drops so far (cumulative)", 0),
        "dropped_down": Column("packets", "outage drops so far (cumulative)", 0),
        "dropped_aqm": Column("packets", "discipline: algorithm drops so far (cumulative)",
                              0),
        "marked_ce": Column("packets", "discipline: CE marks so far (cumulative)", 0),
        "codel_dropping": Column("", "CoDel: 1 while in its dropping state", 0, 1),
        "codel_count": Column("", "CoDel: drops in the current (or last) dropping state",
                              0),
        "pie_drop_prob": Column("", "PIE: drop probability", 0, 1),
        "red_avg_pkts": Column("packets", "RED: average queue (EWMA)", 0),
        "fq_flows_active": Column("", "FQ-CoDel: flows on the new or old list", 0),
        "dropped_retry": Column("packets", "WLAN: retry-limit drops so far", 0),
        "collisions": Column("", "WLAN: collisions so far", 0),
        "airtime_s": Column("s", "WLAN: airtime so far", 0),
    },
    "packets": {
        "t_s": Column("s", "wall-clock time of the event since the emulation started", 0),
        "direction": Column("", "`fwd` (namespace → host) or `rev`"),
        "event": Column("", "`arrive`, `depart`, `drop_queue` (full queue or the "
                        "discipline's drop), `drop_loss`, `drop_down` or `drop_write`"),
        "bytes": Column("B", "IP packet length", 0),
        "delay_ns": Column("ns", "departures: time from arrival to departure (queue + "
                           "serialisation + propagation); else 0", 0),
        "late_ns": Column("ns", "departures: how late the packet left after the time the "
                          "link model gave it (the emulator's own error); else 0", 0),
        "ecn": Column("", "the packet's IP ECN field at the event: `not-ect`, `ect1`, `ect0` "
                      "or `ce` (a departure shows the queue discipline's mark); empty when "
                      "the packet is not at hand"),
    },
    "cc_trace": {
        **_RUN,
        "t_s": Column("s", "sample time", 0),
        "flow": Column("", "flow index", 0),
        "key": Column("", "controller variable (see docs/scenarios.md per controller)"),
        "value": Column("", "its value, in the unit its name gives (`_s` seconds, `_bps`...)"),
    },
}

#: The columns a sweep adds to each flows row.
SWEEP_COLUMNS = {
    "events": Column("", "events the simulator processed in the run", 0),
}


def lookup(name: str, table: str = "flows") -> Column | None:
    """The reference entry of a column (None if the column is not documented)."""
    return COLUMNS.get(table, {}).get(name) or SWEEP_COLUMNS.get(name)


def valid_range(name: str, table: str = "flows") -> tuple[float, float]:
    """The range a column's values (and so their intervals) must lie in."""
    c = lookup(name, table)
    return (c.low, c.high) if c else (-math.inf, math.inf)


#: How to show a unit to a person: (scale, unit shown).
_DISPLAY = {"bit/s": (1e-6, "Mbit/s"), "s": (1.0, "s"), "B": (1e-6, "MB")}


def display(name: str, table: str = "flows") -> tuple[float, str]:
    """Scale and unit for showing a column (goodput in Mbit/s, bytes in MB, ratios in %)."""
    c = lookup(name, table)
    if c is None:
        return 1.0, ""
    if name.endswith("_ratio"):
        return 100.0, "%"
    return _DISPLAY.get(c.unit, (1.0, c.unit))


def with_metadata(name: str, table):
    """Table `name` (a pyarrow.Table) with each documented field's unit and description as
    field metadata (kept when written to Parquet)."""
    import pyarrow as pa

    ref = COLUMNS.get(name, {})
    fields = []
    for f in table.schema:
        c = ref.get(f.name)
        if c is not None:
            f = f.with_metadata({"unit": c.unit, "description": c.description})
        fields.append(f)
    meta = {"tcplab.table": name, "tcplab.reference": "docs/results.md"}
    return table.cast(pa.schema(fields, metadata=meta))


def markdown() -> str:
    """The reference as Markdown (the body of docs/results.md)."""
    out = []
    for table, cols in COLUMNS.items():
        out.append(f"### `{table}`\n\n| column | unit | meaning | valid range |\n|---|---|---|---|")
        for name, c in cols.items():
            rng = "" if (c.low, c.high) == (-math.inf, math.inf) else _range(c)
            out.append(f"| `{name}` | {c.unit} | {c.description} | {rng} |")
        out.append("")
    return "\n".join(out)


def _range(c: Column) -> str:
    hi = "∞" if c.high == math.inf else f"{c.high:g}"
    return f"[{c.low:g}, {hi}{')' if c.high == math.inf else ']'}"


if __name__ == "__main__":  # pragma: no cover
    print(markdown())
