//! Stop-and-wait as a transport written outside tcplab would register it
//! (docs/transports.md, "Registering a transport at run time"): the same two ends, whose
//! packets travel as [`Opaque`] headers, the only header a registered transport has.
//! Kind 0 is data (word 0 the packet's number, word 1 its payload bytes), kind 1 the
//! acknowledgement of packet word 0. Both run in the simulator and over the UDP driver.

use super::{StopWait, StopWaitPacket, StopWaitSummary};
use crate::cc::CcParams;
use crate::endpoint::{Endpoint, Progress};
use crate::error::Violation;
use crate::flow_context::FlowContext;
use crate::opaque::Opaque;
use crate::packet::Packet;
use crate::registration::{Registration, UserEndpoints};
use crate::series_columns::DELIVERED;
use crate::transport_kind::Transport;
use tcplab_core::{Metrics, Time};

/// Its kinds.
pub const DATA: u16 = 0;
pub const ACK: u16 = 1;

/// Stop-and-wait's registration: its ends and the columns they publish (the built-in's).
pub const REGISTRATION: Registration = Registration {
    build,
    flow_columns: &StopWaitSummary::COLUMNS,
    series_columns: &[DELIVERED],
};

/// Builds the two ends from the flow's `params` (`timeout_ms`, `payload`).
fn build(p: &mut CcParams, ctx: FlowContext) -> Result<UserEndpoints, String> {
    let spec = StopWait::from_params(p, ctx.bytes).map_err(|e| e.to_string())?;
    let (source, sink) = StopWait::build(&spec, ctx)?;
    Ok(UserEndpoints {
        source: Box::new(AsOpaque(source)),
        sink: Box::new(AsOpaque(sink)),
        reliable: true,
    })
}

/// `p` as an [`Opaque`] header, as long on the wire as `p`.
pub fn to_opaque(p: &StopWaitPacket) -> Opaque {
    let kind = if p.is_ack() { ACK } else { DATA };
    Opaque {
        kind,
        words: [p.seq, u64::from(p.len), 0, 0, 0, 0],
        wire_len: crate::PacketKind::wire_len(p),
    }
}

/// The packet `o` stands for; `None` for a header no stop-and-wait end sends (its kind,
/// or an ACK with payload, or data without).
pub fn from_opaque(o: &Opaque) -> Option<StopWaitPacket> {
    let len = u32::try_from(o.words[1]).ok()?;
    match o.kind {
        DATA if len > 0 => Some(StopWaitPacket {
            seq: o.words[0],
            len,
        }),
        ACK if len == 0 => Some(StopWaitPacket {
            seq: o.words[0],
            len,
        }),
        _ => None,
    }
}

/// A stop-and-wait end that sends and takes [`Opaque`] headers.
#[derive(Debug)]
pub struct AsOpaque<E>(pub E);

impl<E: Endpoint> Endpoint for AsOpaque<E> {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        let Packet::Opaque(o) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: 0,
                expected: "opaque stop-and-wait",
            });
        };
        // A header it never sends is ignored, as a lost packet would be.
        match from_opaque(o) {
            Some(p) => self.0.handle_packet(now, &Packet::StopWait(p)),
            None => Ok(()),
        }
    }
    fn handle_timeout(&mut self, now: Time) {
        self.0.handle_timeout(now)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self.0.poll_transmit(now)? {
            Packet::StopWait(p) => Some(Packet::Opaque(to_opaque(&p))),
            other => Some(other),
        }
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.0.poll_timeout()
    }
    fn start(&mut self, now: Time) {
        self.0.start(now)
    }
    fn stop(&mut self, now: Time) {
        self.0.stop(now)
    }
    fn progress(&self) -> Progress {
        self.0.progress()
    }
    fn sample(&self, out: &mut dyn Metrics) {
        self.0.sample(out)
    }
    fn summary(&self, out: &mut dyn Metrics) {
        self.0.summary(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_packets_and_their_headers_are_one_to_one() {
        for p in [
            StopWaitPacket { seq: 9, len: 1200 },
            StopWaitPacket { seq: 9, len: 0 },
        ] {
            let o = to_opaque(&p);
            assert_eq!(from_opaque(&o), Some(p));
            assert_eq!(o.wire_len, crate::PacketKind::wire_len(&p));
        }
        let data = to_opaque(&StopWaitPacket { seq: 1, len: 10 });
        for bad in [
            Opaque { kind: 2, ..data },
            Opaque { kind: ACK, ..data },
            Opaque {
                words: [1, 0, 0, 0, 0, 0],
                ..data
            },
            Opaque {
                words: [1, 1 << 32, 0, 0, 0, 0],
                ..data
            },
        ] {
            assert_eq!(from_opaque(&bad), None, "{bad:?}");
        }
    }
}
