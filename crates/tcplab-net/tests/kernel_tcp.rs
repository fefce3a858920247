//! Linux's own TCP through the emulator: cubic and bbr over a 20 Mbit/s, 10 ms link.
//! Needs root and /dev/net/tun; elsewhere each test says why it skips.

use std::net::TcpListener;
use std::time::Duration;
use tcplab_core::Dur;
use tcplab_net::emu::{check_privileges, emulation_scenario, EmuConfig, Emulation};
use tcplab_net::ktcp::{self, RecvStatus, SendConfig};

fn run(cc: &str) -> (ktcp::SendReport, ktcp::RecvReport) {
    let table: toml::Table = r#"
        [link]
        rate = "20Mbps"
        delay = "10ms"
        queue = "100pkt"
    "#
    .parse()
    .unwrap();
    let cfg = EmuConfig::new(emulation_scenario(&table, "t.toml").unwrap(), 1).unwrap();
    let emu = Emulation::start(cfg).unwrap();
    let l = TcpListener::bind((emu.host_addr(), 0)).unwrap();
    let to = l.local_addr().unwrap();
    let out = std::thread::scope(|s| {
        let r = s.spawn(|| ktcp::receive(&l, Duration::from_secs(10)).unwrap());
        let snd = emu
            .ns()
            .run_in(|| {
                ktcp::send(&SendConfig {
                    to,
                    cc: cc.into(),
                    bytes: Some(3_000_000),
                    duration: None,
                    sample: Some(Dur::from_millis(10)),
                    name: cc.into(),
                    key: 7,
                    ns_exclusive: true,
                    stop: None,
                })
                .unwrap()
            })
            .unwrap();
        (snd, r.join().unwrap())
    });
    emu.stop().unwrap();
    out
}

#[test]
fn kernel_cubic_and_bbr_through_the_emulator() {
    if let Err(e) = check_privileges("the kernel-TCP tests") {
        eprintln!("skipped: {e}");
        return;
    }
    for cc in ["cubic", "bbr"] {
        let (s, r) = run(cc);
        assert_eq!(r.status, RecvStatus::Ok);
        assert_eq!(r.bytes, 3_000_000);
        let f = &s.flows;
        let g = f.floats("goodput_bps").unwrap()[0];
        // 3 MB over 20 Mbit/s: goodput below the link rate, above half of it.
        assert!(g < 20e6 && g > 10e6, "{cc}: goodput {g}");
        let min_rtt = f.opt_floats("rtt_min_s").unwrap()[0].unwrap();
        assert!((0.020..0.026).contains(&min_rtt), "{cc}: min RTT {min_rtt}");
        assert!(s.flow_series.rows() > 50, "{cc}: sampled every 10 ms");
        assert!(s.flow_series.ints("cwnd").unwrap().iter().all(|&c| c > 0));
        assert_eq!(f.texts("cc").unwrap()[0], format!("linux-{cc}"));
        eprintln!(
            "{cc}: {:.2} Mbit/s, retx {}, min RTT {:.1} ms, mean srtt {:.1} ms",
            g / 1e6,
            f.ints("retransmitted_segments").unwrap()[0],
            min_rtt * 1e3,
            f.opt_floats("rtt_mean_s").unwrap()[0].unwrap() * 1e3
        );
    }
}
