//! A TCP sender's columns of the flows table, as a typed struct: the simulated sender
//! fills it from its statistics, the kernel tool from `TCP_INFO`, and both publish the
//! same columns through [`TcpSummary::publish`].

use crate::retransmissions::Retransmissions;
use tcplab_core::{ColumnDef, Metrics};

/// What a TCP sender reports at the end of a flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpSummary<'a> {
    /// Loss recovery: `reno`, `newreno`, `sack` (`kernel` for the Linux stack).
    pub recovery: &'a str,
    pub segments: Retransmissions,
    pub rtos: u64,
    pub fast_retransmits: u64,
    pub tlp_probes: u64,
    /// SYNs sent again; `None` where the driver cannot see them (the kernel).
    pub syn_retransmits: Option<u64>,
    /// When the SYN-ACK arrived, seconds; `None` without a handshake or where unknown.
    pub established_s: Option<f64>,
    pub rack_lost: u64,
    pub undos: u64,
    /// Window cuts answering ECN-Echo; `None` where the driver cannot see them (the kernel).
    pub ecn_cuts: Option<u64>,
    pub rtt_min_s: Option<f64>,
    pub rtt_mean_s: Option<f64>,
    pub rtt_max_s: Option<f64>,
}

/// Every receiver's count of the acknowledgements it sent (TCP's, TACK's, the coded
/// sinks', the UDP driver's peer).
pub const ACKS_SENT: ColumnDef =
    ColumnDef::new("acks_sent", "", "acknowledgements the receiver sent").at_least(0.0);

pub const CE_RECEIVED: ColumnDef = ColumnDef::new(
    "ce_received",
    "",
    "data segments that arrived marked CE (ECN on)",
)
.at_least(0.0);

/// The columns a TCP receiver's `summary` writes (`tcp/endpoint.rs`), in its order.
pub const RECEIVER_COLUMNS: [ColumnDef; 2] = [ACKS_SENT, CE_RECEIVED];

impl TcpSummary<'_> {
    pub const RECOVERY: ColumnDef = ColumnDef::new(
        "recovery",
        "",
        "loss recovery: `reno`, `newreno` or `sack` (TCP flows)",
    );

    /// Also published by TACK's sender (its own count).
    pub const RTOS: ColumnDef = ColumnDef::new("rtos", "", "retransmission timeouts").at_least(0.0);

    /// Also published by TACK's and TCP-Forward's senders.
    pub const RTT_MIN: ColumnDef =
        ColumnDef::new("rtt_min_s", "s", "smallest RTT sample").at_least(0.0);
    pub const FAST_RETRANSMITS: ColumnDef = ColumnDef::new(
        "fast_retransmits",
        "",
        "fast retransmits (window cuts on loss)",
    )
    .at_least(0.0);
    pub const TLP_PROBES: ColumnDef =
        ColumnDef::new("tlp_probes", "", "RACK-TLP tail loss probes sent").at_least(0.0);
    pub const SYN_RETRANSMITS: ColumnDef = ColumnDef::new(
        "syn_retransmits",
        "",
        "SYNs sent again after the SYN timer expired",
    )
    .at_least(0.0);
    pub const ESTABLISHED: ColumnDef = ColumnDef::new(
        "established_s",
        "s",
        "when the SYN-ACK arrived (TCP with handshake)",
    )
    .at_least(0.0);
    pub const RACK_LOST: ColumnDef =
        ColumnDef::new("rack_lost", "segments", "segments RACK marked lost").at_least(0.0);
    pub const UNDOS: ColumnDef =
        ColumnDef::new("undos", "", "window reductions found spurious and undone").at_least(0.0);
    pub const ECN_CUTS: ColumnDef = ColumnDef::new(
        "ecn_cuts",
        "",
        "window reductions answering an ECN-Echo (RFC 3168)",
    )
    .at_least(0.0);
    pub const RTT_MEAN: ColumnDef =
        ColumnDef::new("rtt_mean_s", "s", "mean RTT sample").at_least(0.0);
    pub const RTT_MAX: ColumnDef =
        ColumnDef::new("rtt_max_s", "s", "largest RTT sample").at_least(0.0);

    /// The columns [`TcpSummary::publish`] writes after `recovery` and the
    /// [`Retransmissions`] columns, in its order.
    pub const COLUMNS: [ColumnDef; 11] = [
        Self::RTOS,
        Self::FAST_RETRANSMITS,
        Self::TLP_PROBES,
        Self::SYN_RETRANSMITS,
        Self::ESTABLISHED,
        Self::RACK_LOST,
        Self::UNDOS,
        Self::ECN_CUTS,
        Self::RTT_MIN,
        Self::RTT_MEAN,
        Self::RTT_MAX,
    ];

    /// Every column [`TcpSummary::publish`] writes, in its order.
    pub fn columns() -> impl Iterator<Item = ColumnDef> {
        std::iter::once(Self::RECOVERY)
            .chain(Retransmissions::COLUMNS)
            .chain(Self::COLUMNS)
    }

    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put(&Self::RECOVERY, self.recovery.into());
        self.segments.publish(out);
        out.put(&Self::RTOS, self.rtos.into());
        out.put(&Self::FAST_RETRANSMITS, self.fast_retransmits.into());
        out.put(&Self::TLP_PROBES, self.tlp_probes.into());
        out.put(&Self::SYN_RETRANSMITS, self.syn_retransmits.into());
        out.put(&Self::ESTABLISHED, self.established_s.into());
        out.put(&Self::RACK_LOST, self.rack_lost.into());
        out.put(&Self::UNDOS, self.undos.into());
        out.put(&Self::ECN_CUTS, self.ecn_cuts.into());
        out.put(&Self::RTT_MIN, self.rtt_min_s.into());
        out.put(&Self::RTT_MEAN, self.rtt_mean_s.into());
        out.put(&Self::RTT_MAX, self.rtt_max_s.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};
    use crate::tcp::{Sender, SenderConfig};
    use crate::Endpoint;
    use tcplab_core::metrics::Collected;

    fn keys(c: &Collected) -> Vec<&'static str> {
        c.values.iter().map(|(k, _)| *k).collect()
    }

    /// The simulated sender's summary is exactly this struct's columns, so the kernel
    /// tool's rows (which publish a `TcpSummary` too) cannot drift from it.
    #[test]
    fn the_sender_publishes_the_summary_columns() {
        let s = Sender::new(
            0,
            SenderConfig::default(),
            Controller::NewReno(NewReno::default()),
        );
        let mut from_sender = Collected::default();
        s.summary(&mut from_sender);
        let mut from_struct = Collected::default();
        TcpSummary::default().publish(&mut from_struct);
        assert_eq!(keys(&from_sender), keys(&from_struct));
        let declared: Vec<&str> = TcpSummary::columns().map(|c| c.name).collect();
        assert_eq!(
            keys(&from_struct),
            declared,
            "the declared columns, in order"
        );
        assert_eq!(from_sender.get("retransmission_ratio"), Some("0"));
    }

    #[test]
    fn the_ratio_is_retransmitted_over_sent() {
        let r = Retransmissions {
            segments_sent: 200,
            retransmitted_segments: 5,
        };
        assert_eq!(r.ratio(), 0.025);
        assert_eq!(Retransmissions::default().ratio(), 0.0);
    }
}
