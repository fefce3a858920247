//! The tables written once, at the end of a run: one row per flow and one per link
//! direction (or cell channel), and the check that no data was lost silently.

use crate::flow::{Flow, SINK, SOURCE};
use crate::media::Wiring;
use tcplab_core::{ColumnDef, Metrics, Time};
use tcplab_scenario::row_labels::{DIRECTION, LINK};
use tcplab_scenario::{goodput_bps, FlowOutcome, Results, Scenario};
use tcplab_transport::{Endpoint, Violation};

pub const PACKETS_SENT: ColumnDef = ColumnDef::new(
    "packets_sent",
    "packets",
    "packets the source sent (incl. retransmissions)",
)
.at_least(0.0);
pub const PACKETS_DELIVERED: ColumnDef = ColumnDef::new(
    "packets_delivered",
    "packets",
    "source packets that reached the sink",
)
.at_least(0.0);
pub const PACKETS_LOST: ColumnDef = ColumnDef::new(
    "packets_lost",
    "packets",
    "source packets dropped on the way",
)
.at_least(0.0);
pub const PACKETS_IN_FLIGHT: ColumnDef = ColumnDef::new(
    "packets_in_flight",
    "packets",
    "source packets still in the network at the end",
)
.at_least(0.0);

/// The flows-table columns [`collect`] writes between a flow's outcome and its
/// endpoints' summaries: its source's packets as the links saw them.
pub const PACKET_COUNTS: [ColumnDef; 4] = [
    PACKETS_SENT,
    PACKETS_DELIVERED,
    PACKETS_LOST,
    PACKETS_IN_FLIGHT,
];

/// What the sink delivered must match what the source sent: never more, and for a
/// reliable flow whose source finished, all of it.
pub(crate) fn check_delivered(flows: &[Flow]) -> Result<(), Violation> {
    for (i, fl) in flows.iter().enumerate() {
        let src = fl.ends[SOURCE].progress();
        let delivered = fl.ends[SINK].progress().app_bytes;
        let flow = i as u32;
        if delivered > src.sent_bytes {
            return Err(Violation::DeliveredMismatch {
                flow,
                delivered,
                expected: src.sent_bytes,
            });
        }
        if fl.reliable && src.finished_at.is_some() && delivered != src.app_bytes {
            return Err(Violation::DeliveredMismatch {
                flow,
                delivered,
                expected: src.app_bytes,
            });
        }
    }
    Ok(())
}

/// Writes the flows and links tables of a run that ended at `end`.
pub(crate) fn collect(
    res: &mut Results,
    sc: &Scenario,
    flows: &[Flow],
    wiring: &Wiring,
    end: Time,
) {
    for (i, (fl, spec)) in flows.iter().zip(&sc.flows).enumerate() {
        let src = fl.ends[SOURCE].progress();
        let sink = fl.ends[SINK].progress();
        let start = Time::ZERO + spec.start;
        let done_at = sink.finished_at.or(src.finished_at);
        let completed = spec
            .bytes
            .is_some_and(|b| sink.app_bytes == b && src.app_bytes == b);
        let until = if src.finished_at.is_some() {
            done_at.unwrap_or(end)
        } else {
            end
        };
        let secs = (until - start).as_secs_f64();
        let c = fl.count[0];
        let mut row = res.flows.row();
        FlowOutcome {
            bytes_written: src.app_bytes,
            bytes_delivered: sink.app_bytes,
            start_s: start.as_secs_f64(),
            completion_s: completed.then(|| done_at.map(Time::as_secs_f64)).flatten(),
            completed,
            finished_s: src.finished_at.and(done_at).map(Time::as_secs_f64),
            goodput_bps: goodput_bps(sink.app_bytes, secs),
            ..FlowOutcome::new(i as u32, spec)
        }
        .publish(&mut row);
        row.put(&PACKETS_SENT, c.sent.into());
        row.put(&PACKETS_DELIVERED, c.delivered.into());
        row.put(&PACKETS_LOST, c.dropped.into());
        row.put(&PACKETS_IN_FLIGHT, c.in_network().into());
        fl.ends[SOURCE].summary(&mut row);
        fl.ends[SINK].summary(&mut row);
    }
    for ch in &wiring.rows {
        let mut row = res.links.row();
        let (link, direction) = ch.names(sc);
        row.put(&LINK, link.into());
        row.put(&DIRECTION, direction.into());
        wiring.media[ch.medium as usize].summary(ch.channel as usize, &mut row);
    }
}
