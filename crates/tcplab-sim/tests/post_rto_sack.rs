//! The post-RTO SACK stall, as a whole simulation: BBR over the seed-001 channel at
//! 10 ms (100 Mbit/s, 100-packet drop-tail queue, 0.5 % loss on data only), SACK recovery
//! with RFC 6675 loss detection, MSS 1448, 10 MiB, seeds 1-5.
//!
//! Each run starts with a lost retransmission that only a timeout can repair. Before the
//! fix the go-back-N pass after that timeout counted the SACKed segments it skipped as
//! in flight and fell silent with the link idle until a second, backed-off timeout, and
//! the rate samples spanning the timer wait made BBR's bandwidth estimate collapse
//! (measured before the fix: idle stretches of 2-4 s with 6.6-7.3 MB still to send in
//! seeds 2-4, BtlBw 97 -> 2.4-5.7 Mbit/s, goodput 8.9-46 Mbit/s, mean 20.2).

//!
//! The receive window is 64 MiB (the default before the 6 MiB one): with the 6 MiB default a
//! retransmission lost again waits for the backed-off RTO with the window full, which is
//! what a real stack with that buffer and RFC 6675 loss detection does too; the bug
//! pinned here is the accounting, not the buffer.

use tcplab_sim::{simulate, Results};

/// Parses with tcplab's own defaults pinned (`stack = "tcplab"`), which these checks were
/// written for (TCP flows default to the `linux` profile).
fn parse_pinned(text: &str, source: &str) -> Result<tcplab_sim::Scenario, tcplab_sim::ConfigError> {
    tcplab_sim::parse_scenario_str(&format!("stack = \"tcplab\"\n{text}"), source)
}

/// The longest round trip of the path: 20 ms of propagation, 12 ms of a full queue.
const ONE_RTT: f64 = 0.035;

fn run(seed: u64) -> Results {
    let sc = parse_pinned(
        "sample = \"1ms\"\n[link]\nrate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = \"100pkt\"\n\
         loss = \"0.5%\"\n[[flow]]\ncc = \"bbr\"\nrecovery = \"sack\"\nmss = 1448\n\
         bytes = \"10MiB\"\nrcv_buf = \"64MiB\"\n",
        "post_rto_sack.rs",
    )
    .unwrap();
    let r = simulate(&sc, seed, 0).unwrap();
    assert!(
        r.flows.bools("completed").unwrap()[0],
        "seed {seed} completes"
    );
    r
}

/// Timeout instants: the minimum RTO (1 s) holds the RTO at 1 s on this path, so it only
/// grows when a timeout backs it off.
fn rto_times(r: &Results) -> Vec<f64> {
    let t = r.flow_series.floats("t_s").unwrap();
    let rto = r.flow_series.floats("rto_s").unwrap();
    (1..t.len())
        .filter(|&i| rto[i] > rto[i - 1])
        .map(|i| t[i])
        .collect()
}

/// (time, cumulative bytes delivered) of the data direction, one row per millisecond.
fn data_link(r: &Results) -> Vec<(f64, u64)> {
    let s = &r.link_series;
    let (t, dir) = (s.floats("t_s").unwrap(), s.texts("direction").unwrap());
    let delivered = s.ints("delivered_bytes").unwrap();
    (0..t.len())
        .filter(|&i| dir[i] == "fwd")
        .map(|i| (t[i], delivered[i]))
        .collect()
}

#[test]
fn the_sender_keeps_the_link_busy_after_each_rto() {
    let mut goodputs = vec![];
    for seed in 1..=5 {
        let r = run(seed);
        let rtos = rto_times(&r);
        assert_eq!(
            rtos.len() as u64,
            r.flows.ints("rtos").unwrap()[0],
            "seed {seed}: RTOs found"
        );
        assert!(!rtos.is_empty(), "seed {seed}: the case needs a timeout");
        let link = data_link(&r);
        let total = link.last().unwrap().1;
        let at = |t: f64| link.iter().rev().find(|x| x.0 <= t).unwrap().1;
        for &t in &rtos {
            // The timeout's retransmission reaches the link within one round trip.
            assert!(
                at(t + ONE_RTT) > at(t),
                "seed {seed}: nothing sent within one RTT of the RTO at {t} s"
            );
        }
        // After the first timeout the link never idles for longer than a round trip
        // while data is still to be sent: an idle stretch may only be the wait for a
        // timeout once (almost) everything has crossed, because a retransmission was
        // lost again (RFC 6675 cannot see that; RACK can).
        let mut idle_from: Option<usize> = None;
        for i in 1..link.len() {
            if link[i].1 == link[i - 1].1 {
                idle_from.get_or_insert(i - 1);
                continue;
            }
            let Some(s) = idle_from.take() else { continue };
            let (start, left) = (link[s].0, total - link[s].1);
            if start > rtos[0] && link[i - 1].0 - start > ONE_RTT {
                assert!(
                    left < total / 100,
                    "seed {seed}: link idle from {start} s to {} s with {left} B still to send",
                    link[i - 1].0
                );
            }
        }
        // The bandwidth estimate survives each timeout: samples restart after it instead
        // of spanning the wait (delivery-rate draft, section 3.2).
        let c = &r.cc_trace;
        let bw: Vec<(f64, f64)> = (0..c.t_s.len())
            .filter(|&i| c.key[i] == "btl_bw")
            .map(|i| (c.t_s[i], c.value[i]))
            .collect();
        for (k, &t) in rtos.iter().enumerate() {
            let next = rtos.get(k + 1).copied().unwrap_or(f64::MAX);
            let before = bw.iter().rev().find(|x| x.0 < t).unwrap().1;
            let low = bw
                .iter()
                .filter(|x| x.0 >= t && x.0 < next)
                .map(|x| x.1)
                .fold(f64::MAX, f64::min);
            assert!(
                low >= 0.9 * before,
                "seed {seed}: BtlBw fell from {before} to {low} B/s after the RTO at {t} s"
            );
        }
        goodputs.push(r.flows.floats("goodput_bps").unwrap()[0] / 1e6);
    }
    eprintln!("goodput (Mbit/s), seeds 1-5: {goodputs:.2?}");
    let mean = goodputs.iter().sum::<f64>() / 5.0;
    assert!(mean > 30.0, "mean goodput {mean:.1} Mbit/s");
}
