//! TACK as an [`Endpoint`]: the sender is the flow's source, the receiver its sink.

use super::config::TackSpec;
use super::packet::TackPacket;
use super::receiver::TackReceiver;
use super::sender::TackSender;
use super::summary::{TackReceiverSummary, TackSenderSummary};
use crate::cc::{self, CongestionControl};
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::retransmissions::Retransmissions;
use crate::series_columns::{CWND, DELIVERED, IN_FLIGHT, PACING_RATE, RTO, RTOS, RTT, SRTT, STATE};
use tcplab_core::{ColumnDef, Dur, Metrics, Time, Value};

impl TackSpec {
    /// Builds the sender and receiver of flow `flow`.
    pub fn build(&self, flow: u32) -> Result<(TackSender, TackReceiver), String> {
        let controller = cc::build(&self.cc, &self.cc_params)?;
        Ok((
            TackSender::new(flow, self.cfg.clone(), controller),
            TackReceiver::new(flow, self.cfg.clone()),
        ))
    }
}

fn secs(d: Option<Dur>) -> Value<'static> {
    d.map(Dur::as_secs_f64).into()
}

fn foreign(flow: u32) -> Violation {
    Violation::ForeignPacket {
        flow,
        expected: "TACK",
    }
}

impl TackSender {
    pub const RTT_MIN: ColumnDef = ColumnDef::new(
        "rtt_min_s",
        "s",
        "TACK: the sender's RTT_min (one-way-delay based)",
    )
    .at_least(0.0);
    pub const RTT_MIN_LEGACY: ColumnDef = ColumnDef::new(
        "rtt_min_legacy_s",
        "s",
        "TACK: RTT_min by legacy ACK timing",
    )
    .at_least(0.0);

    /// The `flow_series` columns its `sample` writes, in its order.
    pub const SERIES: [ColumnDef; 10] = [
        CWND,
        SRTT,
        RTT,
        Self::RTT_MIN,
        Self::RTT_MIN_LEGACY,
        RTO,
        IN_FLIGHT,
        PACING_RATE,
        STATE,
        RTOS,
    ];
}

impl Endpoint for TackSender {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match pkt {
            Packet::Tack(TackPacket::Ack(a)) => {
                self.handle_ack(now, a);
                Ok(())
            }
            _ => Err(foreign(self.flow())),
        }
    }
    fn handle_timeout(&mut self, now: Time) {
        TackSender::handle_timeout(self, now)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        TackSender::poll_transmit(self, now).map(|d| Packet::Tack(TackPacket::Data(d)))
    }
    fn poll_timeout(&self) -> Option<Time> {
        TackSender::poll_timeout(self)
    }
    fn start(&mut self, now: Time) {
        TackSender::start(self, now)
    }
    fn stop(&mut self, now: Time) {
        TackSender::stop(self, now)
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.app_bytes(),
            sent_bytes: self.snd_max(),
            finished_at: self.stats().acked_all_at,
        }
    }
    fn sample(&self, out: &mut dyn Metrics) {
        let w = self.window();
        out.put(&CWND, w.cwnd.into());
        out.put(&SRTT, secs(self.srtt()));
        out.put(&RTT, secs(self.latest_rtt()));
        out.put(&Self::RTT_MIN, secs(self.rtt_min()));
        out.put(&Self::RTT_MIN_LEGACY, secs(self.rtt_min_legacy()));
        out.put(&RTO, self.rto().as_secs_f64().into());
        out.put(&IN_FLIGHT, self.in_flight().into());
        out.put(&PACING_RATE, Some(self.pacing_rate() as f64 * 8.0).into());
        out.put(&STATE, self.controller().metrics(w).state.into());
        out.put(&RTOS, self.stats().rtos.into());
        self.controller().trace(&mut |k, v| out.trace(k, v));
    }
    fn summary(&self, out: &mut dyn Metrics) {
        let s = self.stats();
        TackSenderSummary {
            packets: Retransmissions {
                segments_sent: s.packets_sent,
                retransmitted_segments: s.retransmissions,
            },
            rtos: s.rtos,
            loss_events: s.loss_events,
            tacks_received: s.tacks_received,
            iacks_received: s.iacks_received,
            ack_path_loss: self.ack_path_loss(),
            rtt_min_s: self.rtt_min().map(Dur::as_secs_f64),
            rtt_min_legacy_s: self.rtt_min_legacy().map(Dur::as_secs_f64),
        }
        .publish(out);
    }
}

impl TackReceiver {
    pub const TACK_BW: ColumnDef = ColumnDef::new(
        "tack_bw_bps",
        "bit/s",
        "TACK: the receiver's delivery-rate estimate",
    )
    .at_least(0.0);
    pub const TACK_HZ: ColumnDef = ColumnDef::new(
        "tack_hz",
        "Hz",
        "TACK: the receiver's current TACK frequency",
    )
    .at_least(0.0);

    /// The `flow_series` columns its `sample` writes, in its order.
    pub const SERIES: [ColumnDef; 3] = [DELIVERED, Self::TACK_BW, Self::TACK_HZ];
}

impl Endpoint for TackReceiver {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        match pkt {
            Packet::Tack(TackPacket::Data(d)) => self.handle_data(now, d),
            _ => Err(foreign(self.flow())),
        }
    }
    fn handle_timeout(&mut self, now: Time) {
        TackReceiver::handle_timeout(self, now)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        TackReceiver::poll_transmit(self, now).map(|a| Packet::Tack(TackPacket::Ack(a)))
    }
    fn poll_timeout(&self) -> Option<Time> {
        TackReceiver::poll_timeout(self)
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.rcv_nxt(),
            sent_bytes: 0,
            finished_at: self.stats().completed_at,
        }
    }
    fn sample(&self, out: &mut dyn Metrics) {
        out.put(&DELIVERED, self.rcv_nxt().into());
        out.put(&Self::TACK_BW, (self.bw() as f64 * 8.0).into());
        out.put(
            &Self::TACK_HZ,
            self.tack_interval().map(|d| 1.0 / d.as_secs_f64()).into(),
        );
    }
    fn summary(&self, out: &mut dyn Metrics) {
        let s = self.stats();
        let b = self.blocked();
        TackReceiverSummary {
            tacks_sent: s.tacks_sent,
            iacks_loss: s.iacks_loss,
            iacks_window: s.iacks_window,
            blocked_mean_bytes: b.mean(),
            blocked_max_bytes: b.max(),
            blocked_hist: b.to_text(),
        }
        .publish(out);
    }
}
