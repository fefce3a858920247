"""Type stubs of the Rust extension ``tcplab._tcplab`` (crates/tcplab-py).

A test checks that every name and parameter here matches the compiled module.
"""

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot be run as written (file, key, value, why)."""

class InvariantError(RuntimeError):
    """A run broke a transport invariant (e.g. data lost or duplicated)."""

class SimulationPanic(RuntimeError):
    """An internal error (a Rust panic) in the simulator; please report it."""

class ParsedScenario:
    """A validated scenario, parsed once; runs, figures and traces share it."""

    source: str

    def summary(self) -> dict[str, Any]:
        """{name, flows, nodes, links, duration_s}."""

    def check_memory(self) -> None:
        """Raises ScenarioError when the run's estimated memory exceeds its memory_limit
        (default 80 % of this machine's memory), as `run` would before it starts."""

def parse_scenario(
    source: str, text: str | None = None, dict: dict[str, Any] | None = None
) -> tuple[ParsedScenario, dict[str, Any] | None]:
    """Parses and validates TOML text or a dict (exactly one); for text, also returns the
    document as a dict."""

def run(
    scenario: ParsedScenario,
    seed: int,
    replication: int = 0,
    time_limit_s: float | None = None,
    pcap_link: str | None = None,
    pcap_path: str | None = None,
    pcap_direction: str = "both",
    pcap_snaplen: int = 80,
) -> tuple[dict[str, Any], dict[str, pa.RecordBatch]]:
    """Simulates a scenario; returns (info, {table name: record batch}). Past
    `time_limit_s` of wall-clock time the run stops with TimeoutError. With `pcap_link`
    and `pcap_path` that link's packets are written there as pcapng (info["pcap"])."""

def congestion_controls() -> list[str]:
    """The names ``cc = "..."`` accepts: the built-in controllers (aliases included)."""

def transports() -> list[str]:
    """The names ``transport = "..."`` accepts: built-ins first, then registered ones."""

def columns() -> list[tuple[str, list[tuple[str, str, str, float, float]]]]:
    """Every results column a Rust component publishes, as declared beside its code: table →
    (name, unit, description, low, high), in the order a row writes them."""

def bench_run(source: str, text: str, seed: int) -> dict[str, Any]:
    """Times one simulation (wall_s, events, packet_hops, end_time_s); Ctrl-C stops it."""

def cancel_runs() -> None:
    """Stops every simulation running in this process now (on any thread) within a few
    milliseconds; each raises KeyboardInterrupt."""

def _panic_for_test() -> None: ...

# Units (tcplab_core::units)
def parse_duration(text: str) -> float:
    """A duration in seconds."""

def parse_rate(text: str) -> int:
    """A rate in bit/s."""

def parse_size(text: str) -> int:
    """A size in bytes."""

def parse_probability(text: str) -> float:
    """A probability as a fraction."""

def parse_quantity(text: str) -> tuple[str, float]:
    """(kind, value in base units); kind: number, duration, rate, size, probability."""

# Links over time
def link_timeline(scenario: ParsedScenario) -> list[dict[str, Any]]:
    """Each link's parameters and scheduled changes."""

def link_opportunities(
    scenario: ParsedScenario, link: str, direction: str, until_s: float
) -> list[int]:
    """Times (ns) of a link direction's delivery opportunities in [0, until_s)."""

def mahimahi_trace(
    scenario: ParsedScenario, link: str, direction: str, until_s: float
) -> str:
    """The same opportunities as Mahimahi trace text."""

# Erasure codes (tcplab-coding)
class LtEncoder:
    """LT encoder over one object (optionally TCP-Forward's sliding generations)."""

    num_source_symbols: int
    num_generations: int
    def __new__(
        cls,
        data: bytes,
        symbol_size: int,
        window: int | None = None,
        stride: int | None = None,
        distribution: str = "robust",
        c: float = 0.1,
        delta: float = 0.5,
        weights: Sequence[float] | None = None,
    ) -> LtEncoder: ...
    def generation_range(self, generation: int) -> tuple[int, int]: ...
    def neighbours(self, generation: int, seed: int) -> list[int]: ...
    def encode(self, generation: int, seed: int) -> bytes: ...

class LtDecoder:
    """Online peeling LT decoder."""

    is_complete: bool
    recovered_count: int
    num_source_symbols: int
    def __new__(
        cls,
        data_len: int,
        symbol_size: int,
        window: int | None = None,
        stride: int | None = None,
        distribution: str = "robust",
        c: float = 0.1,
        delta: float = 0.5,
        weights: Sequence[float] | None = None,
    ) -> LtDecoder: ...
    def receive(self, symbol: bytes) -> list[int]: ...
    def source(self, index: int) -> bytes | None: ...
    def data(self) -> bytes | None: ...
    def is_recovered(self, index: int) -> bool: ...
    def symbols_needed_estimate(self) -> int: ...
    def stats(self) -> dict[str, Any]: ...

class RlncEncoder:
    """RLNC encoder over GF(2^8) with a sliding coding window."""

    window: tuple[int, int]
    def __new__(cls, packet_size: int, capacity: int) -> RlncEncoder: ...
    def push(self, packet: bytes) -> int: ...
    def slide_to(self, start: int) -> None: ...
    def encode(self, seed: int) -> bytes: ...
    def encode_with_coefficients(self, coefficients: Sequence[int]) -> bytes: ...

class RlncDecoder:
    """Gauss-Jordan RLNC decoder reporting TCP/NC's seen packets."""

    rank: int
    base: int
    horizon: int
    def __new__(cls, packet_size: int, capacity: int) -> RlncDecoder: ...
    def receive(self, symbol: bytes) -> dict[str, Any]: ...
    def packet(self, index: int) -> bytes | None: ...
    def is_seen(self, index: int) -> bool: ...
    def is_decoded(self, index: int) -> bool: ...
    def first_unseen(self) -> int: ...
    def first_undecoded(self) -> int: ...
    def drop_below(self, boundary: int) -> int: ...
    def drop_decoded_prefix(self) -> int: ...
    def recode(self, seed: int) -> bytes: ...

# ---- real networks (crates/tcplab-net, crates/tcplab-py/src/net.rs)

class NetworkError(RuntimeError):
    """A real-network run failed: permissions, sockets, the peer, or lost data."""

def emulator_available() -> tuple[bool, str | None]:
    """(True, None) when the TUN emulator can run here, else (False, the reason)."""

def emulate(
    source: str,
    argv: Sequence[str],
    seed: int = 1,
    text: str | None = None,
    dict: dict[str, Any] | None = None,
    timeout_s: float | None = None,
    realtime: bool = True,
    packet_log: bool = True,
    tcp_ecn: int | None = None,
    pcap: str | None = None,
) -> tuple[dict[str, Any], dict[str, pa.RecordBatch], int]:
    """Runs argv in a namespace whose traffic crosses the scenario's link; (info, tables,
    exit code). Ctrl-C stops the command and the link: info["interrupted"]."""

def emulate_flow(
    source: str,
    mode: str,
    flow: int | None = None,
    seed: int = 1,
    kernel_cc: str | None = None,
    text: str | None = None,
    dict: dict[str, Any] | None = None,
    tcp_ecn: int | None = None,
    pcap: str | None = None,
) -> tuple[dict[str, Any], dict[str, pa.RecordBatch]]:
    """The scenario's flows through the emulator, on kernel TCP ("kernel") or tcplab over
    UDP ("udp"); (info, tables). `tcp_ecn`: net.ipv4.tcp_ecn in the namespace; `pcap`: a
    pcapng file of every packet leaving the link. Ctrl-C cuts the transfers short:
    info["interrupted"]."""

def udp_send(
    to: str,
    flow: dict[str, Any],
    source: str = "<send>",
    sample: str | None = None,
    connect_timeout_s: float = 5.0,
    realtime: bool = False,
    key: str | None = None,
) -> tuple[dict[str, Any], dict[str, pa.RecordBatch]]:
    """Sends one [[flow]] with tcplab's endpoints over UDP; (info, tables)."""

def udp_recv(
    listen: str,
    flow: dict[str, Any] | None = None,
    source: str = "<recv>",
    listen_timeout_s: float | None = None,
    realtime: bool = False,
    key: str | None = None,
) -> dict[str, Any]:
    """Receives one udp_send transfer; a summary."""

def tcp_send(
    to: str,
    cc: str = "cubic",
    bytes: str | None = None,
    duration: str | None = None,
    sample: str | None = "10ms",
    name: str = "kernel",
    ns_exclusive: bool = False,
) -> tuple[dict[str, Any], dict[str, pa.RecordBatch]]:
    """Kernel TCP bulk sender (TCP_CONGESTION = cc) with TCP_INFO series; (info, tables)."""

def tcp_recv(listen: str, timeout_s: float = 60.0) -> dict[str, Any]:
    """Kernel TCP receiver for one tcp_send; a summary."""
