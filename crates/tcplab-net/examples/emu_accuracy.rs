//! Measures the emulator's accuracy (numbers for docs/performance.md). Needs root.
//!
//! For each rate: (1) saturation — probes at 1.1x the link rate for `secs` seconds; the
//! delivered IP-layer rate at the sink is compared with the configured rate; (2) delay —
//! probes at 50 % load; each probe's one-way delay is compared with the arrival the link
//! model gives for its send time (percentiles of the error).
//!
//! cargo run --release -p tcplab-net --example emu_accuracy -- [secs] [rates in Mbit/s...]

use std::net::UdpSocket;
use std::time::Duration;
use tcplab_net::emu::{emulation_scenario, EmuConfig, Emulation};
use tcplab_net::probe;

fn run(
    rate_mbps: f64,
    load: f64,
    secs: f64,
    delay: &str,
    realtime: bool,
) -> (f64, Vec<i64>, String) {
    let rate = (rate_mbps * 1e6) as u64;
    let text = format!(
        "sample = \"off\"\n[link]\nrate = \"{rate}bps\"\ndelay = \"{delay}\"\nqueue = \"100000pkt\"\n"
    );
    let table: toml::Table = text.parse().unwrap();
    let mut cfg = EmuConfig::new(emulation_scenario(&table, "bench").unwrap(), 1).unwrap();
    cfg.packet_log = false;
    cfg.realtime = realtime;
    let params = cfg.scenario.links[0].fwd.clone();
    let emu = Emulation::start(cfg).unwrap();
    let sink = UdpSocket::bind((emu.host_addr(), 0)).unwrap();
    // A big receive buffer so the sink never drops at 200+ Mbit/s.
    let _ = probe::force_recv_buffer(&sink, 64 << 20);
    let to = sink.local_addr().unwrap();
    let payload = 1472;
    let ip = (payload + 28) as f64 * 8.0;
    let count = ((rate as f64 * load * secs) / ip).ceil() as u32;
    let (sent, recv) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            emu.ns()
                .run_in(|| {
                    // The probe sender must outpace the link on a busy machine too.
                    tcplab_net::sys::sched::try_realtime(5);
                    let sock = UdpSocket::bind("0.0.0.0:0").unwrap();
                    probe::send_paced(&sock, to, payload, (rate as f64 * load) as u64, count)
                        .unwrap()
                })
                .unwrap()
        });
        let r = probe::receive(
            &sink,
            Duration::from_millis(500),
            Duration::from_secs_f64(secs * 3.0 + 5.0),
        )
        .unwrap();
        (h.join().unwrap(), r)
    });
    let res = emu.stop().unwrap();
    let rate_got = probe::delivered_rate_bps(&recv).unwrap_or(0.0);
    let expect = probe::expected_arrivals(&params, &sent);
    let mut err: Vec<i64> = recv
        .iter()
        .filter_map(|r| {
            expect
                .get(r.seq as usize)
                .copied()
                .flatten()
                .map(|e| r.recv_ns as i64 - e as i64)
        })
        .collect();
    err.sort();
    let sent_rate = match (sent.first(), sent.last()) {
        (Some(a), Some(b)) if b.t_ns > a.t_ns => {
            sent[1..].iter().map(|x| x.ip_len as f64 * 8.0).sum::<f64>()
                / ((b.t_ns - a.t_ns) as f64 / 1e9)
        }
        _ => 0.0,
    };
    let note = format!(
        "offered {:.1} Mbit/s, sent {} recv {} late p50/p99/max {}/{}/{} us, loop CPU {:.0} % rt={}",
        sent_rate / 1e6,
        sent.len(),
        recv.len(),
        res.info.late_p50_ns / 1000,
        res.info.late_p99_ns / 1000,
        res.info.late_max_ns / 1000,
        res.info.cpu_s / res.info.duration_s * 100.0,
        res.info.realtime
    );
    (rate_got, err, note)
}

fn pct(v: &[i64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let secs: f64 = args.first().map_or(2.0, |s| s.parse().unwrap());
    let rt = std::env::var("TCPLAB_NO_RT").is_err();
    let rates: Vec<f64> = if args.len() > 1 {
        args[1..].iter().map(|s| s.parse().unwrap()).collect()
    } else {
        vec![
            1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 150.0, 200.0, 300.0, 500.0,
        ]
    };
    println!("| rate Mbit/s | delivered at 1.1x load | error | delay err p50 / p99 / p99.9 at 50 % load (us) | notes |");
    println!("|---|---|---|---|---|");
    for r in rates {
        let (got, _, note1) = run(r, 1.1, secs, "10ms", rt);
        let (_, err, note2) = run(r, 0.5, secs, "10ms", rt);
        println!(
            "| {r} | {:.3} | {:+.2} % | {:.0} / {:.0} / {:.0} | sat: {note1}; half: {note2} |",
            got / 1e6,
            (got / (r * 1e6) - 1.0) * 100.0,
            pct(&err, 0.5),
            pct(&err, 0.99),
            pct(&err, 0.999),
        );
    }
}
