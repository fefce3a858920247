//! A transport written outside tcplab, registered by name and run from a scenario: the
//! worked example of docs/transports.md (stop-and-wait ARQ).

use tcplab_core::{Dur, Metrics, Time};
use tcplab_sim::{parse_scenario_str, simulate};
use tcplab_transport::cc::CcParams;
use tcplab_transport::transport::{self, FlowContext, UserEndpoints};
use tcplab_transport::{Endpoint, Opaque, Packet, Progress, Violation};

const DATA: u16 = 0;
const ACK: u16 = 1;
/// Payload per packet, and header bytes (IPv4 + a 12-byte header of our own).
const PAYLOAD: u64 = 1000;
const HEADER: u32 = 32;

/// Sends one packet, waits for its acknowledgement or a timeout, resends on timeout.
struct StopWaitSource {
    total: u64,
    timeout: Dur,
    next: u64,
    /// The outstanding packet's number and when to give up on it.
    waiting: Option<(u64, Time)>,
    due: bool,
    started: bool,
    done_at: Option<Time>,
    resent: u64,
}

struct StopWaitSink {
    flow: u32,
    delivered: u64,
    ack_due: Option<u64>,
    acks: u64,
}

fn packet(kind: u16, seq: u64, wire_len: u32) -> Packet {
    Packet::Opaque(Opaque {
        kind,
        words: [seq, 0, 0, 0, 0, 0],
        wire_len,
    })
}

impl Endpoint for StopWaitSource {
    fn handle_packet(&mut self, now: Time, pkt: &Packet) -> Result<(), Violation> {
        if let Packet::Opaque(o) = pkt {
            if o.kind == ACK && self.waiting.is_some_and(|(s, _)| s == o.words[0]) {
                self.waiting = None;
                self.next += 1;
                if self.next * PAYLOAD >= self.total {
                    self.done_at = Some(now);
                } else {
                    self.due = true;
                }
            }
        }
        Ok(())
    }
    fn handle_timeout(&mut self, now: Time) {
        if self.waiting.is_some_and(|(_, t)| t <= now) {
            self.waiting = None;
            self.due = true;
            self.resent += 1;
        }
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        if !self.due {
            return None;
        }
        self.due = false;
        self.waiting = Some((self.next, now + self.timeout));
        Some(packet(DATA, self.next, PAYLOAD as u32 + HEADER))
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.waiting.map(|(_, t)| t)
    }
    fn start(&mut self, _now: Time) {
        self.started = true;
        self.due = true;
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.total,
            sent_bytes: ((self.next + 1) * PAYLOAD).min(self.total),
            finished_at: self.done_at,
        }
    }
    fn summary(&self, out: &mut dyn Metrics) {
        out.put("stopwait_resent", self.resent.into());
    }
}

impl Endpoint for StopWaitSink {
    fn handle_packet(&mut self, _now: Time, pkt: &Packet) -> Result<(), Violation> {
        let Packet::Opaque(o) = pkt else {
            return Err(Violation::ForeignPacket {
                flow: self.flow,
                expected: "stop-and-wait",
            });
        };
        let seq = o.words[0];
        if seq * PAYLOAD == self.delivered {
            self.delivered += PAYLOAD;
        }
        // Acknowledge every copy (a lost ACK makes the source resend).
        self.ack_due = Some(seq);
        Ok(())
    }
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Packet> {
        self.ack_due.take().map(|s| {
            self.acks += 1;
            packet(ACK, s, 40)
        })
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn progress(&self) -> Progress {
        Progress {
            app_bytes: self.delivered,
            ..Progress::default()
        }
    }
    fn sample(&self, out: &mut dyn Metrics) {
        out.put("delivered", self.delivered.into());
    }
}

fn build(p: &mut CcParams, ctx: FlowContext) -> Result<UserEndpoints, String> {
    let timeout_ms = p.take("timeout_ms", 100.0, |x| x > 0.0, "> 0")?;
    let total = ctx.bytes.ok_or("stop-and-wait needs a byte count")?;
    if total % PAYLOAD != 0 {
        return Err(format!("bytes must be a multiple of {PAYLOAD}"));
    }
    Ok(UserEndpoints {
        source: Box::new(StopWaitSource {
            total,
            timeout: Dur::from_secs_f64(timeout_ms / 1000.0),
            next: 0,
            waiting: None,
            due: false,
            started: false,
            done_at: None,
            resent: 0,
        }),
        sink: Box::new(StopWaitSink {
            flow: ctx.flow,
            delivered: 0,
            ack_due: None,
            acks: 0,
        }),
        reliable: true,
    })
}

fn scenario(loss: &str, params: &str) -> String {
    format!(
        r#"
        [link]
        rate = "8Mbps"
        delay = "10ms"
        loss = "{loss}"
        ack_loss = "{loss}"
        [[flow]]
        transport = "stopwait"
        bytes = "200KB"
        {params}
        "#
    )
}

#[test]
fn a_registered_transport_runs_from_a_scenario() {
    transport::register("stopwait", build).unwrap();
    assert!(transport::names().contains(&"stopwait".to_string()));
    // No loss: one packet per round trip. 1032 B take 1.032 ms at 8 Mbit/s, the ACK
    // 0.04 ms, plus 20 ms of propagation: 200 packets in 200 × 21.072 ms.
    let sc = parse_scenario_str(&scenario("0%", ""), "sw.toml").unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    let f = &r.flows;
    assert!(f.bools("completed").unwrap()[0]);
    assert_eq!(f.ints("bytes_delivered").unwrap()[0], 200_000);
    let t = f.opt_floats("completion_s").unwrap()[0].unwrap();
    assert!((t - 200.0 * 0.021072).abs() < 1e-6, "{t}");
    assert_eq!(f.texts("transport").unwrap()[0], "stopwait");
    // The flow series and summary columns come from the endpoints.
    assert!(r.flow_series.ints("delivered").is_some());
    assert_eq!(f.ints("stopwait_resent").unwrap()[0], 0);

    // With loss both ways every byte still arrives, after timeouts.
    let sc =
        parse_scenario_str(&scenario("10%", "params = { timeout_ms = 50 }"), "sw.toml").unwrap();
    let r = simulate(&sc, 3, 0).unwrap();
    assert!(r.flows.bools("completed").unwrap()[0]);
    assert!(r.flows.ints("stopwait_resent").unwrap()[0] > 20);

    // Its parameters are validated against the file.
    let e = parse_scenario_str(&scenario("0%", "params = { timeout_ms = -1 }"), "sw.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sw.toml") && e.contains("flow[0].params") && e.contains("> 0"),
        "{e}"
    );
    let e = parse_scenario_str(&scenario("0%", "params = { timeoutms = 5 }"), "sw.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("timeoutms"), "{e}");
    // Built-in names are reserved, unknown ones are listed.
    assert!(transport::register("tcp", build).is_err());
    let e = parse_scenario_str(&scenario("0%", "").replace("stopwait", "nope"), "sw.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown transport 'nope'") && e.contains("stopwait"),
        "{e}"
    );
}
