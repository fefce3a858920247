//! A TCP sender's columns of the flows table, as a typed struct: the simulated sender
//! fills it from its statistics, the kernel tool from `TCP_INFO`, and both publish the
//! same columns through [`TcpSummary::publish`].

use crate::retransmissions::Retransmissions;
use tcplab_core::Metrics;

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

impl TcpSummary<'_> {
    /// Publishes the columns, in the table's order.
    pub fn publish(&self, out: &mut dyn Metrics) {
        out.put("recovery", self.recovery.into());
        self.segments.publish(out);
        out.put("rtos", self.rtos.into());
        out.put("fast_retransmits", self.fast_retransmits.into());
        out.put("tlp_probes", self.tlp_probes.into());
        out.put("syn_retransmits", self.syn_retransmits.into());
        out.put("established_s", self.established_s.into());
        out.put("rack_lost", self.rack_lost.into());
        out.put("undos", self.undos.into());
        out.put("ecn_cuts", self.ecn_cuts.into());
        out.put("rtt_min_s", self.rtt_min_s.into());
        out.put("rtt_mean_s", self.rtt_mean_s.into());
        out.put("rtt_max_s", self.rtt_max_s.into());
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
