//! A transport whose timer keeps firing at the same instant (a livelock: simulated time
//! never advances) ends the run with `SimError::Stalled` instead of spinning forever.

use tcplab_core::Time;
use tcplab_sim::{parse_scenario_str, simulate, SimError};
use tcplab_transport::cc::CcParams;
use tcplab_transport::transport::{self, FlowContext, Registration, UserEndpoints};
use tcplab_transport::{Endpoint, Packet, Progress, Violation};

/// Asks to be woken at the instant it was last woken, forever (a zero-length timer).
struct Spinner {
    at: Time,
}

impl Endpoint for Spinner {
    fn handle_packet(&mut self, _now: Time, _pkt: &Packet) -> Result<(), Violation> {
        Ok(())
    }
    fn handle_timeout(&mut self, now: Time) {
        self.at = now;
    }
    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        None
    }
    fn poll_timeout(&self) -> Option<Time> {
        Some(self.at)
    }
    fn start(&mut self, now: Time) {
        self.at = now;
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: 0,
            sent_bytes: 0,
            finished_at: None,
        }
    }
}

fn build(_p: &mut CcParams, _ctx: FlowContext) -> Result<UserEndpoints, String> {
    Ok(UserEndpoints {
        source: Box::new(Spinner { at: Time::ZERO }),
        sink: Box::new(Spinner { at: Time::ZERO }),
        reliable: true,
    })
}

#[test]
fn a_timer_that_never_advances_time_is_a_clear_error() {
    transport::register("spinner", Registration::new(build)).unwrap();
    let sc = parse_scenario_str(
        "[link]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\ntransport = \"spinner\"\nbytes = \"1MB\"\nstart = \"1.5s\"\n",
        "spin.toml",
    )
    .unwrap();
    match simulate(&sc, 1, 0) {
        Err(e @ SimError::Stalled { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("spin") && msg.contains("t=1.5"), "{msg}");
            assert!(msg.contains("stopped advancing"), "{msg}");
        }
        other => panic!(
            "expected a stall error, got {:?}",
            other.map(|r| r.info.events)
        ),
    }
}
