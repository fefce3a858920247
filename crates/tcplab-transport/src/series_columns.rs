//! The `flow_series` columns more than one transport's endpoints publish from `sample`,
//! declared once: a TCP sender's state (TACK's and TCP-Forward's senders publish the
//! same names), a sink's delivered bytes, a coded source's symbol count. Columns only
//! one transport has are declared beside its `sample`.

use tcplab_core::ColumnDef;

pub const CWND: ColumnDef = ColumnDef::new("cwnd", "B", "congestion window").at_least(0.0);
pub const SSTHRESH: ColumnDef =
    ColumnDef::new("ssthresh", "B", "slow-start threshold (null: not yet set)").at_least(0.0);
pub const SRTT: ColumnDef = ColumnDef::new("srtt_s", "s", "smoothed RTT (RFC 6298)").at_least(0.0);
pub const RTT: ColumnDef = ColumnDef::new(
    "rtt_s",
    "s",
    "latest RTT sample (null before the first; Karn's rule: none from retransmitted segments)",
)
.at_least(0.0);
pub const RTO: ColumnDef = ColumnDef::new("rto_s", "s", "retransmission timeout").at_least(0.0);
pub const IN_FLIGHT: ColumnDef = ColumnDef::new(
    "in_flight",
    "B",
    "bytes in flight (SACK recovery: the RFC 6675 pipe)",
)
.at_least(0.0);
pub const PACING_RATE: ColumnDef =
    ColumnDef::new("pacing_rate_bps", "bit/s", "pacing rate (null: not paced)").at_least(0.0);
pub const STATE: ColumnDef = ColumnDef::new(
    "state",
    "",
    "`recovery` during fast recovery, else the controller's state",
);
pub const RTOS: ColumnDef =
    ColumnDef::new("rtos", "", "retransmission timeouts so far (cumulative)").at_least(0.0);
pub const FAST_RETRANSMITS: ColumnDef = ColumnDef::new(
    "fast_retransmits",
    "",
    "fast retransmits so far (cumulative)",
)
.at_least(0.0);

/// What a TCP sender's `sample` writes (`tcp/endpoint.rs`; the UDP driver's and the
/// kernel tool's rows too), in its order.
pub const TCP_SENDER: [ColumnDef; 10] = [
    CWND,
    SSTHRESH,
    SRTT,
    RTT,
    RTO,
    IN_FLIGHT,
    PACING_RATE,
    STATE,
    RTOS,
    FAST_RETRANSMITS,
];

/// Every sink's (and a TCP receiver's) in-order bytes.
pub const DELIVERED: ColumnDef = ColumnDef::new(
    "delivered",
    "B",
    "bytes the receiver delivered in order so far",
)
.at_least(0.0);

/// A coded source's symbols (TCP/NC and TCP-Forward).
pub const SYMBOLS_SENT: ColumnDef = ColumnDef::new(
    "symbols_sent",
    "symbols",
    "coded packets sent so far (cumulative)",
)
.at_least(0.0);
