//! TCP as an [`Endpoint`]: the sender is the flow's source, the receiver its sink.

use super::{ReceiverConfig, RecoveryMode, SenderConfig};
use crate::cc::{self, CcParams, CongestionControl};
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::packet::Packet;
use crate::retransmissions::Retransmissions;
use crate::series_columns::{
    CWND, DELIVERED, FAST_RETRANSMITS, IN_FLIGHT, PACING_RATE, RTO, RTOS, RTT, SRTT, SSTHRESH,
    STATE,
};
use crate::tcp::{Receiver, Sender, TcpSummary, ACKS_SENT, CE_RECEIVED};
use tcplab_core::{Dur, Metrics, Time, Value};

/// A TCP flow's settings: the controller and both endpoints' configurations.
#[derive(Clone, Debug)]
pub struct TcpSpec {
    /// Controller name as written (`"westwood+"`), resolved by [`cc::build`].
    pub cc: String,
    pub cc_params: CcParams,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    /// The stack profile the scenario named (`stack = "linux"`), for results rows.
    pub stack: Option<String>,
}

impl TcpSpec {
    /// Builds the sender and receiver of flow `flow`.
    pub fn build(&self, flow: u32) -> Result<(Sender, Receiver), String> {
        let controller = cc::build(&self.cc, &self.cc_params)?;
        Ok((
            Sender::new(flow, self.sender.clone(), controller),
            Receiver::new(flow, self.receiver.clone()),
        ))
    }
}

impl RecoveryMode {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryMode::Reno => "reno",
            RecoveryMode::NewReno => "newreno",
            RecoveryMode::Sack => "sack",
        }
    }
}

fn secs(d: Option<Dur>) -> Value<'static> {
    d.map(Dur::as_secs_f64).into()
}

fn segment(flow: u32, pkt: &Packet) -> Result<&crate::Segment, Violation> {
    match pkt {
        Packet::Tcp(s) => Ok(s),
        _ => Err(Violation::ForeignPacket {
            flow,
            expected: "TCP",
        }),
    }
}

impl Endpoint for Sender {
    #[inline]
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        let seg = segment(self.flow(), pkt)?;
        self.handle_segment(now, seg)
    }
    #[inline]
    fn handle_timeout(&mut self, now: Time) {
        Sender::handle_timeout(self, now)
    }
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.poll_packet(now)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        Sender::poll_timeout(self)
    }
    fn start(&mut self, now: Time) {
        Sender::start(self, now)
    }
    fn stop(&mut self, _now: Time) {
        Sender::stop(self)
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.app_bytes().unwrap_or(self.snd_max()),
            sent_bytes: self.snd_max(),
            finished_at: self.stats().acked_all_at,
        }
    }
    fn sample(&self, out: &mut dyn Metrics) {
        let s = self.snapshot();
        out.put(&CWND, s.cwnd.into());
        out.put(
            &SSTHRESH,
            (s.ssthresh < u64::MAX / 8).then_some(s.ssthresh).into(),
        );
        out.put(&SRTT, secs(s.srtt));
        out.put(&RTT, secs(s.latest_rtt));
        out.put(&RTO, s.rto.as_secs_f64().into());
        out.put(&IN_FLIGHT, s.in_flight.into());
        out.put(&PACING_RATE, s.pacing_rate.map(|r| r as f64 * 8.0).into());
        out.put(&STATE, s.state.into());
        let st = self.stats();
        out.put(&RTOS, st.rtos.into());
        out.put(&FAST_RETRANSMITS, st.fast_retransmits.into());
        self.controller().trace(&mut |k, v| out.trace(k, v));
    }
    fn summary(&self, out: &mut dyn Metrics) {
        let s = self.stats();
        let (segments_sent, _) = self.sent();
        TcpSummary {
            recovery: self.config().recovery.name(),
            segments: Retransmissions {
                segments_sent,
                retransmitted_segments: s.retransmitted_segments,
            },
            rtos: s.rtos,
            fast_retransmits: s.fast_retransmits,
            tlp_probes: s.tlp_probes,
            syn_retransmits: Some(s.syn_retransmits),
            established_s: s.established_at.map(Time::as_secs_f64),
            rack_lost: s.rack_lost,
            undos: s.undos,
            ecn_cuts: Some(s.ecn_cuts),
            rtt_min_s: self.rtt().min_rtt().map(Dur::as_secs_f64),
            rtt_mean_s: s.rtt_mean().map(Dur::as_secs_f64),
            rtt_max_s: s.rtt_max.map(Dur::as_secs_f64),
        }
        .publish(out);
    }
}

impl Endpoint for Receiver {
    #[inline]
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        let seg = segment(self.flow(), pkt)?;
        self.handle_segment(now, seg)
    }
    #[inline]
    fn handle_timeout(&mut self, now: Time) {
        Receiver::handle_timeout(self, now)
    }
    #[inline]
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.poll_packet(now)
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        Receiver::poll_timeout(self)
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
    }
    fn summary(&self, out: &mut dyn Metrics) {
        out.put(&ACKS_SENT, self.stats().acks_sent.into());
        out.put(&CE_RECEIVED, self.ce_received().into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{Controller, NewReno};

    /// The endpoints' packets (built in the packet's place) are their segments: two
    /// identical flows, one polled for segments and one through `Endpoint`, emit the same
    /// data and ACKs through slow start, losses, SACK recovery, D-SACKs and timeouts.
    #[test]
    fn packets_are_the_polled_segments() {
        for timestamps in [false, true] {
            let snd_cfg = SenderConfig {
                mss: 1000,
                total_bytes: Some(400_000),
                timestamps,
                ..SenderConfig::default()
            };
            let rcv_cfg = ReceiverConfig {
                total_bytes: Some(400_000),
                timestamps,
                dsack: true,
                ..ReceiverConfig::default()
            };
            let new = || {
                let mut s =
                    Sender::new(0, snd_cfg.clone(), Controller::NewReno(NewReno::default()));
                s.start(Time::ZERO);
                (s, Receiver::new(0, rcv_cfg.clone()))
            };
            let ((mut s1, mut r1), (mut s2, mut r2)) = (new(), new());
            let (mut data, mut acks, mut bytes) = (0usize, 0usize, 0u64);
            let mut now = Time::ZERO;
            for _ in 0..5_000 {
                let moved = (data, acks);
                let mut wire = vec![];
                loop {
                    let (seg, pkt) = (s1.poll_transmit(now), Endpoint::poll_transmit(&mut s2, now));
                    assert_eq!(pkt, seg.map(Packet::Tcp));
                    let (Some(seg), Some(pkt)) = (seg, pkt) else {
                        break;
                    };
                    data += 1;
                    bytes += seg.len as u64;
                    // Losses, and a duplicate now and then.
                    let copies = usize::from(data % 23 != 7) + usize::from(data % 97 == 3);
                    for _ in 0..copies {
                        r1.handle_segment(now, &seg).unwrap();
                        r2.handle_packet(now, &pkt).unwrap();
                        loop {
                            let (ack, pkt) =
                                (r1.poll_transmit(now), Endpoint::poll_transmit(&mut r2, now));
                            assert_eq!(pkt, ack.map(Packet::Tcp));
                            let (Some(ack), Some(pkt)) = (ack, pkt) else {
                                break;
                            };
                            wire.push((ack, pkt));
                        }
                    }
                }
                now += Dur::from_millis(1);
                for (ack, pkt) in wire {
                    acks += 1;
                    if acks % 41 != 5 {
                        s1.handle_segment(now, &ack).unwrap();
                        s2.handle_packet(now, &pkt).unwrap();
                    }
                }
                if s1.is_complete() {
                    break;
                }
                if (data, acks) == moved {
                    // Nothing on the wire: on to the next timer.
                    let next = [s1.poll_timeout(), r1.poll_timeout()]
                        .into_iter()
                        .flatten()
                        .min();
                    now = now.max(next.expect("a timer runs"));
                    s1.handle_timeout(now);
                    s2.handle_timeout(now);
                    r1.handle_timeout(now);
                    r2.handle_timeout(now);
                }
            }
            assert!(s1.is_complete() && s2.is_complete(), "the transfer ends");
            assert!(s1.stats().retransmitted_segments > 10 && r1.stats().acks_sent > 100);
            assert!(s1.stats().fast_retransmits > 3, "{:?}", s1.stats());
            // Every segment polled is counted, though sends do not count them.
            assert_eq!(s1.sent(), (data as u64, bytes));
        }
    }
}
