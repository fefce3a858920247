//! TACK's columns of the flows table, as typed structs.

use crate::retransmissions::Retransmissions;
use crate::tcp::{TcpSummary, ACKS_SENT};
use tcplab_core::{ColumnDef, Metrics};

/// What a TACK sender reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TackSenderSummary {
    /// Packets sent and retransmitted (`retransmission_ratio` with them).
    pub packets: Retransmissions,
    pub rtos: u64,
    pub loss_events: u64,
    pub tacks_received: u64,
    pub iacks_received: u64,
    /// Share of TACKs lost on the way back (`None` before any).
    pub ack_path_loss: Option<f64>,
    pub rtt_min_s: Option<f64>,
    pub rtt_min_legacy_s: Option<f64>,
}

impl TackSenderSummary {
    pub const LOSS_EVENTS: ColumnDef = ColumnDef::new(
        "loss_events",
        "",
        "TACK: losses the sender learned of from ACKs",
    )
    .at_least(0.0);
    pub const TACKS_RECEIVED: ColumnDef = ColumnDef::new(
        "tacks_received",
        "",
        "TACK: periodic ACKs the sender received",
    )
    .at_least(0.0);
    pub const IACKS_RECEIVED: ColumnDef = ColumnDef::new(
        "iacks_received",
        "",
        "TACK: instant ACKs the sender received",
    )
    .at_least(0.0);
    pub const ACK_PATH_LOSS: ColumnDef = ColumnDef::new(
        "ack_path_loss",
        "",
        "TACK: share of ACKs lost on the way back",
    )
    .within(0.0, 1.0);
    pub const RTT_MIN_LEGACY: ColumnDef = ColumnDef::new(
        "rtt_min_legacy_s",
        "s",
        "TACK: RTT_min by legacy ACK timing (comparison)",
    )
    .at_least(0.0);

    /// The columns [`TackSenderSummary::publish`] writes after the [`Retransmissions`]
    /// columns, in its order: unit, meaning, range.
    pub const COLUMNS: [ColumnDef; 7] = [
        TcpSummary::RTOS,
        Self::LOSS_EVENTS,
        Self::TACKS_RECEIVED,
        Self::IACKS_RECEIVED,
        Self::ACK_PATH_LOSS,
        TcpSummary::RTT_MIN,
        Self::RTT_MIN_LEGACY,
    ];

    /// Every column [`TackSenderSummary::publish`] writes, in its order.
    pub fn columns() -> impl Iterator<Item = ColumnDef> {
        Retransmissions::COLUMNS.into_iter().chain(Self::COLUMNS)
    }

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        self.packets.publish(out);
        out.put(&TcpSummary::RTOS, self.rtos.into());
        out.put(&Self::LOSS_EVENTS, self.loss_events.into());
        out.put(&Self::TACKS_RECEIVED, self.tacks_received.into());
        out.put(&Self::IACKS_RECEIVED, self.iacks_received.into());
        out.put(&Self::ACK_PATH_LOSS, self.ack_path_loss.into());
        out.put(&TcpSummary::RTT_MIN, self.rtt_min_s.into());
        out.put(&Self::RTT_MIN_LEGACY, self.rtt_min_legacy_s.into());
    }
}

/// What a TACK receiver reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TackReceiverSummary {
    pub tacks_sent: u64,
    pub iacks_loss: u64,
    pub iacks_window: u64,
    /// Bytes blocked out of order when a TACK was sent: mean and most (`None` before any).
    pub blocked_mean_bytes: Option<f64>,
    pub blocked_max_bytes: Option<u64>,
    /// TACKs sent per quantity of blocked bytes, as text (`Blocked::to_text`).
    pub blocked_hist: String,
}

impl TackReceiverSummary {
    pub const TACKS_SENT: ColumnDef =
        ColumnDef::new("tacks_sent", "", "TACK: periodic ACKs the receiver sent").at_least(0.0);
    pub const IACKS_LOSS: ColumnDef = ColumnDef::new(
        "iacks_loss",
        "",
        "TACK: instant ACKs on a loss (a gap still open after the IACK delay)",
    )
    .at_least(0.0);
    pub const IACKS_WINDOW: ColumnDef =
        ColumnDef::new("iacks_window", "", "TACK: instant ACKs on a window update").at_least(0.0);
    pub const BLOCKED_MEAN_BYTES: ColumnDef = ColumnDef::new(
        "blocked_mean_bytes",
        "bytes",
        "TACK: mean of the bytes blocked out of order in the receive buffer when a TACK \
         was sent",
    )
    .at_least(0.0);
    pub const BLOCKED_MAX_BYTES: ColumnDef = ColumnDef::new(
        "blocked_max_bytes",
        "bytes",
        "TACK: most bytes blocked out of order when a TACK was sent",
    )
    .at_least(0.0);
    pub const BLOCKED_HIST: ColumnDef = ColumnDef::new(
        "blocked_hist",
        "",
        "TACK: TACKs sent per quantity of blocked bytes, 41 counts separated by spaces: \
         nothing blocked, then quarter decades from 1 byte (bin k >= 1: 10^((k-1)/4) to \
         10^(k/4) bytes)",
    );

    /// The columns [`TackReceiverSummary::publish`] writes, in its order.
    pub const COLUMNS: [ColumnDef; 7] = [
        ACKS_SENT,
        Self::TACKS_SENT,
        Self::IACKS_LOSS,
        Self::IACKS_WINDOW,
        Self::BLOCKED_MEAN_BYTES,
        Self::BLOCKED_MAX_BYTES,
        Self::BLOCKED_HIST,
    ];

    /// Publishes the columns, in the table's order (`acks_sent` is their sum).
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(
            &ACKS_SENT,
            (self.tacks_sent + self.iacks_loss + self.iacks_window).into(),
        );
        out.put(&Self::TACKS_SENT, self.tacks_sent.into());
        out.put(&Self::IACKS_LOSS, self.iacks_loss.into());
        out.put(&Self::IACKS_WINDOW, self.iacks_window.into());
        out.put(&Self::BLOCKED_MEAN_BYTES, self.blocked_mean_bytes.into());
        out.put(&Self::BLOCKED_MAX_BYTES, self.blocked_max_bytes.into());
        out.put(&Self::BLOCKED_HIST, self.blocked_hist.as_str().into());
    }
}
