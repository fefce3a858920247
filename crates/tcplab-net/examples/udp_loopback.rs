//! Loopback ceiling of the UDP driver (numbers for docs/performance.md): one transfer
//! between two threads over 127.0.0.1, reporting goodput and the CPU time each side
//! used (so Gbit/s per core), and the batching achieved.
//!
//! cargo run --release -p tcplab-net --example udp_loopback -- [FLOW TOML] [--rt]
//! e.g. 'cc = "cubic"\nbytes = "500MB"\nmtu = 9000' or 'transport = "tack"\nbytes = "300MB"'
//! (any transport the driver carries).

use rustix::time::ClockId;
use std::net::UdpSocket;
use tcplab_core::Dur;
use tcplab_net::probe;
use tcplab_net::udp::{self, RecvOptions, SendOptions};

fn cpu_s(clock: ClockId) -> f64 {
    let ts = rustix::time::clock_gettime(clock);
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

fn thread_cpu_s() -> f64 {
    cpu_s(ClockId::ThreadCPUTime)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "cc = \"cubic\"\nbytes = \"300MB\"\nrecovery = \"sack\"".into())
        .replace("\\n", "\n");
    let rt = args.iter().any(|a| a == "--rt");
    let table: toml::Table = text.parse().unwrap();
    let flow = udp::flow_spec(&table, "arg").unwrap();
    let rsock = UdpSocket::bind("127.0.0.1:0").unwrap();
    // A large receive buffer: the receiver thread shares 2 cores with the sender.
    let _ = probe::force_recv_buffer(&rsock, 8 << 20);
    let to = rsock.local_addr().unwrap();
    let ((r, rcpu), (s, scpu)) = std::thread::scope(|sc| {
        let rh = sc.spawn(|| {
            let c0 = thread_cpu_s();
            let o = RecvOptions {
                listen_timeout: Some(Dur::from_secs(10)),
                realtime: rt,
                ..RecvOptions::default()
            };
            // receive_on runs the loop on a child thread: measure process-wide below.
            let r = udp::receive_on(rsock, &o).unwrap();
            (r, thread_cpu_s() - c0)
        });
        let mut o = SendOptions::from_table(to, &table, "arg").unwrap();
        o.sample = None;
        o.realtime = rt;
        let c0 = thread_cpu_s();
        let s = udp::send(&o).unwrap();
        let sc_cpu = thread_cpu_s() - c0;
        (rh.join().unwrap(), (s, sc_cpu))
    });
    // User and system time of every thread of the process.
    let cpu = cpu_s(ClockId::ProcessCPUTime);
    let f = &s.results.flows;
    let g = f.floats("goodput_bps").unwrap()[0];
    let wall = f.opt_floats("completion_s").unwrap()[0].unwrap_or(s.wall_s);
    let bits = f.ints("bytes_delivered").unwrap()[0] as f64 * 8.0;
    let _ = (rcpu, scpu);
    println!(
        "{} | payload {} | goodput {:.2} Gbit/s | wall {:.2} s | process CPU {:.2} s (both sides) -> {:.2} Gbit/s per core | retx {} | datagrams/sendmmsg {:.1} | datagrams/recvmmsg at receiver {:.1} | rejected {}",
        flow.transport.name(),
        udp::flow_endpoints::shape(&flow).unwrap().mss,
        g / 1e9,
        wall,
        cpu,
        bits / cpu / 1e9,
        f.ints("retransmitted_segments")
            .map_or("-".to_string(), |v| v[0].to_string()),
        s.loop_stats.datagrams_out as f64 / s.loop_stats.send_calls.max(1) as f64,
        r.loop_stats.datagrams_in as f64 / r.loop_stats.recv_calls.max(1) as f64,
        r.counters.rejected() + s.counters.rejected(),
    );
}
