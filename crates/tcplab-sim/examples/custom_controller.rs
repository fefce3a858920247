//! Runs a scenario from Rust with a controller of your own (docs/congestion-control.md):
//!
//! ```sh
//! cargo run --release -p tcplab-sim --example custom_controller -- examples/newreno-lossy.toml
//! ```
//!
//! Every flow of the scenario is switched to the `aimd` controller defined here; the
//! program prints each flow's goodput, retransmissions and completion time.

use tcplab_core::Time;
use tcplab_sim::{parse_scenario_str, simulate};
use tcplab_transport::cc::{self, AckInfo, CcParams, CongestionControl, CongestionEvent, Window};

/// AIMD with a configurable decrease factor.
struct Aimd {
    beta: f64,
    acked: u64,
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if ack.in_recovery {
            return;
        }
        self.acked += ack.bytes_acked;
        if self.acked >= w.cwnd {
            self.acked -= w.cwnd;
            w.cwnd += w.mss as u64;
        }
    }
    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        _now: Time,
        flight: u64,
    ) {
        w.ssthresh = ((flight as f64 * self.beta) as u64).max(2 * w.mss as u64);
        w.cwnd = match ev {
            CongestionEvent::Rto { .. } => w.mss as u64,
            _ => w.ssthresh,
        };
    }
}

/// Builds the controller from `cc_params` (`beta`, default 0.5).
pub fn make(p: &mut CcParams) -> Result<Box<dyn CongestionControl + Send>, String> {
    let beta = p.take("beta", 0.5, |b| b > 0.0 && b < 1.0, "in (0, 1)")?;
    Ok(Box::new(Aimd { beta, acked: 0 }))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    cc::register("aimd", make)?;
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/newreno-lossy.toml".into());
    // Use our controller for every flow: edit the TOML before parsing it.
    let mut doc: toml::Table = std::fs::read_to_string(&path)?.parse()?;
    if let Some(toml::Value::Array(flows)) = doc.get_mut("flow") {
        for f in flows.iter_mut().filter_map(toml::Value::as_table_mut) {
            f.insert("cc".into(), "aimd".into());
            f.insert("recovery".into(), "newreno".into());
            f.insert("cc_params".into(), toml::toml! { beta = 0.7 }.into());
        }
    }
    let sc = parse_scenario_str(&doc.to_string(), &path)?;
    let res = simulate(&sc, 1, 0)?;
    let names = res.flows.texts("name").unwrap_or_default();
    let goodput = res.flows.floats("goodput_bps").unwrap_or_default();
    let retx = res.flows.ints("retransmitted_segments").unwrap_or_default();
    let done = res.flows.opt_floats("completion_s").unwrap_or_default();
    for i in 0..res.flows.rows() {
        println!(
            "{}: {:.2} Mbit/s, {} retransmitted segments, completed at {:?} s",
            names[i],
            goodput[i] / 1e6,
            retx[i],
            done[i]
        );
    }
    Ok(())
}
