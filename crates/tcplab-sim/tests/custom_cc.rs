//! The worked example of docs/congestion-control.md: a user controller registered by name.

use tcplab_core::Time;
use tcplab_sim::{parse_scenario_str, simulate};
use tcplab_transport::cc::{self, AckInfo, CongestionControl, CongestionEvent, Window};

/// The guide's controller, from the runnable example (so the documented code is tested).
#[path = "../examples/custom_controller.rs"]
#[allow(dead_code)]
mod guide;
use guide::make;

#[test]
fn registered_controller_runs_by_name_with_checked_parameters() {
    cc::register("aimd", make).unwrap();
    assert!(
        cc::register("newreno", make).is_err(),
        "built-ins cannot be replaced"
    );
    let toml = |beta: &str| {
        format!(
            "sample = \"off\"\n[link]\nrate = \"20Mbps\"\ndelay = \"5ms\"\nloss = \"1%\"\n\
             [[flow]]\ncc = \"aimd\"\ncc_params = {{ beta = {beta} }}\nbytes = \"2MB\"\n"
        )
    };
    let gentle = simulate(&parse_scenario_str(&toml("0.9"), "a").unwrap(), 1, 0).unwrap();
    let harsh = simulate(&parse_scenario_str(&toml("0.2"), "a").unwrap(), 1, 0).unwrap();
    assert!(
        gentle.flows.bools("completed").unwrap()[0] && harsh.flows.bools("completed").unwrap()[0]
    );
    assert_eq!(gentle.flows.texts("cc").unwrap()[0], "aimd");
    // A gentler decrease keeps more data in flight under the same losses.
    assert!(
        gentle.flows.floats("goodput_bps").unwrap()[0]
            > harsh.flows.floats("goodput_bps").unwrap()[0]
    );
    let e = parse_scenario_str(&toml("1.5"), "a.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("beta") && e.contains("in (0, 1)"), "{e}");
}

/// A rate-based controller: a fixed pacing rate and an open window.
struct Paced;

impl CongestionControl for Paced {
    fn name(&self) -> &'static str {
        "paced"
    }
    fn init(&mut self, w: &mut Window, _now: Time) {
        w.cwnd = 1 << 30;
    }
    fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {}
    fn on_congestion_event(&mut self, _w: &mut Window, _ev: CongestionEvent, _now: Time, _f: u64) {}
    fn pacing_rate(&self) -> Option<u64> {
        Some(10_000_000 / 8) // 10 Mbit/s of wire bytes
    }
}

/// The sender honours a controller's pacing rate even when the window would allow more.
#[test]
fn sender_honours_pacing_rate() {
    cc::register("paced10", |_| Ok(Box::new(Paced))).unwrap();
    let sc = parse_scenario_str(
        "sample = \"off\"\n[link]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nqueue = \"unlimited\"\n\
         [[flow]]\ncc = \"paced10\"\nbytes = \"5MB\"\n",
        "paced.toml",
    )
    .unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    let g = r.flows.floats("goodput_bps").unwrap()[0];
    let expect = 10e6 * 1460.0 / 1500.0;
    assert!(
        (g - expect).abs() < 0.02 * expect,
        "goodput {g} vs paced {expect}"
    );
    assert_eq!(
        r.links.ints("max_queue_pkts").unwrap()[0],
        0,
        "paced below the link rate: no queue"
    );
}
