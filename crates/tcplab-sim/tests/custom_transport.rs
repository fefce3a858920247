//! The worked example of docs/transports.md: stop-and-wait ARQ, a built-in transport in
//! its own folder (`tcplab-transport/src/stopwait/`) and one line of `builtin.rs`, run
//! from a scenario. The same endpoints also run registered at run time under another
//! name, as a transport written outside tcplab would.

use tcplab_core::{ColumnDef, Metrics, Time};
use tcplab_sim::capture::addresses::Endpoints;
use tcplab_sim::capture::headers::encode;
use tcplab_sim::{columns, parse_scenario_str, simulate, undeclared_columns};
use tcplab_transport::cc::CcParams;
use tcplab_transport::series_columns::DELIVERED;
use tcplab_transport::stopwait::{
    registered, StopWait, StopWaitPacket, StopWaitSummary, HEADER_BYTES,
};
use tcplab_transport::transport::{self, FlowContext, Registration, UserEndpoints};
use tcplab_transport::{Endpoint, Packet, ParamError, Progress, Transport, Violation};

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
    // Registered, the same packet is an Opaque header: a capture shows its kind and
    // words (the number, then the payload bytes), as long on the wire.
    let o = Packet::Opaque(registered::to_opaque(&StopWaitPacket { seq: 7, len: 1000 }));
    let w = encode(&o, Endpoints::of_flow(0, 0, 1), false);
    assert_eq!(w.len, p.wire_len());
    assert_eq!(w.bytes[9], 253);
    let word = |i: usize| u64::from_be_bytes(w.bytes[22 + 8 * i..30 + 8 * i].try_into().unwrap());
    assert_eq!(&w.bytes[20..22], &[0, 0], "kind 0: data");
    assert_eq!((word(0), word(1), word(5)), (7, 1000, 0));
    assert_eq!(w.prefix_len, 20 + 2 + 48);
}

/// The same endpoints registered at run time, as a transport outside tcplab would be:
/// `stopwait/registered.rs` carries their packets as `Opaque` headers.
#[test]
fn a_registered_transport_runs_from_a_scenario() {
    transport::register("stopwait-registered", registered::REGISTRATION).unwrap();
    assert!(transport::names().contains(&"stopwait-registered".to_string()));
    // Packet for packet the built-in's run: the same lengths on the wire, the same
    // losses, the same columns.
    for (loss, params) in [("0%", ""), ("10%", "params = { timeout_ms = 50 }")] {
        let run = |t: &str| {
            let sc = parse_scenario_str(&scenario(t, loss, params), "sw.toml").unwrap();
            let r = simulate(&sc, 3, 0).unwrap();
            assert!(
                undeclared_columns(&r).is_empty(),
                "{:?}",
                undeclared_columns(&r)
            );
            r
        };
        let (own, builtin) = (run("stopwait-registered"), run("stopwait"));
        let f = &own.flows;
        assert!(f.bools("completed").unwrap()[0]);
        assert_eq!(f.ints("bytes_delivered").unwrap()[0], 200_000);
        assert_eq!(f.texts("transport").unwrap()[0], "stopwait-registered");
        for c in ["completion_s", "goodput_bps"] {
            assert_eq!(f.opt_floats(c), builtin.flows.opt_floats(c), "{loss} {c}");
        }
        assert_eq!(
            f.ints("stopwait_resent"),
            builtin.flows.ints("stopwait_resent")
        );
        assert_eq!(
            own.flow_series.ints("delivered"),
            builtin.flow_series.ints("delivered")
        );
    }
    let e = parse_scenario_str(
        &scenario("stopwait-registered", "0%", "params = { timeout_ms = -1 }"),
        "sw.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("flow[0].params") && e.contains("> 0"), "{e}");
    // Built-in names are reserved, unknown ones are listed.
    assert!(transport::register("stopwait", registered::REGISTRATION).is_err());
    let e = parse_scenario_str(&scenario("nope", "0%", ""), "sw.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown transport 'nope'") && e.contains("stopwait"),
        "{e}"
    );
}

/// Registered stop-and-wait whose source also publishes how many packets it sent, in
/// `column` (declared by the registration or not, as the test chooses).
struct Counted {
    end: Box<dyn Endpoint + Send>,
    sent: u64,
    column: &'static ColumnDef,
}

impl Endpoint for Counted {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        self.end.handle_packet(now, pkt)
    }
    fn handle_timeout(&mut self, now: Time) {
        self.end.handle_timeout(now)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let p = self.end.poll_transmit(now);
        self.sent += u64::from(p.is_some());
        p
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.end.poll_timeout()
    }
    fn start(&mut self, now: Time) {
        self.end.start(now)
    }
    fn progress(&self) -> Progress {
        self.end.progress()
    }
    fn sample(&self, out: &mut dyn Metrics) {
        self.end.sample(out)
    }
    fn summary(&self, out: &mut dyn Metrics) {
        self.end.summary(out);
        out.put(self.column, self.sent.into());
    }
}

fn counted(
    column: &'static ColumnDef,
    p: &mut CcParams,
    ctx: FlowContext,
) -> Result<UserEndpoints, String> {
    let mut u = (registered::REGISTRATION.build)(p, ctx)?;
    u.source = Box::new(Counted {
        end: u.source,
        sent: 0,
        column,
    });
    Ok(u)
}

const SENT: ColumnDef = ColumnDef::new(
    "sw_sent",
    "packets",
    "registered stop-and-wait: packets sent",
)
.at_least(0.0);

/// A column the source publishes that its registration leaves out.
const UNDECLARED: ColumnDef = ColumnDef::new(
    "sw_sent_undeclared",
    "packets",
    "registered stop-and-wait: packets sent, not in its registration",
);

/// A registered transport's columns are declared with it: they are in the results
/// reference like a built-in's, and one published without a declaration is found by
/// the check every transport's tests make (`undeclared_columns`), as a built-in's is.
#[test]
fn a_registered_transport_declares_its_columns() {
    const FLOWS: [ColumnDef; 2] = [StopWaitSummary::COLUMNS[0], SENT];
    transport::register(
        "stopwait-counted",
        Registration {
            build: |p, ctx| counted(&SENT, p, ctx),
            flow_columns: &FLOWS,
            series_columns: &[DELIVERED],
        },
    )
    .unwrap();
    let flows = columns().into_iter().find(|t| t.table == "flows").unwrap();
    assert_eq!(flows.get("sw_sent"), Some(&SENT));
    let sc = parse_scenario_str(&scenario("stopwait-counted", "0%", ""), "sw.toml").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    assert_eq!(r.flows.ints("sw_sent").unwrap()[0], 200);
    assert_eq!(undeclared_columns(&r), Vec::<String>::new());

    // The same ends publishing a column their registration does not declare.
    transport::register(
        "stopwait-undeclared",
        Registration {
            build: |p, ctx| counted(&UNDECLARED, p, ctx),
            ..registered::REGISTRATION
        },
    )
    .unwrap();
    let sc = parse_scenario_str(&scenario("stopwait-undeclared", "0%", ""), "sw.toml").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    assert_eq!(undeclared_columns(&r), ["flows.sw_sent_undeclared"]);

    // A column may be another transport's (the same definition), not another meaning of
    // its name.
    const CLASH: [ColumnDef; 1] = [ColumnDef::new(
        "stopwait_resent",
        "packets",
        "something else",
    )];
    let e = transport::register(
        "stopwait-clash",
        Registration {
            flow_columns: &CLASH,
            ..registered::REGISTRATION
        },
    )
    .unwrap_err();
    assert!(
        e.contains("stopwait_resent") && e.contains("'stopwait'"),
        "{e}"
    );
    assert!(!transport::names().contains(&"stopwait-clash".to_string()));
}
