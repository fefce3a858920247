//! Receive interrupt coalescing at a host (`source_rx_coalesce`, `sink_rx_coalesce`): a
//! packet reaches the endpoint when the NIC's interrupt fires, a fixed time after the
//! first packet of its batch.

use tcplab_sim::{parse_scenario_str, simulate, Results};

/// One TACK flow, 20 Mbit/s, 20 ms each way, 10 s.
fn run(extra_flow: &str) -> Results {
    let toml = format!(
        "sample = \"off\"\nduration = \"10s\"\n[link]\nrate = \"20Mbps\"\ndelay = \"20ms\"\n\
         queue = \"2000pkt\"\n[[flow]]\ntransport = \"tack\"\nbytes = \"unlimited\"\n{extra_flow}\n"
    );
    let sc = parse_scenario_str(&toml, "coalesce.toml").unwrap_or_else(|e| panic!("{e}"));
    simulate(&sc, 1, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn rtt_min_ms(r: &Results) -> f64 {
    r.flows.floats("rtt_min_s").unwrap()[0] * 1e3
}

/// A TACK arrives alone at the sender (tens of ms apart), so each waits the whole timer:
/// the RTT_min the sender measures rises by the timer, 2048 µs (iwlwifi's default). At the
/// receiver the data packets come 0.6 ms apart, and the one that arrived just before an
/// interrupt (the min-OWD packet) waits next to nothing: RTT_min rises far less.
#[test]
fn a_lone_ack_waits_the_whole_timer_and_a_batch_s_last_packet_hardly_any() {
    let base = rtt_min_ms(&run(""));
    let at_source = rtt_min_ms(&run("source_rx_coalesce = \"2048us\""));
    let at_sink = rtt_min_ms(&run("sink_rx_coalesce = \"2048us\""));
    eprintln!("RTT_min: none {base:.3} ms, source {at_source:.3}, sink {at_sink:.3}");
    assert!(
        (at_source - base - 2.048).abs() < 0.05,
        "{at_source} vs {base}"
    );
    assert!(at_sink - base < 0.7, "{at_sink} vs {base}");
    assert!(at_sink >= base);
}

/// A finite TCP transfer behind 2 ms of coalescing at both hosts completes with every
/// byte; a timer beyond what a NIC register holds is refused with the key and value.
#[test]
fn every_byte_still_arrives_and_a_bad_timer_is_a_clear_error() {
    let toml = "sample = \"off\"\n[link]\nrate = \"20Mbps\"\ndelay = \"5ms\"\n[[flow]]\n\
                bytes = \"5MB\"\nsource_rx_coalesce = \"2ms\"\nsink_rx_coalesce = \"2ms\"\n";
    let sc = parse_scenario_str(toml, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let r = simulate(&sc, 1, 0).unwrap();
    assert_eq!(r.flows.ints("bytes_delivered").unwrap()[0], 5_000_000);
    assert!(r.flows.bools("completed").unwrap()[0]);
    let bad = "[link]\nrate = \"20Mbps\"\ndelay = \"1ms\"\n[[flow]]\nbytes = \"1MB\"\n\
               sink_rx_coalesce = \"1s\"\n";
    let e = parse_scenario_str(bad, "bad.toml").unwrap_err().to_string();
    assert!(
        e.contains("bad.toml") && e.contains("sink_rx_coalesce") && e.contains("1s"),
        "{e}"
    );
}
