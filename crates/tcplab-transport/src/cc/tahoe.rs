//! TCP Tahoe (Jacobson 1988; 4.3BSD-Tahoe): fast retransmit without fast recovery.
//!
//! Window growth is RFC 5681 slow start and congestion avoidance (shared with
//! [`NewReno`]). Any loss — three duplicate ACKs or a timeout — sets
//! ssthresh = max(FlightSize/2, 2·SMSS) and restarts slow start from one segment.
//! [`fast_recovery`](CongestionControl::fast_recovery) is false, so the sender neither
//! inflates the window nor enters recovery; it goes back to the lost segment and resends
//! in slow start (as 4.3BSD-Tahoe and ns-2's `TcpAgent` do; Fall & Floyd 1996).

use super::{AckInfo, Capabilities, CcParams, CongestionControl, CongestionEvent, NewReno, Window};
use tcplab_core::Time;

/// Tahoe: Reno-family growth, every loss ends in slow start from 1 MSS.
#[derive(Clone, Debug)]
pub struct Tahoe {
    growth: NewReno,
}

impl Tahoe {
    /// Parameters: those of [`NewReno`] (`abc_limit`).
    pub fn from_params(p: &mut CcParams) -> Result<Tahoe, String> {
        Ok(Tahoe {
            growth: NewReno::from_params(p)?,
        })
    }
}

super::default_from_params!(Tahoe);

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn capabilities(&self) -> Capabilities {
        // NewReno's growth and a cut to one segment: the core only.
        Capabilities::NONE
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.growth.on_ack(w, ack);
    }

    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    ) {
        // Reset the growth state (byte counter) and take Reno's response ...
        self.growth.on_congestion_event(w, ev, now, in_flight);
        // ... but every loss restarts from one segment (Jacobson 1988).
        w.cwnd = w.mss as u64;
    }

    fn fast_recovery(&self) -> bool {
        false
    }
}
