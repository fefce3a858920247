//! The worked example of docs/transports.md: stop-and-wait ARQ, a built-in transport in
//! its own folder (`tcplab-transport/src/stopwait/`) and one line of `builtin.rs`, run
//! from a scenario. The same endpoints also run registered at run time under another
//! name, as a transport written outside tcplab would.

use tcplab_sim::capture::addresses::Endpoints;
use tcplab_sim::capture::headers::encode;
use tcplab_sim::{parse_scenario_str, simulate};
use tcplab_transport::cc::CcParams;
use tcplab_transport::stopwait::{StopWait, StopWaitPacket, StopWaitSpec, HEADER_BYTES};
use tcplab_transport::transport::{self, FlowContext, UserEndpoints};
use tcplab_transport::{Packet, ParamError, Transport};

fn scenario(transport: &str, loss: &str, params: &str) -> String {
    format!(
        r#"
        [link]
        rate = "8Mbps"
        delay = "10ms"
        loss = "{loss}"
        ack_loss = "{loss}"
        [[flow]]
        transport = "{transport}"
        bytes = "200KB"
        {params}
        "#
    )
}

#[test]
fn stop_and_wait_runs_from_a_scenario() {
    assert!(transport::names().contains(&"stopwait".to_string()));
    assert_eq!(
        transport::BUILTIN.last(),
        Some(&"stopwait"),
        "one line of the list"
    );
    // No loss: one packet per round trip. A 1032-byte packet (1000 + 32 header bytes)
    // takes 1.032 ms at 8 Mbit/s, its 32-byte ACK 0.032 ms, plus 20 ms of propagation:
    // 200 packets in 200 × 21.064 ms.
    let sc = parse_scenario_str(&scenario("stopwait", "0%", ""), "sw.toml").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    let f = &r.flows;
    assert!(f.bools("completed").unwrap()[0]);
    assert_eq!(f.ints("bytes_delivered").unwrap()[0], 200_000);
    let t = f.opt_floats("completion_s").unwrap()[0].unwrap();
    assert!((t - 200.0 * 0.021064).abs() < 1e-6, "{t}");
    assert_eq!(f.texts("transport").unwrap()[0], "stopwait");
    // The flow series and the summary columns come from the endpoints.
    assert!(r.flow_series.ints("delivered").is_some());
    assert_eq!(f.ints("stopwait_resent").unwrap()[0], 0);

    // With loss both ways every byte still arrives, after timeouts.
    let sc = parse_scenario_str(
        &scenario("stopwait", "10%", "params = { timeout_ms = 50 }"),
        "sw.toml",
    )
    .unwrap();
    let r = simulate(&sc, 3, 0).unwrap();
    assert!(r.flows.bools("completed").unwrap()[0]);
    assert!(r.flows.ints("stopwait_resent").unwrap()[0] > 20);
}

#[test]
fn its_parameters_are_checked_against_the_file() {
    let bad = |params: &str| {
        parse_scenario_str(&scenario("stopwait", "0%", params), "sw.toml")
            .unwrap_err()
            .to_string()
    };
    let e = bad("params = { timeout_ms = -1 }");
    assert!(
        e.contains("sw.toml") && e.contains("flow[0].params.timeout_ms") && e.contains("> 0"),
        "{e}"
    );
    let e = bad("params = { timeoutms = 5 }");
    assert!(
        e.contains("flow[0].params") && e.contains("timeoutms"),
        "{e}"
    );
    let e = bad("params = { payload = 300 }");
    assert!(
        e.contains("flow[0].bytes") && e.contains("multiple of the payload"),
        "{e}"
    );
    // The typed error the scenario parser turns into those messages.
    let mut p = CcParams::new();
    p.set("timeout_ms", 0.0);
    assert!(matches!(
        StopWait::from_params(&mut p, Some(1000)),
        Err(ParamError::Invalid {
            key: "timeout_ms",
            ..
        })
    ));
}

#[test]
fn a_capture_shows_its_header() {
    let p = Packet::StopWait(StopWaitPacket { seq: 7, len: 1000 });
    assert_eq!(p.wire_len(), 1000 + HEADER_BYTES);
    let w = encode(&p, Endpoints::of_flow(0, 0, 1), false);
    assert_eq!(w.len, p.wire_len());
    assert_eq!(w.bytes[9], 253, "RFC 3692 experimental protocol");
    assert_eq!(&w.bytes[20..22], &[0, 0], "kind 0: data");
    assert_eq!(w.bytes[22 + 7], 7, "the sequence number, big-endian");
}

/// The same endpoints registered at run time, as a transport outside tcplab would be.
fn registered(p: &mut CcParams, ctx: FlowContext) -> Result<UserEndpoints, String> {
    let spec: StopWaitSpec = StopWait::from_params(p, ctx.bytes).map_err(|e| e.to_string())?;
    let (source, sink) = StopWait::build(&spec, ctx)?;
    Ok(UserEndpoints {
        source: Box::new(source),
        sink: Box::new(sink),
        reliable: true,
    })
}

#[test]
fn a_registered_transport_runs_from_a_scenario() {
    transport::register("stopwait-registered", registered).unwrap();
    assert!(transport::names().contains(&"stopwait-registered".to_string()));
    let sc = parse_scenario_str(&scenario("stopwait-registered", "0%", ""), "sw.toml").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    assert!(r.flows.bools("completed").unwrap()[0]);
    assert_eq!(r.flows.ints("bytes_delivered").unwrap()[0], 200_000);
    let e = parse_scenario_str(
        &scenario("stopwait-registered", "0%", "params = { timeout_ms = -1 }"),
        "sw.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("flow[0].params") && e.contains("> 0"), "{e}");
    // Built-in names are reserved, unknown ones are listed.
    assert!(transport::register("stopwait", registered).is_err());
    let e = parse_scenario_str(&scenario("nope", "0%", ""), "sw.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown transport 'nope'") && e.contains("stopwait"),
        "{e}"
    );
}
