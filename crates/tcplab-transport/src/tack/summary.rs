//! TACK's columns of the flows table, as typed structs.

use crate::retransmissions::Retransmissions;
use tcplab_core::Metrics;

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
    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        self.packets.publish(out);
        out.put("rtos", self.rtos.into());
        out.put("loss_events", self.loss_events.into());
        out.put("tacks_received", self.tacks_received.into());
        out.put("iacks_received", self.iacks_received.into());
        out.put("ack_path_loss", self.ack_path_loss.into());
        out.put("rtt_min_s", self.rtt_min_s.into());
        out.put("rtt_min_legacy_s", self.rtt_min_legacy_s.into());
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
    /// Publishes the columns, in the table's order (`acks_sent` is their sum).
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(
            "acks_sent",
            (self.tacks_sent + self.iacks_loss + self.iacks_window).into(),
        );
        out.put("tacks_sent", self.tacks_sent.into());
        out.put("iacks_loss", self.iacks_loss.into());
        out.put("iacks_window", self.iacks_window.into());
        out.put("blocked_mean_bytes", self.blocked_mean_bytes.into());
        out.put("blocked_max_bytes", self.blocked_max_bytes.into());
        out.put("blocked_hist", self.blocked_hist.as_str().into());
    }
}
